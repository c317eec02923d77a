// The directory walk, portable half: a queue of directories shared by
// threads of the walk's own (never libuv's: a directory on a dead mount holds
// its thread forever, and libuv's four would starve every fs call in Node),
// one node per directory, and the totals summed when asked for. Listing and
// stat are scan_platform.h's. ScanState holds it all; its threads run in
// scan_state.cc, its snapshot is taken in snapshot.cc.
#ifndef DISKPROBE_SCAN_STATE_H_
#define DISKPROBE_SCAN_STATE_H_

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "dedupe.h"
#include "mount_trie.h"
#include "node_store.h"
#include "scan.h"
#include "scan_platform.h"

namespace diskprobe {

// A directory held open while its subdirectories are still to be opened
// relative to it; closed when the last of them has been.
struct OpenDir {
  scan::Dir dir;
  ~OpenDir() { scan::Close(&dir); }
};

struct WorkItem {
  uint32_t node = 0;
  std::shared_ptr<OpenDir> parent;  // null: the start, opened by path
  bool stat_first = false;          // a mount point (or the start): its stat is part of the work
};

class ScanState : public std::enable_shared_from_this<ScanState> {
 public:
  ScanState(ScanOptions options, std::function<void()> on_done) : options_(std::move(options)), on_done_(std::move(on_done)) {
    trie_ = BuildTrie(options_.path, options_.mounts);
  }

  void Start() {
    const uint32_t root = nodes_.Add();
    nodes_[root].name = options_.path;
    nodes_[root].trie = trie_.get();
    queue_.push_back({root, nullptr, true});
    const uint32_t threads = std::min(options_.threads == 0 ? kDefaultScanThreads : options_.threads, kMaxScanThreads);
    busy_.assign(threads, {kNone, std::string(), 0, 0});  // idle: on no directory
    threads_alive_ = threads;
    for (uint32_t slot = 0; slot < threads; ++slot) {
      std::thread([self = shared_from_this(), slot] { self->Work(slot); }).detach();
    }
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (done_ || stopped_) return;
      stopped_ = true;
      stop_flag_.store(true, std::memory_order_relaxed);
      queue_.clear();  // their directories close as the items go
    }
    work_cv_.notify_all();
  }

  void Release() {
    std::lock_guard<std::mutex> lock(mutex_);
    released_ = true;
    if (threads_alive_ == 0) FreeTree();
  }

  bool Done() {
    std::lock_guard<std::mutex> lock(mutex_);
    return done_;
  }

  void Progress(uint64_t* entries, uint64_t* allocated, uint64_t* dirs) const {
    *entries = entries_seen_.load(std::memory_order_relaxed);
    *allocated = allocated_seen_.load(std::memory_order_relaxed);
    *dirs = dirs_listed_.load(std::memory_order_relaxed);
  }

  ScanSnapshot Snapshot(size_t max_unfinished);

  std::vector<uint32_t> Busy() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<uint32_t> busy;
    for (const ScanError& slot : busy_) {
      if (slot.dir != kNone) busy.push_back(slot.dir);
    }
    return busy;
  }

  bool stopping() const { return stop_flag_.load(std::memory_order_relaxed); }
  const ScanOptions& options() const { return options_; }
  uint64_t root_dev() const { return root_dev_; }

  void CountSeen(uint64_t entries, uint64_t allocated) {
    entries_seen_.fetch_add(entries, std::memory_order_relaxed);
    allocated_seen_.fetch_add(allocated, std::memory_order_relaxed);
  }

  // What a listing found, published at once with the mutex held.
  struct Found {
    struct Child {
      std::string name;
      uint32_t entry_index;
      scan::Facts facts;
      scan::Decision decision;
      const MountTrie* trie;
    };
    std::vector<Child> children;
    std::vector<ScanFile> files;
    std::vector<Hardlink> links;
    std::vector<ScanError> errors;
    uint64_t error_count = 0;
    uint32_t entries = 0;
    uint64_t own_allocated = 0;
    uint64_t own_apparent = 0;
    uint64_t own_files = 0;
  };

 private:
  void Work(uint32_t slot);
  void Visit(const WorkItem& item, std::vector<char>* scratch);
  // With mutex_ held: counts and keeps the first few.
  void RecordError(uint32_t dir, std::string name, int error, uint32_t syscall);
  // Takes the directory `node`'s stat: false if it is not to be walked (an error, a duplicate, another device).
  bool ClaimDirectory(uint32_t node, const scan::Facts& facts);
  void Publish(uint32_t node, Found&& found, const std::shared_ptr<OpenDir>& open, int list_error);
  void FreeTree() {
    nodes_.Clear();
    hardlinks_ = {};
    duplicates_ = {};
    errors_ = {};
    seen_dirs_ = {};
  }

  ScanOptions options_;
  std::function<void()> on_done_;
  std::unique_ptr<MountTrie> trie_;

  std::mutex mutex_;
  std::condition_variable work_cv_;
  NodeStore nodes_;
  std::vector<WorkItem> queue_;  // last in, first out: depth first, which keeps few directories open
  uint32_t active_ = 0;
  uint32_t threads_alive_ = 0;
  bool done_ = false;
  bool stopped_ = false;
  bool released_ = false;
  std::atomic<bool> stop_flag_{false};
  uint64_t root_dev_ = 0;
  std::unordered_map<DevIno, uint32_t, DevInoHash> seen_dirs_;
  std::vector<Hardlink> hardlinks_;
  std::vector<Duplicate> duplicates_;
  uint64_t error_count_ = 0;
  std::vector<ScanError> errors_;
  std::vector<ScanError> busy_;  // per thread: the directory (and mount point) it is on; dir kNone when idle

  std::atomic<uint64_t> entries_seen_{0};
  std::atomic<uint64_t> allocated_seen_{0};
  std::atomic<uint64_t> dirs_listed_{0};
};

}  // namespace diskprobe

#endif  // DISKPROBE_SCAN_STATE_H_
