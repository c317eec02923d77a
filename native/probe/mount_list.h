// The OS's own mount list, where JS cannot read one (macOS, Windows), and a
// cheap "did the mount table change?" signal (Linux). Plain C++.
#ifndef DISKPROBE_MOUNT_LIST_H_
#define DISKPROBE_MOUNT_LIST_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace diskprobe {

struct MountEntry {
  std::string mount_point;
  std::string device;
  std::string fs_type;
  bool read_only = false;
  bool remote = false;
};

// Fills `out` with every mount. Returns 0, or an errno; ENOSYS on Linux,
// where JS reads /proc/self/mountinfo itself (it is richer than getmntent).
int ListMounts(std::vector<MountEntry>* out);

// Tells whether the mount table may have changed since the previous call.
// On Linux a thread of its own waits in poll() on /proc/self/mountinfo,
// which the kernel flags on every mount and unmount (proc(5)), and bumps a
// counter: asking costs an atomic load, not a syscall on every probe.
// Elsewhere there is no such signal and it always answers true.
class MountTableWatch {
 public:
  MountTableWatch() = default;
  MountTableWatch(const MountTableWatch&) = delete;
  MountTableWatch& operator=(const MountTableWatch&) = delete;
  ~MountTableWatch();
  bool Changed();
  // A number that changes whenever the table does (each call, where no
  // signal is to be had). Cheap enough to report with every probe.
  uint64_t Generation();

 private:
  bool Start();
  struct State;
  std::shared_ptr<State> state_;  // shared with the watching thread
  uint64_t seen_ = 0;
};

}  // namespace diskprobe

#endif  // DISKPROBE_MOUNT_LIST_H_
