// The directory walk's view of one platform: open a directory relative to an
// open parent, and list it with each entry's facts, never following a
// symlink. scan_state.cc walks with it; scan_linux.cc, scan_darwin.cc and
// scan_win.cc implement it. Plain C++: no Node types.
#ifndef DISKPROBE_SCAN_PLATFORM_H_
#define DISKPROBE_SCAN_PLATFORM_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace diskprobe {
namespace scan {

// What the walk needs to know of one entry, as lstat tells it.
struct Facts {
  uint64_t dev = 0;
  uint64_t ino = 0;
  uint64_t nlink = 1;
  uint64_t allocated = 0;  // bytes on disk: st_blocks x 512 (Windows: the allocation size, Explorer's "size on disk")
  uint64_t apparent = 0;   // st_size
  bool is_dir = false;
};

// An open directory. On POSIX a file descriptor, on Windows a HANDLE.
struct Dir {
  intptr_t handle = -1;
  bool open() const { return handle != -1; }
};

// The system calls a walk's errors name, as Node's fs errors do (the JS side
// mirrors this list: src/scan/nativeScan.ts).
enum WalkSyscall : uint32_t {
  kWalkOpen = 0,      // openat / open / NtCreateFile
  kWalkRead = 1,      // getdents64 / getattrlistbulk / readdir / NtQueryDirectoryFile
  kWalkStat = 2,      // fstatat / lstat
  kWalkStatx = 3,     // statx
};

// What the walk wants done with an entry it is about to meet, decided by
// name alone, before any system call touches it.
enum class Decision {
  kStat,   // stat it here, as part of the listing
  kDefer,  // a mount point: stat it later, on its own, so that a dead mount holds one thread and not the listing
  kSkip,   // never touch it: a mount known to be stuck, or one on another device under one_file_system
};

// Receives a listing, entry by entry.
class EntrySink {
 public:
  virtual ~EntrySink() = default;
  virtual Decision Decide(const char* name, size_t length) = 0;
  // An entry, with its facts; or the errno (and syscall) of the stat that failed.
  virtual void Entry(const char* name, size_t length, const Facts* facts, int error, WalkSyscall syscall) = 0;
  // An entry Decide() said to defer or skip.
  virtual void Set(const char* name, size_t length, Decision decision) = 0;
  // Whether the walk was stopped: the listing ends early.
  virtual bool Stopped() = 0;
};

// Facts of `path` itself, without following it if it is a symlink. Returns 0 or an errno.
int StatPath(const char* path, Facts* facts);

// Opens the directory `path` (UTF-8). Returns 0 or an errno.
int OpenPath(const char* path, Dir* out);

// Opens directory `name` inside `parent`, without following a symlink.
// Returns 0 or an errno.
int OpenChild(const Dir& parent, const char* name, size_t length, Dir* out);

// Facts of `name` inside `parent`, without following it. Returns 0 or an errno.
int StatChild(const Dir& parent, const char* name, size_t length, Facts* facts, WalkSyscall* syscall);

// Lists every entry of `dir` but "." and "..", in the order the system
// returns them, reading into `scratch` (one per thread, reused: not a
// thread_local, whose destructor would need glibc 2.18). Returns 0, or the
// errno that ended the listing early.
int List(const Dir& dir, EntrySink* sink, std::vector<char>* scratch);

void Close(Dir* dir);

}  // namespace scan
}  // namespace diskprobe

#endif  // DISKPROBE_SCAN_PLATFORM_H_
