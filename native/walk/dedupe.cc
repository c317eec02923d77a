// Directories reached twice and files with several links, each placed where
// du's order meets it first (dedupe.h).
#include "dedupe.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

namespace diskprobe {

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

}  // namespace diskprobe
