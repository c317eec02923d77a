// The directory walk's listing on Linux: getdents64 in large reads, then
// fstatat(dirfd, name, AT_SYMLINK_NOFOLLOW) of each entry. Everything is
// relative to an open directory, so a path of any depth is walked without
// ever being spelled out, and nothing is followed (scan_posix.cc opens).
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <vector>

#include "scan_platform.h"
#include "scan_posix.h"

namespace diskprobe {
namespace scan {

namespace {

// getdents64's record; glibc 2.17, the floor the prebuilds target, has no
// wrapper for the call.
struct LinuxDirent64 {
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

// 64 KiB a read: about 2,000 entries of a usual name length, so a directory
// of thousands costs a few system calls, not one a dozen entries.
constexpr size_t kListBuffer = 64 * 1024;

}  // namespace

int List(const Dir& dir, EntrySink* sink, std::vector<char>* scratch) {
  const int fd = static_cast<int>(dir.handle);
  if (scratch->size() < kListBuffer) scratch->resize(kListBuffer);
  std::vector<char>& buffer = *scratch;
  for (;;) {
    if (sink->Stopped()) return 0;
    const long read = syscall(SYS_getdents64, fd, buffer.data(), buffer.size());
    if (read < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (read == 0) return 0;
    for (long at = 0; at < read;) {
      const auto* entry = reinterpret_cast<const LinuxDirent64*>(buffer.data() + at);
      at += entry->d_reclen;
      const char* name = entry->d_name;
      if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) continue;
      const size_t length = strlen(name);
      const Decision decision = sink->Decide(name, length);
      if (decision != Decision::kStat) {
        sink->Set(name, length, decision);
        continue;
      }
      struct stat st;
      if (fstatat(fd, name, &st, kStatFlags) != 0) {
        sink->Entry(name, length, nullptr, errno, kWalkStat);
        continue;
      }
      Facts facts;
      ToFacts(st, &facts);
      sink->Entry(name, length, &facts, 0, kWalkStat);
      if (sink->Stopped()) return 0;
    }
  }
}

}  // namespace scan
}  // namespace diskprobe
