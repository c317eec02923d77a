// The deleted files of one scan, each once: see held_set.h.
#include "held_set.h"

#include <algorithm>
#include <tuple>

namespace diskprobe {

namespace {

// sized_inodes_'s mark for an inode on two devices (btrfs subvolumes): maps,
// which gives the superblock's device, cannot say which one a mapping is of.
constexpr size_t kTwo = static_cast<size_t>(-1);

bool HolderBefore(const FileHolder& a, const FileHolder& b) { return std::tie(a.pid, a.fd) < std::tie(b.pid, b.fd); }

}  // namespace

// A process once, by its fd where it has one (a mapping alone says fd -1).
void HeldSet::AddHolder(DeletedFile& file, FileHolder holder) {
  for (FileHolder& held : file.holders) {
    if (held.pid != holder.pid) continue;
    if (holder.fd == -1 || held.fd == holder.fd) return;
    if (held.fd == -1) {
      held.fd = holder.fd;
      return;
    }
  }
  file.holders.push_back(std::move(holder));
}

void HeldSet::AddHolders(size_t index, std::vector<FileHolder>&& holders) {
  for (FileHolder& holder : holders) AddHolder(files_[index], std::move(holder));
}

void HeldSet::Add(DeletedFile file) {
  if (!file.sized) {
    auto sized = sized_inodes_.find(file.inode);
    if (sized != sized_inodes_.end() && sized->second != kTwo) return AddHolders(sized->second, std::move(file.holders));
    auto unsized = unsized_.find(file.inode);
    if (unsized != unsized_.end()) return AddHolders(unsized->second, std::move(file.holders));
    unsized_.emplace(file.inode, files_.size());
    files_.push_back(std::move(file));
    return;
  }
  auto key = std::make_pair(file.device, file.inode);
  auto found = by_key_.find(key);
  if (found != by_key_.end()) return AddHolders(found->second, std::move(file.holders));
  size_t index = files_.size();
  auto unsized = unsized_.find(file.inode);
  if (unsized != unsized_.end()) {
    // First met as a mapping that could not be sized: now it is.
    index = unsized->second;
    unsized_.erase(unsized);
    DeletedFile& known = files_[index];
    known.sized = true;
    known.device = file.device;
    known.allocated = file.allocated;
    known.size = file.size;
    AddHolders(index, std::move(file.holders));
  } else {
    files_.push_back(std::move(file));
  }
  by_key_.emplace(key, index);
  auto [inode, added] = sized_inodes_.emplace(key.second, index);
  if (!added) inode->second = kTwo;
}

void HeldSet::Merge(HeldSet&& other) {
  for (DeletedFile& file : other.files_)
    if (file.sized) Add(std::move(file));
  for (DeletedFile& file : other.files_)
    if (!file.sized) Add(std::move(file));
  other = HeldSet();
}

std::vector<DeletedFile> HeldSet::Take() {
  for (DeletedFile& file : files_) std::sort(file.holders.begin(), file.holders.end(), HolderBefore);
  std::stable_sort(files_.begin(), files_.end(), [](const DeletedFile& a, const DeletedFile& b) { return HolderBefore(a.holders.front(), b.holders.front()); });
  std::vector<DeletedFile> files = std::move(files_);
  *this = HeldSet();
  return files;
}

}  // namespace diskprobe
