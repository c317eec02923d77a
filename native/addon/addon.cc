// The addon's module: the Addon each environment gets (addon.h), what it
// exports, its lifetime, and the mount list's glue. The probe's glue is
// addon_probe.cc, the walk's addon_scan.cc.
//
// When a worker is terminated, a failed N-API call inside a method makes
// node-addon-api throw, and its rethrow into JS fails too: without this, the
// second exception escapes into Node and calls std::terminate().
#define NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS
#include "addon.h"

#include <errno.h>
#if defined(_WIN32)
#include <windows.h>
#else
#include <dlfcn.h>
#endif
#include <string.h>

#include <mutex>
#include <vector>

namespace diskprobe {

namespace {

// Node dlclose()s an addon when the environment that loaded it ends (a
// worker). The pool's detached threads, the mount watcher, and a thread stuck
// in the kernel outlive it and would run unmapped code: load this module once
// more, never to be unloaded.
void PinModule() {
  // Once per process, though each environment (worker) constructs an Addon.
  static std::once_flag pinned;
  std::call_once(pinned, [] {
#if defined(_WIN32)
    HMODULE self = nullptr;
    GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_PIN,
                       reinterpret_cast<LPCWSTR>(&PinModule), &self);
#else
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(&PinModule), &info) != 0 && info.dli_fname != nullptr) {
      dlopen(info.dli_fname, RTLD_LAZY | RTLD_NODELETE);
    }
#endif
  });
}

}  // namespace

Addon::Addon(Napi::Env env, Napi::Object exports) {
  PinModule();
  Napi::ArrayBuffer slots = Napi::ArrayBuffer::New(env, kSlotCount * 2 * sizeof(uint64_t));
  u64_ = static_cast<uint64_t*>(slots.Data());
  f64_ = reinterpret_cast<double*>(u64_ + kSlotCount);
  slots_ = Napi::Persistent(slots);

  pool_ = ProbePool::Create([this](ProbeJob* job) {
    if (!has_callback_ || callback_.NonBlockingCall(job) != napi_ok) delete job;
  });
  env.AddCleanupHook([this] { Close(); });

  DefineAddon(exports, {
      InstanceValue("slots", slots, napi_enumerable),
      InstanceValue("slotCount", Napi::Number::New(env, kSlotCount), napi_enumerable),
      InstanceMethod("statSync", &Addon::StatSync),
      InstanceMethod("statSyncTimeout", &Addon::StatSyncTimeout),
      InstanceMethod("statBeneath", &Addon::StatBeneath),
      InstanceMethod("statAsync", &Addon::StatAsync),
      InstanceMethod("statAsyncBatch", &Addon::StatAsyncBatch),
      InstanceMethod("abandon", &Addon::Abandon),
      InstanceMethod("pending", &Addon::Pending),
      InstanceMethod("pendingOffMount", &Addon::PendingOffMount),
      InstanceMethod("names", &Addon::Names),
      InstanceMethod("setCallback", &Addon::SetCallback),
      InstanceMethod("ref", &Addon::Ref),
      InstanceMethod("unref", &Addon::Unref),
      InstanceMethod("mountTableChanged", &Addon::MountTableChanged),
      InstanceMethod("listMounts", &Addon::ListMountsJs),
      InstanceMethod("scanStart", &Addon::ScanStart),
      InstanceMethod("scanSnapshot", &Addon::ScanSnapshot),
      InstanceMethod("scanProgress", &Addon::ScanProgress),
      InstanceMethod("scanBusy", &Addon::ScanBusy),
      InstanceMethod("scanStop", &Addon::ScanStop),
      InstanceMethod("scanRelease", &Addon::ScanRelease),
      InstanceMethod("scanUnref", &Addon::ScanUnref),
      InstanceMethod("openFilesStart", &Addon::OpenFilesStart),
      InstanceMethod("openFilesBusy", &Addon::OpenFilesBusy),
      InstanceMethod("openFilesResult", &Addon::OpenFilesResult),
      InstanceMethod("openFilesRelease", &Addon::OpenFilesRelease),
      InstanceMethod("openTreeClone", &Addon::OpenTreeClone),
  });
}

Napi::Value Addon::MountTableChanged(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), watch_.Changed());
}

// [{mountPoint, device, fsType, readOnly, remote}], or null where JS reads
// the table itself (Linux).
Napi::Value Addon::ListMountsJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::vector<MountEntry> mounts;
  int error = ListMounts(&mounts);
  if (error == ENOSYS) return env.Null();
  if (error != 0) {
    Napi::Error e = Napi::Error::New(env, strerror(error));
    e.Set("errno", Napi::Number::New(env, error));
    e.Set("syscall", Napi::String::New(env, "getmntinfo"));
    e.ThrowAsJavaScriptException();
    return env.Undefined();
  }
  Napi::Array out = Napi::Array::New(env, mounts.size());
  for (size_t i = 0; i < mounts.size(); ++i) {
    Napi::Object m = Napi::Object::New(env);
    m.Set("mountPoint", mounts[i].mount_point);
    m.Set("device", mounts[i].device);
    m.Set("fsType", mounts[i].fs_type);
    m.Set("readOnly", mounts[i].read_only);
    m.Set("remote", mounts[i].remote);
    out.Set(static_cast<uint32_t>(i), m);
  }
  return out;
}

void Addon::Close() {
  if (closed_) return;
  closed_ = true;
  CloseMountRoot(root_fd_);
  root_fd_ = -1;
  pool_->Shutdown();  // after this, no thread calls into callback_
  if (has_callback_) callback_.Abort();
  has_callback_ = false;
  scans_.Clear();  // every walk stopped and freed while the environment is still there
  open_files_.Clear();
}

}  // namespace diskprobe

using DiskProbeAddon = diskprobe::Addon;
NODE_API_ADDON(DiskProbeAddon)
