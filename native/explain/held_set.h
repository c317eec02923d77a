// The deleted files one scan of /proc has found, each inode once however
// many processes (or scan threads) met it. Plain C++, no Node types.
#ifndef DISKPROBE_HELD_SET_H_
#define DISKPROBE_HELD_SET_H_

#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "open_files.h"

namespace diskprobe {

class HeldSet {
 public:
  // One file met, with its holders: sized (stat'ed, keyed by st_dev and
  // st_ino) or not (a mapping whose map_files link was not readable, known
  // by the inode maps gives). Unsized and sized meetings of one inode are
  // one file, whichever comes first.
  void Add(DeletedFile file);

  // Everything in `other` (another thread's set), sized files first, so
  // that its unsized ones find them.
  void Merge(HeldSet&& other);

  // The files, each one's holders by pid and fd, in the order of their first holder.
  std::vector<DeletedFile> Take();

 private:
  static void AddHolder(DeletedFile& file, FileHolder holder);
  void AddHolders(size_t index, std::vector<FileHolder>&& holders);

  std::vector<DeletedFile> files_;
  std::map<std::pair<uint64_t, uint64_t>, size_t> by_key_;  // sized, by (st_dev, st_ino)
  std::unordered_map<uint64_t, size_t> sized_inodes_;       // sized, by st_ino alone; kTwo when two devices share it
  std::unordered_map<uint64_t, size_t> unsized_;            // unsized, by the inode maps gives
};

}  // namespace diskprobe

#endif  // DISKPROBE_HELD_SET_H_
