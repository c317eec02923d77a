#include "mount_list.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#if defined(__APPLE__)
#include <sys/mount.h>
#include <sys/param.h>
#include <sys/ucred.h>
#endif

namespace diskprobe {

int ListMounts(std::vector<MountEntry>* out) {
#if defined(__APPLE__)
  struct statfs* mounts = nullptr;
  // MNT_NOWAIT: the kernel's cached counts, so a dead network mount does not block.
  int count = getmntinfo(&mounts, MNT_NOWAIT);
  if (count <= 0) return errno;
  out->reserve(count);
  for (int i = 0; i < count; ++i) {
    MountEntry entry;
    entry.mount_point = mounts[i].f_mntonname;
    entry.device = mounts[i].f_mntfromname;
    entry.fs_type = mounts[i].f_fstypename;
    entry.read_only = (mounts[i].f_flags & MNT_RDONLY) != 0;
    entry.remote = (mounts[i].f_flags & MNT_LOCAL) == 0;
    out->push_back(std::move(entry));
  }
  return 0;
#else
  (void)out;
  return ENOSYS;
#endif
}

MountTableWatch::~MountTableWatch() {
  if (fd_ >= 0) close(fd_);
}

bool MountTableWatch::Changed() {
#if defined(__linux__)
  if (fd_ < 0) {
    fd_ = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
    return true;  // nothing seen yet; if open failed, always re-read
  }
  struct pollfd p = {fd_, POLLPRI, 0};
  // The kernel reports POLLPRI|POLLERR once per change and clears it for this
  // file description as it answers, so no read is needed to re-arm it.
  return poll(&p, 1, 0) != 0;
#else
  return true;
#endif
}

}  // namespace diskprobe
