// The walk's mount trie, built from ScanOptions::mounts (mount_trie.h).
#include "mount_trie.h"

namespace diskprobe {

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

}  // namespace diskprobe
