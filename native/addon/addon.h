// The glue: the one Node object each environment gets, converting between JS
// values and the plain C++ probe, mount list, thread pool and walk. Only the
// files of native/addon/ include napi.h. Its methods are in addon.cc (what it
// exports, its lifetime, the mount list), addon_probe.cc (the probe) and,
// through ScanRegistry, addon_scan.cc (the walks).
//
// Include this first, after defining NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS
// (addon.cc says why): napi.h reads it.
#ifndef DISKPROBE_ADDON_H_
#define DISKPROBE_ADDON_H_

#include <napi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "../probe/disk_usage.h"
#include "../probe/mount_list.h"
#include "../probe/probe_pool.h"
#include "addon_explain.h"
#include "addon_scan.h"

namespace diskprobe {

// Results travel through one preallocated buffer of 64-bit slots that JS
// reads through two views (BigUint64Array for exact bigint results,
// Float64Array for numbers), so a synchronous probe allocates nothing here.
// Slot indexes; src/probe/nativeBinding.ts mirrors them.
enum Slot : size_t {
  kSlotBlockSize,
  kSlotTotal,
  kSlotFree,
  kSlotAvail,
  kSlotFiles,
  kSlotFilesFree,
  kSlotFilesAvail,
  kSlotDeviceMajor,
  kSlotDeviceMinor,
  kSlotFlags,
  kSlotSyscall,
  kSlotFsidHigh,
  kSlotFsidLow,
  kSlotMountGeneration,  // changes when the mount table does
  kSlotCount,
};

// Room for kMaxPathBytes, one more character of up to 4 UTF-8 bytes, and the
// NUL: napi_get_value_string_utf8 copies whole characters only, so with less
// room a path just over the limit comes back shorter than the limit,
// truncated, and the truncated path is probed instead of ENAMETOOLONG.
constexpr size_t kPathBuffer = kMaxPathBytes + 5;

class Addon;
void DeliverToJs(Napi::Env env, Napi::Function callback, Addon* addon, ProbeJob* job);
using Callback = Napi::TypedThreadSafeFunction<Addon, ProbeJob, DeliverToJs>;

class Addon : public Napi::Addon<Addon> {
 public:
  Addon(Napi::Env env, Napi::Object exports);  // addon.cc
  ~Addon() { Close(); }

  // A probe's answer, into the slots: addon_probe.cc.
  void WriteSlots(const DiskStats& stats, int error, Syscall syscall);

 private:
  // The probe: addon_probe.cc.
  int ReadPath(const Napi::CallbackInfo& info, char* buffer);
  Napi::Value StatSync(const Napi::CallbackInfo& info);
  Napi::Value StatBeneath(const Napi::CallbackInfo& info);
  Napi::Value StatSyncTimeout(const Napi::CallbackInfo& info);
  Napi::Value StatAsync(const Napi::CallbackInfo& info);
  Napi::Value StatAsyncBatch(const Napi::CallbackInfo& info);
  std::unique_ptr<ProbeJob> NewJob(const Napi::CallbackInfo& info, size_t device_arg);
  Napi::Value Abandon(const Napi::CallbackInfo& info);
  Napi::Value Pending(const Napi::CallbackInfo& info);
  Napi::Value PendingOffMount(const Napi::CallbackInfo& info);
  Napi::Value Names(const Napi::CallbackInfo& info);
  Napi::Value SetCallback(const Napi::CallbackInfo& info);
  Napi::Value Ref(const Napi::CallbackInfo& info);
  Napi::Value Unref(const Napi::CallbackInfo& info);

  // The mount list: addon.cc.
  Napi::Value MountTableChanged(const Napi::CallbackInfo& info);
  Napi::Value ListMountsJs(const Napi::CallbackInfo& info);

  // The directory walks, by id: addon_scan.cc.
  Napi::Value ScanStart(const Napi::CallbackInfo& info) { return scans_.Start(info); }
  Napi::Value ScanSnapshot(const Napi::CallbackInfo& info) { return scans_.Snapshot(info); }
  Napi::Value ScanProgress(const Napi::CallbackInfo& info) { return scans_.Progress(info); }
  Napi::Value ScanBusy(const Napi::CallbackInfo& info) { return scans_.Busy(info); }
  Napi::Value ScanStop(const Napi::CallbackInfo& info) { return scans_.Stop(info); }
  Napi::Value ScanRelease(const Napi::CallbackInfo& info) { return scans_.Release(info); }
  Napi::Value ScanUnref(const Napi::CallbackInfo& info) { return scans_.Unref(info); }

  // explain's scan of /proc and open_tree(2), by id: addon_explain.cc.
  Napi::Value OpenFilesStart(const Napi::CallbackInfo& info) { return open_files_.Start(info); }
  Napi::Value OpenFilesBusy(const Napi::CallbackInfo& info) { return open_files_.Busy(info); }
  Napi::Value OpenFilesResult(const Napi::CallbackInfo& info) { return open_files_.Result(info); }
  Napi::Value OpenFilesRelease(const Napi::CallbackInfo& info) { return open_files_.Release(info); }
  Napi::Value OpenTreeClone(const Napi::CallbackInfo& info) { return OpenFilesRegistry::OpenTreeClone(info); }

  // Ends every probe and walk of the environment: addon.cc.
  void Close();

 public:
  // A probe's mount point and file system name, where the OS names them: addon_probe.cc.
  static Napi::Value NamesOf(Napi::Env env, const DiskStats& stats);

 private:
  uint64_t* u64_ = nullptr;
  double* f64_ = nullptr;
  Napi::Reference<Napi::ArrayBuffer> slots_;
  std::shared_ptr<ProbePool> pool_;
  Callback callback_;
  bool has_callback_ = false;
  bool closed_ = false;
  MountTableWatch watch_;
  DiskStats sync_stats_{};
  std::vector<ProbeJob*> batch_;  // reused by StatAsyncBatch
  ScanRegistry scans_;
  OpenFilesRegistry open_files_;
  // The open root of "/" for StatBeneath, for one generation of the mount table.
  int root_fd_ = -1;
  uint64_t root_mount_id_ = 0;
  uint64_t root_generation_ = 0;
  char path_[kPathBuffer];
};

}  // namespace diskprobe

#endif  // DISKPROBE_ADDON_H_
