// The directory walk, portable half: a queue of directories shared by
// threads of the walk's own (never libuv's: a directory on a dead mount holds
// its thread forever, and libuv's four would starve every fs call in Node),
// one node per directory, and the totals summed when asked for. Listing and
// stat are scan_platform.h's.
#include "scan.h"

#include <errno.h>

#include <algorithm>
#include <thread>
#include <unordered_map>
#include <utility>

#include "scan_platform.h"

namespace diskprobe {

namespace {

constexpr uint32_t kNone = UINT32_MAX;

// Mount points below the start, by path component: a directory on the way
// to one carries its trie node, so its listing knows which names are mount
// points without building a single path.
struct MountTrie {
  std::unordered_map<std::string, std::unique_ptr<MountTrie>> children;
  bool is_mount = false;
  bool stuck = false;
  uint64_t dev = 0;

  const MountTrie* Child(const char* name, size_t length) const {
    const auto it = children.find(std::string(name, length));
    return it == children.end() ? nullptr : it->second.get();
  }
};

// Builds the trie of `mounts` strictly below `root`; null when there are none.
std::unique_ptr<MountTrie> BuildTrie(const std::string& root, const std::vector<ScanMount>& mounts) {
  std::unique_ptr<MountTrie> trie;
  std::string prefix = root;
  if (prefix.empty() || prefix.back() != '/') prefix += '/';
  for (const ScanMount& mount : mounts) {
    if (mount.path.size() <= prefix.size() || mount.path.compare(0, prefix.size(), prefix) != 0) continue;
    if (!trie) trie = std::make_unique<MountTrie>();
    MountTrie* at = trie.get();
    size_t start = prefix.size();
    while (start < mount.path.size()) {
      size_t end = mount.path.find('/', start);
      if (end == std::string::npos) end = mount.path.size();
      if (end > start) {
        auto& child = at->children[mount.path.substr(start, end - start)];
        if (!child) child = std::make_unique<MountTrie>();
        at = child.get();
      }
      start = end + 1;
    }
    at->is_mount = true;
    at->stuck = at->stuck || mount.stuck;
    at->dev = mount.dev;
  }
  return trie;
}

struct Node {
  uint32_t parent = kNone;
  uint32_t entry_index = 0;
  uint32_t first_child = 0;
  uint32_t child_count = 0;
  uint32_t flags = 0;
  uint32_t entries = 0;
  uint64_t dev = 0;
  uint64_t ino = 0;
  uint64_t own_allocated = 0;
  uint64_t own_apparent = 0;
  uint64_t own_files = 0;
  const MountTrie* trie = nullptr;
  std::string name;
  std::vector<ScanFile> files;
};

// Nodes at addresses that never move: a thread keeps using its node while
// others add more. Chunks are added with the walk's mutex held; an index
// reaches another thread only through the queue, under the same mutex.
class NodeStore {
 public:
  NodeStore() : chunks_(new std::unique_ptr<Node[]>[kMaxChunks]) {}
  uint32_t Add() {
    if ((size_ & (kChunk - 1)) == 0) chunks_[size_ >> kChunkBits].reset(new Node[kChunk]);
    return static_cast<uint32_t>(size_++);
  }
  Node& operator[](uint32_t index) { return chunks_[index >> kChunkBits][index & (kChunk - 1)]; }
  size_t size() const { return size_; }
  bool full() const { return size_ >= kChunk * kMaxChunks - 1; }
  void Clear() {
    chunks_.reset(new std::unique_ptr<Node[]>[kMaxChunks]);
    size_ = 0;
  }

 private:
  static constexpr size_t kChunkBits = 12;
  static constexpr size_t kChunk = size_t{1} << kChunkBits;
  static constexpr size_t kMaxChunks = size_t{1} << 18;  // a billion directories
  std::unique_ptr<std::unique_ptr<Node[]>[]> chunks_;
  size_t size_ = 0;
};

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

struct Hardlink {
  uint64_t dev = 0;
  uint64_t ino = 0;
  uint32_t dir = 0;
  uint32_t entry_index = 0;
  uint64_t allocated = 0;
  uint64_t apparent = 0;
};

struct Duplicate {
  uint32_t node;
  uint32_t claimer;  // the node that was walked
};

struct DevIno {
  uint64_t dev;
  uint64_t ino;
  bool operator==(const DevIno& other) const { return dev == other.dev && ino == other.ino; }
};

struct DevInoHash {
  size_t operator()(const DevIno& key) const { return std::hash<uint64_t>()(key.ino * 0x9E3779B97F4A7C15ull ^ key.dev); }
};

bool Counted(uint32_t flags) { return (flags & (kNodeSkipped | kNodeOtherDevice | kNodeDuplicate)) == 0; }

}  // namespace

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

namespace {

// Keeps, of one directory's files, those among its `limit` largest by
// allocated bytes or by apparent size, equal sizes in name order: all that a
// ranking by either can take from it, whatever order the files came in.
void PruneLargest(std::vector<ScanFile>* files, size_t limit) {
  if (files->size() <= limit) return;
  std::vector<uint32_t> order(files->size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::vector<bool> keep(files->size(), false);
  auto rank = [&](uint64_t ScanFile::*size) {
    std::partial_sort(order.begin(), order.begin() + limit, order.end(), [&](uint32_t a, uint32_t b) {
      const ScanFile& x = (*files)[a];
      const ScanFile& y = (*files)[b];
      return x.*size != y.*size ? x.*size > y.*size : x.name < y.name;
    });
    for (size_t i = 0; i < limit; ++i) keep[order[i]] = true;
  };
  rank(&ScanFile::allocated);
  rank(&ScanFile::apparent);
  size_t kept = 0;
  for (size_t i = 0; i < files->size(); ++i) {
    if (!keep[i]) continue;
    if (kept != i) (*files)[kept] = std::move((*files)[i]);  // never onto itself: that would empty it
    ++kept;
  }
  files->resize(kept);
}

// Prunes once it holds four times the limit: a few sorts a directory, not one a file.
void KeepLargest(std::vector<ScanFile>* files, size_t limit, ScanFile&& file) {
  files->push_back(std::move(file));
  if (files->size() >= 4 * limit) PruneLargest(files, limit);
}

// One directory's listing, as the platform reader hands it over.
class Listing : public scan::EntrySink {
 public:
  Listing(ScanState& state, uint32_t dir, const MountTrie* trie) : state_(state), dir_(dir), trie_(trie) {}

  scan::Decision Decide(const char* name, size_t length) override {
    if (trie_ == nullptr) return scan::Decision::kStat;
    const MountTrie* mount = trie_->Child(name, length);
    if (mount == nullptr || !mount->is_mount) return scan::Decision::kStat;
    if (mount->stuck) return scan::Decision::kSkip;
    if (state_.options().one_file_system && mount->dev != 0 && mount->dev != state_.root_dev()) return scan::Decision::kSkip;
    return scan::Decision::kDefer;
  }

  void Set(const char* name, size_t length, scan::Decision decision) override {
    found_.children.push_back({std::string(name, length), found_.entries++, {}, decision, trie_->Child(name, length)});
  }

  void Entry(const char* name, size_t length, const scan::Facts* facts, int error, scan::WalkSyscall syscall) override {
    const uint32_t at = found_.entries++;
    if (++unreported_ == kReportEvery) Report();
    if (error != 0) {
      if (found_.errors.size() < state_.options().max_errors) found_.errors.push_back({dir_, std::string(name, length), error, syscall});
      ++found_.error_count;
      return;
    }
    if (facts->is_dir) {
      found_.children.push_back({std::string(name, length), at, *facts, scan::Decision::kStat, trie_ ? trie_->Child(name, length) : nullptr});
      return;
    }
    unreported_bytes_ += facts->allocated;
    const bool linked = facts->nlink > 1;
    if (linked) {
      // Counted once, where a depth-first walk in listing order meets it first: decided when summed.
      found_.links.push_back({facts->dev, facts->ino, dir_, at, facts->allocated, facts->apparent});
    } else {
      found_.own_allocated += facts->allocated;
      found_.own_apparent += facts->apparent;
      ++found_.own_files;
    }
    const ScanOptions& options = state_.options();
    if (options.keep_files || options.top_files > 0) {
      ScanFile file{std::string(name, length), dir_, at, facts->allocated, facts->apparent, linked ? facts->dev : 0, linked ? facts->ino : 0};
      if (options.keep_files) {
        found_.files.push_back(std::move(file));
      } else {
        KeepLargest(&found_.files, options.top_files, std::move(file));
      }
    }
  }

  bool Stopped() override { return state_.stopping(); }

  ScanState::Found&& Take() {
    Report();
    if (!state_.options().keep_files && state_.options().top_files > 0) PruneLargest(&found_.files, state_.options().top_files);
    return std::move(found_);
  }

 private:
  // Progress in batches: one atomic add a thousand entries, not one each.
  static constexpr uint32_t kReportEvery = 1024;
  void Report() {
    state_.CountSeen(unreported_, unreported_bytes_);
    unreported_ = 0;
    unreported_bytes_ = 0;
  }

  ScanState& state_;
  const uint32_t dir_;
  const MountTrie* const trie_;
  ScanState::Found found_;
  uint32_t unreported_ = 0;
  uint64_t unreported_bytes_ = 0;
};

}  // namespace

void ScanState::Work(uint32_t slot) {
  std::vector<char> scratch;  // the listing buffer, reused for every directory this thread lists
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    work_cv_.wait(lock, [this] { return stopped_ || done_ || !queue_.empty(); });
    if (stopped_ || done_) break;
    WorkItem item = std::move(queue_.back());
    queue_.pop_back();
    ++active_;
    Node& node = nodes_[item.node];
    node.flags |= kNodeStarted;
    busy_[slot] = {item.node, item.stat_first ? node.name : std::string(), 0, 0};
    lock.unlock();
    Visit(item, &scratch);
    item.parent.reset();
    lock.lock();
    busy_[slot] = {kNone, std::string(), 0, 0};
    --active_;
    if (active_ == 0 && queue_.empty() && !stopped_ && !done_) {
      done_ = true;
      work_cv_.notify_all();
      lock.unlock();
      if (on_done_) on_done_();
      lock.lock();
    }
  }
  if (--threads_alive_ == 0 && released_) FreeTree();
}

void ScanState::RecordError(uint32_t dir, std::string name, int error, uint32_t syscall) {
  ++error_count_;
  if (errors_.size() < options_.max_errors) errors_.push_back({dir, std::move(name), error, syscall});
}

bool ScanState::ClaimDirectory(uint32_t index, const scan::Facts& facts) {
  Node& node = nodes_[index];
  node.dev = facts.dev;
  node.ino = facts.ino;
  if (index == 0) root_dev_ = facts.dev;
  if (!facts.is_dir) {
    // The start, or a file bind-mounted on a mount point: one file.
    node.flags |= kNodeNotDirectory | kNodeListed;
    node.own_allocated = facts.allocated;
    node.own_apparent = facts.apparent;
    node.own_files = 1;
    return false;
  }
  if (options_.one_file_system && facts.dev != root_dev_) {
    node.flags |= kNodeOtherDevice | kNodeListed;
    return false;
  }
  const auto claimed = seen_dirs_.emplace(DevIno{facts.dev, facts.ino}, index);
  if (!claimed.second) {
    node.flags |= kNodeDuplicate | kNodeListed;
    duplicates_.push_back({index, claimed.first->second});
    return false;
  }
  node.own_allocated = facts.allocated;
  node.own_apparent = facts.apparent;
  return true;
}

void ScanState::Visit(const WorkItem& item, std::vector<char>* scratch) {
  const uint32_t index = item.node;
  Node& node = nodes_[index];  // its name and trie never change once queued
  if (item.stat_first) {
    scan::Facts facts;
    scan::WalkSyscall syscall = scan::kWalkStat;
    const int error = item.parent ? scan::StatChild(item.parent->dir, node.name.data(), node.name.size(), &facts, &syscall) : scan::StatPath(node.name.c_str(), &facts);
    std::lock_guard<std::mutex> lock(mutex_);
    if (error != 0) {
      if (index == 0) {
        RecordError(index, std::string(), error, syscall);
      } else {
        RecordError(node.parent, node.name, error, syscall);
      }
      node.flags |= kNodeListed | kNodeUnreadable;
      dirs_listed_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    CountSeen(1, facts.allocated);
    if (!ClaimDirectory(index, facts)) return;
  }
  scan::Dir dir;
  const int error = item.parent ? scan::OpenChild(item.parent->dir, node.name.data(), node.name.size(), &dir) : scan::OpenPath(node.name.c_str(), &dir);
  if (error != 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    RecordError(index, std::string(), error, scan::kWalkOpen);
    node.flags |= kNodeListed | kNodeUnreadable;
    dirs_listed_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  auto open = std::make_shared<OpenDir>();
  open->dir = dir;
  Listing listing(*this, index, node.trie);
  const int list_error = scan::List(open->dir, &listing, scratch);
  Publish(index, listing.Take(), open, list_error);
}

void ScanState::Publish(uint32_t index, Found&& found, const std::shared_ptr<OpenDir>& open, int list_error) {
  size_t queued = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Node& node = nodes_[index];
    node.entries = found.entries;
    node.own_allocated += found.own_allocated;
    node.own_apparent += found.own_apparent;
    node.own_files += found.own_files;
    node.files = std::move(found.files);
    hardlinks_.insert(hardlinks_.end(), found.links.begin(), found.links.end());
    error_count_ += found.error_count;
    for (ScanError& error : found.errors) {
      if (errors_.size() < options_.max_errors) errors_.push_back(std::move(error));
    }
    if (list_error != 0) {
      RecordError(index, std::string(), list_error, scan::kWalkRead);
      node.flags |= kNodeUnreadable;
    }
    node.first_child = static_cast<uint32_t>(nodes_.size());
    node.child_count = 0;
    for (Found::Child& child : found.children) {
      if (nodes_.full()) break;
      const uint32_t at = nodes_.Add();
      Node& created = nodes_[at];
      created.parent = index;
      created.entry_index = child.entry_index;
      created.name = std::move(child.name);
      created.trie = child.trie;
      ++node.child_count;
      switch (child.decision) {
        case scan::Decision::kSkip:
          created.flags = (child.trie != nullptr && child.trie->stuck ? kNodeSkipped : kNodeOtherDevice) | kNodeListed;
          break;
        case scan::Decision::kDefer:
          if (!stopped_) queue_.push_back({at, open, true}), ++queued;
          break;
        case scan::Decision::kStat:
          if (ClaimDirectory(at, child.facts) && !stopped_) queue_.push_back({at, open, false}), ++queued;
          break;
      }
    }
    // Stopped while listing: what was found counts, but the directory is not finished.
    if (!stopping()) node.flags |= kNodeListed;
    dirs_listed_.fetch_add(1, std::memory_order_relaxed);
  }
  if (queued == 1) {
    work_cv_.notify_one();
  } else if (queued > 1) {
    work_cv_.notify_all();
  }
}

namespace {

// Where an entry stands in a depth-first walk in listing order, du's order:
// compares entry `a_entry` of directory `a` with entry `b_entry` of `b`.
// A directory comes before what is inside it.
class WalkOrder {
 public:
  // Depths from the child ranges, not node order: once a duplicate has taken
  // over the contents of the node that was walked, a parent may come after
  // its children.
  explicit WalkOrder(const ScanSnapshot& tree) : tree_(tree), depth_(tree.parent.size(), 0) {
    if (tree.parent.empty()) return;
    std::vector<uint32_t> stack{0};
    while (!stack.empty()) {
      const uint32_t node = stack.back();
      stack.pop_back();
      for (uint32_t c = 0; c < tree.child_count[node]; ++c) {
        const uint32_t child = tree.first_child[node] + c;
        depth_[child] = depth_[node] + 1;
        stack.push_back(child);
      }
    }
  }

  bool Before(uint32_t a, uint32_t a_entry, uint32_t b, uint32_t b_entry) const {
    uint32_t a_up = 0;
    uint32_t b_up = 0;
    while (depth_[a] > depth_[b]) a_entry = tree_.entry_index[a], a = tree_.parent[a], ++a_up;
    while (depth_[b] > depth_[a]) b_entry = tree_.entry_index[b], b = tree_.parent[b], ++b_up;
    while (a != b) {
      a_entry = tree_.entry_index[a], a = tree_.parent[a], ++a_up;
      b_entry = tree_.entry_index[b], b = tree_.parent[b], ++b_up;
    }
    if (a_entry != b_entry) return a_entry < b_entry;
    return a_up < b_up;  // the same entry: the one nearer to it is the directory, and comes first
  }

  // Where node `n` itself stands: as entry entry_index[n] of its parent.
  bool NodeBefore(uint32_t a, uint32_t b) const {
    if (a == 0 || b == 0) return a == 0 && b != 0;
    return Before(tree_.parent[a], tree_.entry_index[a], tree_.parent[b], tree_.entry_index[b]);
  }

  bool IsAncestor(uint32_t ancestor, uint32_t node) const {
    while (depth_[node] > depth_[ancestor]) node = tree_.parent[node];
    return node == ancestor;
  }

 private:
  const ScanSnapshot& tree_;
  std::vector<uint32_t> depth_;
};

// A directory reached twice is counted where du's order meets it first: if a
// duplicate comes before the node that was walked, the walked contents move
// to it. Returns, per node, where its own records now belong.
std::vector<uint32_t> PlaceDuplicates(ScanSnapshot* tree, const std::vector<Duplicate>& duplicates, const WalkOrder& order) {
  const size_t count = tree->parent.size();
  std::vector<uint32_t> home(count);
  for (size_t i = 0; i < count; ++i) home[i] = static_cast<uint32_t>(i);
  std::unordered_map<uint32_t, uint32_t> first;  // walked node -> the node that comes first of its copies
  for (const Duplicate& duplicate : duplicates) {
    auto it = first.emplace(duplicate.claimer, duplicate.claimer).first;
    if (order.NodeBefore(duplicate.node, it->second) && !order.IsAncestor(duplicate.claimer, duplicate.node)) it->second = duplicate.node;
  }
  for (const auto& [walked, winner] : first) {
    if (walked == winner) continue;
    std::swap(tree->first_child[walked], tree->first_child[winner]);
    std::swap(tree->child_count[walked], tree->child_count[winner]);
    std::swap(tree->flags[walked], tree->flags[winner]);
    std::swap(tree->entries[walked], tree->entries[winner]);
    for (size_t k = 0; k < 3; ++k) std::swap(tree->sizes[walked * kSizesPerNode + k], tree->sizes[winner * kSizesPerNode + k]);
    for (uint32_t c = 0; c < tree->child_count[winner]; ++c) tree->parent[tree->first_child[winner] + c] = winner;
    home[walked] = winner;
  }
  return home;
}

// Each file with several links is counted once, in the directory du's order
// meets it in first; records of the others are dropped.
void PlaceHardlinks(ScanSnapshot* tree, std::vector<Hardlink> links, const std::vector<uint32_t>& home, const WalkOrder& order) {
  for (Hardlink& link : links) link.dir = home[link.dir];
  std::sort(links.begin(), links.end(), [](const Hardlink& a, const Hardlink& b) { return a.dev != b.dev ? a.dev < b.dev : a.ino < b.ino; });
  std::unordered_map<DevIno, std::pair<uint32_t, uint32_t>, DevInoHash> owners;
  for (size_t i = 0; i < links.size();) {
    size_t best = i;
    size_t end = i + 1;
    while (end < links.size() && links[end].dev == links[i].dev && links[end].ino == links[i].ino) {
      if (order.Before(links[end].dir, links[end].entry_index, links[best].dir, links[best].entry_index)) best = end;
      ++end;
    }
    const Hardlink& owner = links[best];
    uint64_t* own = &tree->sizes[owner.dir * kSizesPerNode];
    own[0] += owner.allocated;
    own[1] += owner.apparent;
    own[2] += 1;
    owners.emplace(DevIno{owner.dev, owner.ino}, std::make_pair(owner.dir, owner.entry_index));
    i = end;
  }
  std::vector<ScanFile> kept;
  kept.reserve(tree->files.size());
  for (ScanFile& file : tree->files) {
    file.dir = home[file.dir];
    if (file.ino != 0 || file.dev != 0) {
      const auto it = owners.find(DevIno{file.dev, file.ino});
      if (it == owners.end() || it->second != std::make_pair(file.dir, file.entry_index)) continue;
    }
    kept.push_back(std::move(file));
  }
  tree->files = std::move(kept);
}

// Subtree totals, in post-order from the start: a node's own sizes plus its
// children's totals.
void SumTotals(ScanSnapshot* tree) {
  if (tree->parent.empty()) return;
  std::vector<std::pair<uint32_t, bool>> stack{{0, false}};
  while (!stack.empty()) {
    auto [node, expanded] = stack.back();
    if (!expanded) {
      stack.back().second = true;
      for (uint32_t c = 0; c < tree->child_count[node]; ++c) stack.push_back({tree->first_child[node] + c, false});
      continue;
    }
    stack.pop_back();
    uint64_t* sizes = &tree->sizes[node * kSizesPerNode];
    const uint32_t flags = tree->flags[node];
    const bool counted = Counted(flags);
    sizes[3] = counted ? sizes[0] : 0;
    sizes[4] = counted ? sizes[1] : 0;
    sizes[5] = counted ? sizes[2] : 0;
    sizes[6] = counted && (flags & kNodeNotDirectory) == 0 ? 1 : 0;
    for (uint32_t c = 0; c < tree->child_count[node]; ++c) {
      const uint64_t* child = &tree->sizes[(tree->first_child[node] + c) * kSizesPerNode];
      for (size_t k = 3; k < 7; ++k) sizes[k] += child[k];
    }
  }
}

}  // namespace

ScanSnapshot ScanState::Snapshot(size_t max_unfinished) {
  ScanSnapshot tree;
  std::vector<Hardlink> links;
  std::vector<Duplicate> duplicates;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    tree.done = done_;
    tree.stopped = stopped_;
    const size_t count = nodes_.size();
    tree.parent.resize(count);
    tree.entry_index.resize(count);
    tree.first_child.resize(count);
    tree.child_count.resize(count);
    tree.flags.resize(count);
    tree.entries.resize(count);
    tree.sizes.assign(count * kSizesPerNode, 0);
    tree.name_end.resize(count);
    for (uint32_t i = 0; i < count; ++i) {
      const Node& node = nodes_[i];
      tree.parent[i] = node.parent == kNone ? 0 : node.parent;
      tree.entry_index[i] = node.entry_index;
      tree.first_child[i] = node.first_child;
      tree.child_count[i] = node.child_count;
      tree.flags[i] = node.flags;
      tree.entries[i] = node.entries;
      tree.sizes[i * kSizesPerNode] = node.own_allocated;
      tree.sizes[i * kSizesPerNode + 1] = node.own_apparent;
      tree.sizes[i * kSizesPerNode + 2] = node.own_files;
      tree.names += node.name;
      tree.name_end[i] = static_cast<uint32_t>(tree.names.size());
      tree.files.insert(tree.files.end(), node.files.begin(), node.files.end());
      if ((node.flags & kNodeListed) == 0) {
        ++tree.unfinished_count;
        if (tree.unfinished.size() < max_unfinished) tree.unfinished.push_back(i);
      }
    }
    links = hardlinks_;
    duplicates = duplicates_;
    tree.error_count = error_count_;
    tree.errors = errors_;
    for (const ScanError& busy : busy_) {
      if (busy.dir != kNone) tree.in_progress.push_back(busy);
    }
    tree.entries_seen = entries_seen_.load(std::memory_order_relaxed);
  }
  const std::vector<uint32_t> home = PlaceDuplicates(&tree, duplicates, WalkOrder(tree));
  PlaceHardlinks(&tree, std::move(links), home, WalkOrder(tree));
  for (ScanError& error : tree.errors) error.dir = home[error.dir];
  SumTotals(&tree);
  return tree;
}

std::shared_ptr<Scan> Scan::Start(ScanOptions options, std::function<void()> on_done) {
  auto state = std::make_shared<ScanState>(std::move(options), std::move(on_done));
  state->Start();
  return std::shared_ptr<Scan>(new Scan(std::move(state)));
}

Scan::~Scan() { state_->Stop(); }
void Scan::Stop() { state_->Stop(); }
void Scan::Release() { state_->Release(); }
bool Scan::Done() const { return state_->Done(); }
ScanSnapshot Scan::Snapshot(size_t max_unfinished) { return state_->Snapshot(max_unfinished); }
void Scan::Progress(uint64_t* entries, uint64_t* allocated, uint64_t* dirs) const { state_->Progress(entries, allocated, dirs); }
std::vector<uint32_t> Scan::Busy() { return state_->Busy(); }

}  // namespace diskprobe
