// The OS's own mount list, where JS cannot read one (macOS, Windows), and a
// cheap "did the mount table change?" signal (Linux). Plain C++.
#ifndef DISKPROBE_MOUNT_LIST_H_
#define DISKPROBE_MOUNT_LIST_H_

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
// Linux polls /proc/self/mountinfo, which the kernel flags on every mount and
// unmount (proc(5)): one syscall, no read. Elsewhere there is no such signal
// and it always answers true.
class MountTableWatch {
 public:
  MountTableWatch() = default;
  MountTableWatch(const MountTableWatch&) = delete;
  MountTableWatch& operator=(const MountTableWatch&) = delete;
  ~MountTableWatch();
  bool Changed();

 private:
  int fd_ = -1;
};

}  // namespace diskprobe

#endif  // DISKPROBE_MOUNT_LIST_H_
