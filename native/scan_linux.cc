// The directory walk's platform half on Linux: getdents64 in large reads,
// then fstatat(dirfd, name, AT_SYMLINK_NOFOLLOW) of each entry. Everything is
// relative to an open directory, so a path of any depth is walked without
// ever being spelled out, and nothing is followed.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string>

#include "scan_platform.h"

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

// AT_NO_AUTOMOUNT: an autofs trigger inside the tree is reported as it
// stands; the walk never mounts anything.
constexpr int kStatFlags = AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT;

void ToFacts(const struct stat& st, Facts* facts) {
  facts->dev = static_cast<uint64_t>(st.st_dev);
  facts->ino = static_cast<uint64_t>(st.st_ino);
  facts->nlink = static_cast<uint64_t>(st.st_nlink);
  // st_blocks is in 512-byte units whatever the block size (stat(2)); du's default.
  facts->allocated = static_cast<uint64_t>(st.st_blocks) * 512u;
  facts->apparent = st.st_size > 0 ? static_cast<uint64_t>(st.st_size) : 0;
  facts->is_dir = S_ISDIR(st.st_mode);
}

// A name from getdents is NUL-terminated in place; one from the walk's own
// records is not, and is copied.
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

}  // namespace

int StatPath(const char* path, Facts* facts) {
  struct stat st;
  if (fstatat(AT_FDCWD, path, &st, kStatFlags) != 0) return errno;
  ToFacts(st, facts);
  return 0;
}

int OpenPath(const char* path, Dir* out) {
  const int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return errno;
  out->handle = fd;
  return 0;
}

int OpenChild(const Dir& parent, const char* name, size_t length, Dir* out) {
  CName cname(name, length);
  const int fd = openat(static_cast<int>(parent.handle), cname.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
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

void Close(Dir* dir) {
  if (dir->handle >= 0) close(static_cast<int>(dir->handle));
  dir->handle = -1;
}

}  // namespace scan
}  // namespace diskprobe
