// The directory walk's platform half that Linux and macOS share: opening a
// directory by path or relative to its parent, a stat relative to it, and
// closing it. Listing is each one's own (scan_linux.cc, scan_darwin.cc).
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scan_platform.h"
#include "scan_posix.h"

namespace diskprobe {
namespace scan {

int StatPath(const char* path, Facts* facts) {
  struct stat st;
  if (fstatat(AT_FDCWD, path, &st, kStatFlags) != 0) return errno;
  ToFacts(st, facts);
  return 0;
}

int OpenPath(const char* path, Dir* out) {
  const int fd = open(path, kOpenFlags);
  if (fd < 0) return errno;
  out->handle = fd;
  return 0;
}

int OpenChild(const Dir& parent, const char* name, size_t length, Dir* out) {
  CName cname(name, length);
  const int fd = openat(static_cast<int>(parent.handle), cname.c_str(), kOpenFlags);
  if (fd < 0) return errno;
  out->handle = fd;
  return 0;
}

int StatChild(const Dir& parent, const char* name, size_t length, Facts* facts, WalkSyscall* syscall) {
  CName cname(name, length);
  struct stat st;
  *syscall = kWalkStat;
  if (fstatat(static_cast<int>(parent.handle), cname.c_str(), &st, kStatFlags) != 0) return errno;
  ToFacts(st, facts);
  return 0;
}

void Close(Dir* dir) {
  if (dir->handle >= 0) close(static_cast<int>(dir->handle));
  dir->handle = -1;
}

}  // namespace scan
}  // namespace diskprobe
