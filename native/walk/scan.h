// The directory walk: how much a tree takes on disk, on threads of its own.
// Plain C++: no Node types (native/addon/addon_scan.cc converts). The
// platform half, which opens and lists directories, is scan_platform.h.
//
// What it counts, as GNU du does: allocated bytes (st_blocks x 512) and
// apparent bytes (st_size), files and directories, each (device, inode) once:
// a file with several hard links once, where a depth-first walk in listing
// order (du's) meets it first; and a directory reached twice (a bind mount, a
// cycle) once, likewise. Symlinks are never followed.
//
// Memory grows with the number of directories: each is a node with its own
// totals; files are summed into their directory and forgotten, except the
// largest few of each directory (top_files) and, for `du -a`, every one
// (keep_files).
#ifndef DISKPROBE_SCAN_H_
#define DISKPROBE_SCAN_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace diskprobe {

// A mount point inside the tree, from the mount table: the walk defers its
// stat to a work item of its own (a dead mount then holds one thread, not
// the listing of its parent), and never touches one known to be stuck.
struct ScanMount {
  std::string path;  // absolute
  uint64_t dev = 0;  // its st_dev as the mount table tells it (0: unknown)
  bool stuck = false;
};

struct ScanOptions {
  std::string path;  // the start, absolute
  uint32_t threads = 0;  // 0: kDefaultScanThreads
  bool one_file_system = false;
  bool keep_files = false;   // a record of every entry that is not a directory (du -a)
  uint32_t top_files = 0;    // the largest files kept per directory
  uint32_t max_errors = 20;  // errors kept with their names; every one is counted
  std::vector<ScanMount> mounts;
};

// Threads a walk runs on when JS names none (it always does: one a core, at
// least two; src/scan/walk.ts defaultWalkThreads, measured in bench:du).
constexpr uint32_t kDefaultScanThreads = 2;
constexpr uint32_t kMaxScanThreads = 64;

enum ScanNodeFlags : uint32_t {
  kNodeListed = 1u << 0,       // its listing ended (completely, or with an error recorded)
  kNodeUnreadable = 1u << 1,   // it could not be opened or read to the end: an error names it
  kNodeSkipped = 1u << 2,      // a mount known to be stuck: never touched
  kNodeOtherDevice = 1u << 3,  // one_file_system: on another device; neither entered nor counted
  kNodeDuplicate = 1u << 4,    // the same directory as another node (a bind mount, a cycle): counted there only
  kNodeStarted = 1u << 5,      // a thread has taken it
  kNodeNotDirectory = 1u << 6, // not a directory: the start, or a file-bind mount (counted as one file)
};

// One entry kept by name: a largest file, or any entry for keep_files.
struct ScanFile {
  std::string name;
  uint32_t dir = 0;          // node index
  uint32_t entry_index = 0;  // its place in its directory's listing
  uint64_t allocated = 0;
  uint64_t apparent = 0;
  uint64_t dev = 0;  // with ino, set only for a file with several links (resolved when summed)
  uint64_t ino = 0;
};

struct ScanError {
  uint32_t dir = 0;
  std::string name;  // the entry; empty: the directory itself
  int error = 0;     // errno
  uint32_t syscall = 0;  // scan::WalkSyscall
};

// The tree as it stands, with totals summed: what JS reads. Per-node arrays
// are indexed by node; node 0 is the start. Child nodes of a node are
// contiguous: [first_child, first_child + child_count), in listing order.
struct ScanSnapshot {
  bool done = false;     // every directory was listed
  bool stopped = false;  // Stop() was called before it was done
  std::vector<uint32_t> parent, entry_index, first_child, child_count, flags, entries;
  // Seven per node: own allocated, own apparent, own files (the directory's
  // own inode and its entries that are not directories), then the subtree's
  // allocated, apparent, files and directories (itself included).
  std::vector<uint64_t> sizes;
  std::string names;  // node i's name: names[name_end[i-1], name_end[i]); node 0's is the start path
  std::vector<uint32_t> name_end;
  std::vector<ScanFile> files;  // largest per directory, or every entry with keep_files; only counted ones
  uint64_t error_count = 0;
  std::vector<ScanError> errors;
  uint64_t unfinished_count = 0;     // directories not listed yet
  std::vector<uint32_t> unfinished;  // the first of them
  std::vector<ScanError> in_progress;  // what each busy thread is on now (error 0): a stuck one shows here
  uint64_t entries_seen = 0;
};

static constexpr size_t kSizesPerNode = 7;

class ScanState;

class Scan {
 public:
  // Starts the walk; `on_done` is called once, on a walker thread, when every
  // directory has been listed (never after Stop()).
  static std::shared_ptr<Scan> Start(ScanOptions options, std::function<void()> on_done);
  ~Scan();

  // Ends the walk soon: every thread stops after the call it is in (one
  // stuck in the kernel, whenever that returns). Idempotent.
  void Stop();
  // Frees the tree as soon as no thread uses it; Snapshot() is empty after.
  void Release();
  bool Done() const;
  ScanSnapshot Snapshot(size_t max_unfinished);
  // Entries met so far, their allocated bytes, and directories listed.
  void Progress(uint64_t* entries, uint64_t* allocated, uint64_t* dirs) const;
  // The nodes threads are on now: after Stop(), the ones held in a call that has not returned.
  std::vector<uint32_t> Busy();

 private:
  explicit Scan(std::shared_ptr<ScanState> state) : state_(std::move(state)) {}
  std::shared_ptr<ScanState> state_;
};

}  // namespace diskprobe

#endif  // DISKPROBE_SCAN_H_
