// Threads the addon owns for asynchronous and time-limited probes. Plain C++.
//
// Why not libuv's pool: a probe of a dead network mount never returns, four of
// them starve libuv's four threads (and with them every fs call in Node), and
// libuv joins its threads at exit, so one stuck thread keeps the process alive.
// These threads are detached and never joined.
//
// Jobs run in lanes: one lane per mount (JS picks the lane id), at most one
// thread per lane. A dead mount therefore holds at most one thread, however
// many probes of it are queued, and healthy lanes never wait behind it.
#ifndef DISKPROBE_PROBE_POOL_H_
#define DISKPROBE_PROBE_POOL_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "disk_usage.h"

namespace diskprobe {

struct ProbeJob {
  uint32_t id = 0;
  uint32_t lane = 0;
  std::string path;
  bool with_device = true;
  DiskStats stats;
  int error = 0;  // 0, a POSIX errno, or ECANCELED when abandoned before it ran
  Syscall syscall = kSyscallNone;

  // Set for a path the inline probe could not place (not in the kernel's
  // cache yet) on a mount whose own statfs cannot block: before probing, the
  // thread checks whether the path may lead off that mount (LeadsOffMount),
  // and if so moves the job to `off_lane`. A symlink into a dead mount then
  // waits there, not in its mount's lane, which goes on serving the mount's
  // paths.
  std::string mount_point;  // empty: no check
  uint64_t mount_id = 0;
  uint32_t off_lane = 0;

  // Guarded by the pool's mutex.
  bool moved = false;        // moved to off_lane: it leads off its mount
  bool started = false;
  bool done = false;
  bool abandoned = false;    // nobody wants the answer: skip it if not yet started
  bool sync_waiter = false;  // a caller blocks in RunWithTimeout for it
};

class ProbePool : public std::enable_shared_from_this<ProbePool> {
 public:
  // Receives every finished job that no synchronous caller is waiting for, on
  // a pool thread, and takes ownership of it. Never called after Shutdown().
  using Deliver = std::function<void(ProbeJob*)>;

  static std::shared_ptr<ProbePool> Create(Deliver deliver);

  // Queues `job` (the pool owns it from now on) in its lane.
  void Submit(ProbeJob* job);

  // Queues several jobs under one lock, waking threads once: callers that
  // produce probes slower than a thread answers them would otherwise pay a
  // wake-up (a futex syscall and a context switch) for every one.
  void SubmitAll(ProbeJob* const* jobs, size_t count);

  // Runs `job` in its lane and waits at most `timeout_ms`. Returns true when
  // it finished in time (the caller keeps `job`); false when it did not (the
  // pool keeps it and delivers it once it finishes).
  bool RunWithTimeout(ProbeJob* job, uint32_t timeout_ms);

  // Marks a queued or running job as unwanted. A queued one is skipped; a
  // running one is delivered when its call returns, so JS learns the mount
  // answered again.
  void Abandon(uint32_t id);

  // Whether job `id` is still queued or running.
  bool Pending(uint32_t id);

  // Whether job `id` is still queued or running, and was found to lead off
  // its mount (see ProbeJob::off_lane).
  bool PendingOffMount(uint32_t id);

  // Stops deliveries; idle threads exit, busy ones exit when their call returns.
  void Shutdown();

 private:
  struct Lane {
    std::deque<ProbeJob*> queue;
    bool active = false;  // a thread is draining it
  };

  explicit ProbePool(Deliver deliver) : deliver_(std::move(deliver)) {}
  // With mutex_ held. Returns whether an idle thread must be woken, which
  // the caller does after unlocking, so the thread does not wake into a
  // held lock.
  bool Enqueue(ProbeJob* job);
  void WorkerLoop();
  void Finish(ProbeJob* job, std::unique_lock<std::mutex>& lock);
  // With mutex_ released: whether `job` must move to its off-mount lane.
  static bool LeadsOff(const ProbeJob& job);

  Deliver deliver_;
  std::mutex mutex_;
  std::condition_variable work_cv_;  // a lane became ready, or shutdown
  std::condition_variable done_cv_;  // a job with a synchronous waiter finished
  std::unordered_map<uint32_t, Lane> lanes_;
  std::deque<uint32_t> ready_;  // lanes with queued jobs and no thread
  std::unordered_map<uint32_t, ProbeJob*> jobs_;  // queued or running
  uint32_t idle_threads_ = 0;
  uint32_t threads_ = 0;
  bool closing_ = false;
};

}  // namespace diskprobe

#endif  // DISKPROBE_PROBE_POOL_H_
