// A snapshot of the walk: its tree copied out under the mutex, then, outside
// it, duplicates and hard links placed (dedupe.cc) and the totals summed.
#include "scan_state.h"

#include <utility>
#include <vector>

#include "dedupe.h"

namespace diskprobe {

namespace {

bool Counted(uint32_t flags) { return (flags & (kNodeSkipped | kNodeOtherDevice | kNodeDuplicate)) == 0; }

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

}  // namespace diskprobe
