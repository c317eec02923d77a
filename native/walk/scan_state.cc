// The walk's threads (scan_state.h): each takes a directory off the queue,
// lists it through the platform reader into a Listing, and publishes what it
// found, queueing the subdirectories.
#include "scan_state.h"

#include <errno.h>

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace diskprobe {

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

}  // namespace diskprobe
