// Each inode once, as du counts it: the records the walk keeps of files with
// several links and of directories reached twice, and where du's order (a
// depth-first walk in listing order) meets each first, decided when a
// snapshot is summed (snapshot.cc). Plain C++: no Node types.
#ifndef DISKPROBE_DEDUPE_H_
#define DISKPROBE_DEDUPE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "scan.h"

namespace diskprobe {

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
std::vector<uint32_t> PlaceDuplicates(ScanSnapshot* tree, const std::vector<Duplicate>& duplicates, const WalkOrder& order);

// Each file with several links is counted once, in the directory du's order
// meets it in first; records of the others are dropped.
void PlaceHardlinks(ScanSnapshot* tree, std::vector<Hardlink> links, const std::vector<uint32_t>& home, const WalkOrder& order);

}  // namespace diskprobe

#endif  // DISKPROBE_DEDUPE_H_
