#include "mount_list.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <system_error>
#include <thread>

#if defined(__linux__)
#include <sys/eventfd.h>
#endif

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

#if defined(__linux__)

struct MountTableWatch::State {
  std::atomic<uint64_t> generation{1};
  std::atomic<bool> stop{false};
  int mountinfo = -1;
  int wake = -1;  // eventfd: ends the watch when the environment goes away
  ~State() {
    if (mountinfo >= 0) close(mountinfo);
    if (wake >= 0) close(wake);
  }
};

MountTableWatch::~MountTableWatch() {
  if (state_) {
    state_->stop = true;
    uint64_t one = 1;
    if (write(state_->wake, &one, sizeof one) < 0) {
      // The thread is gone already, or will see `stop` on the next change.
    }
  }
}

bool MountTableWatch::Start() {
  if (state_) return true;
  {
    auto state = std::make_shared<State>();
    state->mountinfo = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
    state->wake = eventfd(0, EFD_CLOEXEC);
    if (state->mountinfo < 0 || state->wake < 0) return false;
    try {
      std::thread([state] {
        struct pollfd fds[2] = {{state->mountinfo, POLLPRI, 0}, {state->wake, POLLIN, 0}};
        while (!state->stop) {
          // POLLPRI|POLLERR once per change; answering clears it for this
          // file description, so no read is needed to re-arm it.
          int n = poll(fds, 2, -1);
          if (n < 0 && errno != EINTR) return;
          if (n > 0 && (fds[0].revents & (POLLPRI | POLLERR))) ++state->generation;
          if (fds[1].revents) return;
        }
      }).detach();
    } catch (const std::system_error&) {
      return false;
    }
    state_ = state;
  }
  return true;
}

uint64_t MountTableWatch::Generation() {
  static std::atomic<uint64_t> unwatched{1ull << 40};
  if (!Start()) return ++unwatched;  // no signal: never the same twice
  return state_->generation.load(std::memory_order_acquire);
}

bool MountTableWatch::Changed() {
  if (!Start()) return true;  // no signal: always re-read
  uint64_t now = state_->generation.load(std::memory_order_acquire);
  if (now == seen_) return false;
  seen_ = now;
  return true;
}

#else

struct MountTableWatch::State {};
MountTableWatch::~MountTableWatch() {}
bool MountTableWatch::Start() { return false; }
bool MountTableWatch::Changed() { return true; }
uint64_t MountTableWatch::Generation() {
  static std::atomic<uint64_t> unwatched{1};
  return ++unwatched;
}

#endif

}  // namespace diskprobe
