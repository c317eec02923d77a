// The walk's tree as its threads build it: one Node per directory, kept in a
// NodeStore whose nodes never move. Snapshot() copies it out (snapshot.cc).
// Plain C++: no Node types.
#ifndef DISKPROBE_NODE_STORE_H_
#define DISKPROBE_NODE_STORE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mount_trie.h"
#include "scan.h"

namespace diskprobe {

constexpr uint32_t kNone = UINT32_MAX;

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

}  // namespace diskprobe

#endif  // DISKPROBE_NODE_STORE_H_
