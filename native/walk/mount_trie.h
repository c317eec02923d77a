// The walk's mount trie, built once from ScanOptions::mounts; each listing
// asks it which of its names are mount points (scan_state.cc, Listing::Decide).
// Plain C++: no Node types.
#ifndef DISKPROBE_MOUNT_TRIE_H_
#define DISKPROBE_MOUNT_TRIE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "scan.h"

namespace diskprobe {

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
std::unique_ptr<MountTrie> BuildTrie(const std::string& root, const std::vector<ScanMount>& mounts);

}  // namespace diskprobe

#endif  // DISKPROBE_MOUNT_TRIE_H_
