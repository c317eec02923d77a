// The files that are deleted but still held, on one file system: held open
// by a process (/proc/<pid>/fd), or only mapped (/proc/<pid>/maps). Plain
// C++, no Node types; Linux only (elsewhere Run() finds nothing and says so).
// Nothing here touches a file system but the one asked about: each fd is
// placed by its mount id (fdinfo) before any stat, so a file open on a dead
// mount elsewhere is never stat'ed; see docs/explain.md.
#ifndef DISKPROBE_OPEN_FILES_H_
#define DISKPROBE_OPEN_FILES_H_

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace diskprobe {

// One process holding a deleted file: by an fd, or (fd -1) by a mapping alone.
struct FileHolder {
  int32_t pid = 0;
  int32_t fd = -1;
  uint32_t uid = 0;
  std::string command;  // /proc/<pid>/comm
};

// One deleted inode, counted once however many hold it.
struct DeletedFile {
  uint64_t device = 0;  // st_dev (per subvolume on btrfs)
  uint64_t inode = 0;
  uint64_t allocated = 0;  // st_blocks × 512
  uint64_t size = 0;       // st_size
  bool sized = false;      // stat answered: false for a mapping whose map_files link was not readable
  std::string path;        // the name it had, " (deleted)" taken off
  std::vector<FileHolder> holders;
};

// A process whose fd table could not be read.
struct UnreadableProcess {
  int32_t pid = 0;
  uint32_t uid = 0;
  int error = 0;
};

struct OpenFilesReport {
  int error = 0;  // ENOSYS off Linux; else errno of opening /proc
  std::vector<DeletedFile> files;
  uint32_t processes = 0;  // processes looked at
  uint64_t descriptors = 0;  // fds looked at
  std::vector<UnreadableProcess> unreadable;
  std::vector<int32_t> mapsSkipped;  // in uninterruptible sleep: their maps were not read (a read could wait on them)
  uint32_t unknownMounts = 0;  // deleted files open on mounts whose namespace could not be read
};

// The file system asked about, by the device mountinfo gives its superblock
// (the same for every subvolume of a btrfs, unlike st_dev).
struct OpenFilesTarget {
  uint32_t major = 0;
  uint32_t minor = 0;
};

// One scan, shared between the threads that run it and JS, which may stop
// waiting: Busy() says what it is on (a stat that has not returned). The
// processes are shared out among up to kScanThreads threads, each with a
// slot of its own to say what it is on.
class OpenFilesScan {
 public:
  static constexpr int kScanThreads = 4;

  explicit OpenFilesScan(OpenFilesTarget target) : target_(target) {}
  void Run();  // on a thread of its own; fills report()
  const OpenFilesReport& report() const { return report_; }
  // What the thread that has waited longest is on; empty when none waits.
  std::string Busy() const {
    std::lock_guard<std::mutex> lock(mutex_);
    const Slot* oldest = nullptr;
    for (const Slot& slot : busy_)
      if (!slot.what.empty() && (oldest == nullptr || slot.since < oldest->since)) oldest = &slot;
    return oldest == nullptr ? std::string() : oldest->what;
  }
  void SetBusy(int thread, std::string what) {
    std::lock_guard<std::mutex> lock(mutex_);
    busy_[thread].what = std::move(what);
    busy_[thread].since = std::chrono::steady_clock::now();
  }

 private:
  struct Slot {
    std::string what;
    std::chrono::steady_clock::time_point since;
  };

  OpenFilesTarget target_;
  OpenFilesReport report_;
  mutable std::mutex mutex_;
  Slot busy_[kScanThreads];
};

// A detached copy of the mount at `path`, without the mounts on it
// (open_tree(2), OPEN_TREE_CLONE; Linux 5.2): an fd, or -errno.
int OpenTreeClone(const char* path);

}  // namespace diskprobe

#endif  // DISKPROBE_OPEN_FILES_H_
