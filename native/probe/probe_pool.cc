#include "probe_pool.h"

#include <errno.h>

#include <chrono>
#include <system_error>
#include <thread>

namespace diskprobe {

namespace {
// Idle threads beyond the first linger this long before exiting, so bursts
// reuse them and a quiet process keeps a single parked thread.
constexpr auto kIdleExit = std::chrono::seconds(10);
constexpr size_t kMaxIdleLanes = 256;
}  // namespace

std::shared_ptr<ProbePool> ProbePool::Create(Deliver deliver) {
  return std::shared_ptr<ProbePool>(new ProbePool(std::move(deliver)));
}

bool ProbePool::Enqueue(ProbeJob* job) {
  jobs_[job->id] = job;
  Lane& lane = lanes_[job->lane];
  lane.queue.push_back(job);
  if (lane.active || lane.queue.size() > 1) return false;  // already served or already ready
  ready_.push_back(job->lane);
  if (idle_threads_ > ready_.size() - 1) return true;
  ++threads_;
  try {
    // Detached: a thread stuck in the kernel must never be joined, or it would
    // keep the process from exiting. It holds the pool alive by itself.
    std::thread([self = shared_from_this()] { self->WorkerLoop(); }).detach();
  } catch (const std::system_error&) {
    // Out of threads: the lane stays ready for the next thread that frees up.
    --threads_;
  }
  return false;
}

void ProbePool::Submit(ProbeJob* job) {
  bool wake;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closing_) {
      delete job;
      return;
    }
    wake = Enqueue(job);
  }
  if (wake) work_cv_.notify_one();
}

void ProbePool::SubmitAll(ProbeJob* const* jobs, size_t count) {
  size_t wake = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = 0; i < count; ++i) {
      if (closing_) {
        delete jobs[i];
      } else if (Enqueue(jobs[i])) {
        ++wake;
      }
    }
  }
  for (size_t i = 0; i < wake; ++i) work_cv_.notify_one();
}

bool ProbePool::RunWithTimeout(ProbeJob* job, uint32_t timeout_ms) {
  std::unique_lock<std::mutex> lock(mutex_);
  job->sync_waiter = true;
  if (Enqueue(job)) work_cv_.notify_one();  // under the lock: the wait below releases it at once
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  if (done_cv_.wait_until(lock, deadline, [job] { return job->done; })) return true;
  job->sync_waiter = false;  // from now on the pool owns and delivers it
  return false;
}

void ProbePool::Abandon(uint32_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = jobs_.find(id);
  if (it != jobs_.end()) it->second->abandoned = true;
}

bool ProbePool::Pending(uint32_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  return jobs_.count(id) != 0;
}

bool ProbePool::PendingOffMount(uint32_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = jobs_.find(id);
  return it != jobs_.end() && it->second->moved;
}

bool ProbePool::LeadsOff(const ProbeJob& job) {
  if (job.mount_point.empty() || job.lane == job.off_lane) return false;
  // JS sends only paths below the mount point; anything else is not checked.
  const std::string& mount = job.mount_point;
  const std::string& path = job.path;
  const size_t skip = mount == "/" ? 1 : mount.size() + 1;
  if (path.size() <= skip || path.compare(0, mount.size(), mount) != 0 || path[skip - 1] != '/') return false;
  return LeadsOffMount(mount.c_str(), job.mount_id, path.c_str() + skip);
}

void ProbePool::Shutdown() {
  std::lock_guard<std::mutex> lock(mutex_);
  closing_ = true;
  // Jobs queued in a lane no thread serves would never be freed (found by
  // valgrind, a worker ending with probes queued): free them here. A lane
  // with a thread is emptied by that thread; a running job is freed when its
  // call returns; a synchronous caller still owns its job.
  for (auto& entry : lanes_) {
    Lane& lane = entry.second;
    if (lane.active) continue;
    for (ProbeJob* queued : lane.queue) {
      jobs_.erase(queued->id);
      if (!queued->sync_waiter) delete queued;
    }
    lane.queue.clear();
  }
  ready_.clear();
  work_cv_.notify_all();
}

void ProbePool::Finish(ProbeJob* job, std::unique_lock<std::mutex>& lock) {
  job->done = true;
  jobs_.erase(job->id);
  if (job->sync_waiter) {
    done_cv_.notify_all();  // the waiter owns the job
  } else if (closing_) {
    delete job;
  } else {
    // Under the lock, so Shutdown() cannot release what deliver_ uses
    // between the check above and the call.
    deliver_(job);
  }
  (void)lock;
}

void ProbePool::WorkerLoop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    while (ready_.empty() && !closing_) {
      ++idle_threads_;
      bool woke = work_cv_.wait_for(lock, kIdleExit, [this] { return !ready_.empty() || closing_; });
      --idle_threads_;
      if (!woke && threads_ > 1) {
        --threads_;
        return;
      }
    }
    if (closing_) {
      --threads_;
      return;
    }
    uint32_t lane_id = ready_.front();
    ready_.pop_front();
    lanes_[lane_id].active = true;
    for (;;) {
      Lane& lane = lanes_[lane_id];  // rehashing may move it: look up each time
      if (closing_) {
        for (ProbeJob* queued : lane.queue) delete queued;
        lane.queue.clear();
      }
      if (lane.queue.empty()) break;
      ProbeJob* job = lane.queue.front();
      lane.queue.pop_front();
      if (job->abandoned) {
        job->error = ECANCELED;
        Finish(job, lock);
        continue;
      }
      job->started = true;
      lock.unlock();
      if (LeadsOff(*job)) {
        lock.lock();
        if (job->abandoned || closing_) {
          // Given up on during the check (its time ran out), or the pool is
          // closing: not worth a probe that may never return.
          job->error = ECANCELED;
          Finish(job, lock);
          continue;
        }
        // Its probe belongs to wherever it leads: on to its own lane, and
        // this lane goes on with the mount's other jobs.
        job->started = false;
        job->moved = true;
        job->lane = job->off_lane;
        if (Enqueue(job)) work_cv_.notify_one();
        continue;
      }
      job->error = ProbePath(job->path.c_str(), job->with_device, &job->stats, &job->syscall);
      lock.lock();
      Finish(job, lock);
    }
    // The lane stays, idle: there is one per mount probed, and re-creating
    // it for every probe of a mount would cost an allocation each. Lanes of
    // paths that lead off their mount can be many: past a few hundred lanes,
    // a drained one goes.
    if (lanes_.size() > kMaxIdleLanes) {
      lanes_.erase(lane_id);
    } else {
      lanes_[lane_id].active = false;
    }
  }
}

}  // namespace diskprobe
