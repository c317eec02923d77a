// The directory walk's handle (scan.h), on a ScanState that holds the rest.
// The portable half of the walk, by part:
//   scan_state.h, scan_state.cc  the threads, their queue of directories, and Listing, the sink of each listing
//   mount_trie.h, mount_trie.cc  the mount points below the start, by path component
//   node_store.h                 one node per directory, at addresses that never move
//   dedupe.h, dedupe.cc          each inode once, where du's order meets it first
//   snapshot.cc                  the tree copied out, deduplicated and summed
// The platform half, opening and listing directories, is scan_platform.h's.
#include "scan.h"

#include <memory>
#include <utility>

#include "scan_state.h"

namespace diskprobe {

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
