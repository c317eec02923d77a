// The addon's glue to the probe: the slots, the synchronous probes, and the
// asynchronous ones, answered through the callback JS sets.
//
// As in addon.cc: a failed rethrow while a worker is terminated is swallowed,
// not std::terminate().
#define NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS
#include "addon.h"

#include <errno.h>
#include <string.h>

#include <memory>
#include <vector>

namespace diskprobe {

namespace {

constexpr int kTimedOut = -1;

}  // namespace

void Addon::WriteSlots(const DiskStats& stats, int error, Syscall syscall) {
  u64_[kSlotSyscall] = syscall;
  f64_[kSlotSyscall] = syscall;
  if (error != 0) return;
  // Read after the probe: a table change before it shows up here.
  f64_[kSlotMountGeneration] = static_cast<double>(watch_.Generation());
  const uint64_t values[] = {stats.block_size, stats.total_bytes, stats.free_bytes,
                             stats.avail_bytes, stats.files, stats.files_free,
                             stats.files_avail, stats.device_major, stats.device_minor,
                             stats.flags, syscall, stats.fsid >> 32, stats.fsid & 0xffffffffu};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; ++i) {
    u64_[i] = values[i];
    f64_[i] = static_cast<double>(values[i]);
  }
}

// Copies a JS string into `buffer` as UTF-8. Returns 0, ENAMETOOLONG, or -1
// after throwing a TypeError (JS validates first; this guards misuse).
int Addon::ReadPath(const Napi::CallbackInfo& info, char* buffer) {
  napi_value value = info[0];
  size_t length = 0;
  napi_status status = napi_get_value_string_utf8(info.Env(), value, buffer, kPathBuffer, &length);
  if (status != napi_ok) {
    Napi::TypeError::New(info.Env(), "path must be a string").ThrowAsJavaScriptException();
    return -1;
  }
  return length > kMaxPathBytes ? ENAMETOOLONG : 0;
}

// (path, withDevice) -> 0 | errno.
Napi::Value Addon::StatSync(const Napi::CallbackInfo& info) {
  int error = ReadPath(info, path_);
  if (error < 0) return info.Env().Undefined();
  Syscall syscall = kSyscallStatvfs;
  if (error == 0) error = ProbePath(path_, info[1].ToBoolean().Value(), &sync_stats_, &syscall);
  WriteSlots(sync_stats_, error, syscall);
  return Napi::Number::New(info.Env(), error);
}

// (mountPoint, mountId, relative) -> 0 | errno | kCannotProbeInline | kLeavesMount: a probe on this
// thread that cannot block (see ProbeBeneath). An open file keeps its mount busy, so
// that umount fails with EBUSY: only the root of "/", which the process's own root
// directory pins anyway, stays open (until the mount table changes); any other
// mount's root is opened for the call and closed after it.
Napi::Value Addon::StatBeneath(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const uint64_t generation = watch_.Generation();
  if (generation != root_generation_) {
    CloseMountRoot(root_fd_);
    root_fd_ = -1;
    root_generation_ = generation;
  }
  if (ReadPath(info, path_) != 0) return Napi::Number::New(env, kCannotProbeInline);
  const uint64_t mount_id = static_cast<uint64_t>(info[1].As<Napi::Number>().DoubleValue());
  const bool is_root = strcmp(path_, "/") == 0;
  int root_fd = is_root && root_mount_id_ == mount_id ? root_fd_ : -1;
  if (root_fd < 0) {
    root_fd = OpenMountRoot(path_, mount_id);
    if (root_fd < 0) return Napi::Number::New(env, kCannotProbeInline);  // tried again next time: the cache may warm
    if (is_root) {
      CloseMountRoot(root_fd_);
      root_fd_ = root_fd;
      root_mount_id_ = mount_id;
    }
  }
  size_t length = 0;
  int error = kCannotProbeInline;
  if (napi_get_value_string_utf8(env, info[2], path_, kPathBuffer, &length) == napi_ok && length <= kMaxPathBytes) {
    Syscall syscall = kSyscallStatvfs;
    error = ProbeBeneath(root_fd, path_, &sync_stats_, &syscall);
    if (error >= 0) WriteSlots(sync_stats_, error, syscall);
  }
  if (root_fd != root_fd_) CloseMountRoot(root_fd);
  return Napi::Number::New(env, error);
}

// (path, lane, id, timeoutMs, withDevice, [mountPoint, mountId, offLane]) -> 0 | errno | -1
// (timed out; the job goes on and is delivered to the callback when its call returns).
// With the last three, the thread first checks whether the path leads off that mount
// (see ProbeJob::off_lane).
Napi::Value Addon::StatSyncTimeout(const Napi::CallbackInfo& info) {
  int error = ReadPath(info, path_);
  if (error < 0) return info.Env().Undefined();
  if (error != 0) {
    WriteSlots(sync_stats_, error, kSyscallStatvfs);
    return Napi::Number::New(info.Env(), error);
  }
  std::unique_ptr<ProbeJob> job = NewJob(info, 4);
  uint32_t timeout_ms = info[3].As<Napi::Number>().Uint32Value();
  if (!pool_->RunWithTimeout(job.get(), timeout_ms)) {
    job.release();  // the pool owns it now
    return Napi::Number::New(info.Env(), kTimedOut);
  }
  memcpy(&sync_stats_, &job->stats, sizeof sync_stats_);
  WriteSlots(sync_stats_, job->error, job->syscall);
  return Napi::Number::New(info.Env(), job->error);
}

// (path, lane, id, withDevice, [mountPoint, mountId, offLane]): the answer comes to the
// callback as (id, status, names?). The last three as for statSyncTimeout.
Napi::Value Addon::StatAsync(const Napi::CallbackInfo& info) {
  int error = ReadPath(info, path_);
  if (error < 0) return info.Env().Undefined();
  ProbeJob* job = NewJob(info, 3).release();
  if (error != 0) {  // too long to probe: answer the same way, still asynchronously
    job->error = error;
    job->syscall = kSyscallStatvfs;
    if (!has_callback_ || callback_.NonBlockingCall(job) != napi_ok) delete job;
    return info.Env().Undefined();
  }
  pool_->Submit(job);
  return info.Env().Undefined();
}

// (paths[], lanes[], ids[], withDevice[]): statAsync for several probes,
// queued together with one wake-up. Answers come one by one, as for statAsync.
Napi::Value Addon::StatAsyncBatch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Array paths = info[0].As<Napi::Array>();
  Napi::Array lanes = info[1].As<Napi::Array>();
  Napi::Array ids = info[2].As<Napi::Array>();
  Napi::Array devices = info[3].As<Napi::Array>();
  const uint32_t count = paths.Length();
  // Every job is owned here until it is queued or answered: reading a lane
  // or an id can throw, and must not leak the jobs built before it.
  std::vector<std::unique_ptr<ProbeJob>> jobs;
  std::vector<std::unique_ptr<ProbeJob>> overlong;
  jobs.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    Napi::Value path = paths.Get(i);
    size_t length = 0;
    if (napi_get_value_string_utf8(env, path, path_, kPathBuffer, &length) != napi_ok) {
      Napi::TypeError::New(env, "paths must be strings").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    auto job = std::make_unique<ProbeJob>();
    job->path = path_;
    job->lane = lanes.Get(i).As<Napi::Number>().Uint32Value();
    job->id = ids.Get(i).As<Napi::Number>().Uint32Value();
    job->with_device = devices.Get(i).ToBoolean().Value();
    if (length > kMaxPathBytes) {  // too long to probe: answer the same way, still asynchronously
      job->error = ENAMETOOLONG;
      job->syscall = kSyscallStatvfs;
      overlong.push_back(std::move(job));
      continue;
    }
    jobs.push_back(std::move(job));
  }
  batch_.clear();
  for (auto& job : jobs) batch_.push_back(job.release());
  pool_->SubmitAll(batch_.data(), batch_.size());
  batch_.clear();
  for (auto& job : overlong) {
    ProbeJob* answer = job.release();
    if (!has_callback_ || callback_.NonBlockingCall(answer) != napi_ok) delete answer;
  }
  return env.Undefined();
}

// A job for path_ from (path, lane, id, ...): withDevice at `device_arg`, then the
// optional mountPoint, mountId and offLane.
std::unique_ptr<ProbeJob> Addon::NewJob(const Napi::CallbackInfo& info, size_t device_arg) {
  auto job = std::make_unique<ProbeJob>();
  job->path = path_;
  job->lane = info[1].As<Napi::Number>().Uint32Value();
  job->id = info[2].As<Napi::Number>().Uint32Value();
  job->with_device = info[device_arg].ToBoolean().Value();
  if (info.Length() > device_arg + 3 && info[device_arg + 1].IsString()) {
    job->mount_point = info[device_arg + 1].As<Napi::String>().Utf8Value();
    job->mount_id = static_cast<uint64_t>(info[device_arg + 2].As<Napi::Number>().DoubleValue());
    job->off_lane = info[device_arg + 3].As<Napi::Number>().Uint32Value();
  }
  return job;
}

Napi::Value Addon::Abandon(const Napi::CallbackInfo& info) {
  pool_->Abandon(info[0].As<Napi::Number>().Uint32Value());
  return info.Env().Undefined();
}

Napi::Value Addon::Pending(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), pool_->Pending(info[0].As<Napi::Number>().Uint32Value()));
}

Napi::Value Addon::PendingOffMount(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), pool_->PendingOffMount(info[0].As<Napi::Number>().Uint32Value()));
}

// The mount point and file system name of the last synchronous probe, where
// the OS names them (macOS, Windows); undefined elsewhere.
Napi::Value Addon::Names(const Napi::CallbackInfo& info) {
  return NamesOf(info.Env(), sync_stats_);
}

Napi::Value Addon::SetCallback(const Napi::CallbackInfo& info) {
  if (has_callback_) callback_.Release();
  callback_ = Callback::New(info.Env(), info[0].As<Napi::Function>(), "diskprobe", 0, 1, this);
  callback_.Unref(info.Env());  // JS refs it while it waits for an answer
  has_callback_ = true;
  return info.Env().Undefined();
}

Napi::Value Addon::Ref(const Napi::CallbackInfo& info) {
  if (has_callback_) callback_.Ref(info.Env());
  return info.Env().Undefined();
}

Napi::Value Addon::Unref(const Napi::CallbackInfo& info) {
  if (has_callback_) callback_.Unref(info.Env());
  return info.Env().Undefined();
}

Napi::Value Addon::NamesOf(Napi::Env env, const DiskStats& stats) {
  if (!(stats.flags & kHasNames)) return env.Undefined();
  Napi::Array names = Napi::Array::New(env, 2);
  names.Set(0u, Napi::String::New(env, stats.mount_point));
  names.Set(1u, Napi::String::New(env, stats.fs_type));
  return names;
}

// On the JS thread: publish one finished job through the slots, then call
// back (id, status, names?). status is 0 or an errno.
void DeliverToJs(Napi::Env env, Napi::Function callback, Addon* addon, ProbeJob* job) {
  std::unique_ptr<ProbeJob> owned(job);
  if (env == nullptr || callback.IsEmpty()) return;  // the environment is going away
  try {
    addon->WriteSlots(job->stats, job->error, job->syscall);
    Napi::Value names = job->error == 0 ? Addon::NamesOf(env, job->stats) : env.Undefined();
    callback.Call({Napi::Number::New(env, job->id), Napi::Number::New(env, job->error), names});
  } catch (const Napi::Error&) {
    // Only while Node shuts down can calling into JS fail here (the callback
    // itself never throws); nobody is left to tell, and letting the
    // exception escape this thread-safe-function call would abort().
  }
}

}  // namespace diskprobe
