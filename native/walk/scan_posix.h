// What the Linux and macOS halves of the walk share: stat facts, names made
// C strings, and the flags every stat and open of the walk uses.
#ifndef DISKPROBE_SCAN_POSIX_H_
#define DISKPROBE_SCAN_POSIX_H_

#include <fcntl.h>
#include <sys/stat.h>

#include <cstddef>
#include <string>

#include "scan_platform.h"

namespace diskprobe {
namespace scan {

// Never follow the entry; on Linux AT_NO_AUTOMOUNT too: an autofs trigger
// inside the tree is reported as it stands, and the walk mounts nothing.
#ifdef AT_NO_AUTOMOUNT
constexpr int kStatFlags = AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT;
#else
constexpr int kStatFlags = AT_SYMLINK_NOFOLLOW;
#endif

// A directory opened never through a symlink, and not kept across exec.
constexpr int kOpenFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY;

// What the walk keeps of a stat: st_blocks counts 512-byte units whatever the
// block size (stat(2)), du's default.
inline void ToFacts(const struct stat& st, Facts* facts) {
  facts->dev = static_cast<uint64_t>(st.st_dev);
  facts->ino = static_cast<uint64_t>(st.st_ino);
  facts->nlink = static_cast<uint64_t>(st.st_nlink);
  facts->allocated = static_cast<uint64_t>(st.st_blocks) * 512u;
  facts->apparent = st.st_size > 0 ? static_cast<uint64_t>(st.st_size) : 0;
  facts->is_dir = S_ISDIR(st.st_mode);
}

// A name from a listing is NUL-terminated in place; one from the walk's own
// records may not be, and is then copied.
class CName {
 public:
  CName(const char* name, size_t length) {
    if (name[length] == '\0') {
      ptr_ = name;
    } else {
      copy_.assign(name, length);
      ptr_ = copy_.c_str();
    }
  }
  const char* c_str() const { return ptr_; }

 private:
  const char* ptr_;
  std::string copy_;
};

}  // namespace scan
}  // namespace diskprobe

#endif  // DISKPROBE_SCAN_POSIX_H_
