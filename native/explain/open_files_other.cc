// Not Linux: no /proc to read and no open_tree(2); JS says what it could not see.
#include <errno.h>

#include "open_files.h"

namespace diskprobe {

void OpenFilesScan::Run() { report_.error = ENOSYS; }

int OpenTreeClone(const char*) { return -ENOSYS; }

}  // namespace diskprobe
