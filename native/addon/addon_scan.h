// The directory walk's glue, for addon.cc to export: see addon_scan.cc.
#ifndef DISKPROBE_ADDON_SCAN_H_
#define DISKPROBE_ADDON_SCAN_H_

#include <napi.h>

#include <cstdint>
#include <memory>
#include <unordered_map>

namespace diskprobe {

struct ScanHolder;
class Scan;

// The walks one environment has started, by id. JS frees each with
// release(); whatever is left is stopped and freed with the environment.
// No finalizer is involved: a handle is a number, and a call with an id
// that was released answers null, but for busy(): a released walk's
// threads may still be held by a dead mount, and JS keeps that mount
// marked stuck for as long as they are.
class ScanRegistry {
 public:
  ScanRegistry();
  ~ScanRegistry();
  ScanRegistry(const ScanRegistry&) = delete;
  ScanRegistry& operator=(const ScanRegistry&) = delete;

  // Stops and frees every walk still held (the environment is going away).
  void Clear();

  // (path, { threads?, oneFileSystem?, keepFiles?, topFiles?, maxErrors?, mounts? }, onDone) -> id
  Napi::Value Start(const Napi::CallbackInfo& info);
  // (id, maxUnfinished?) -> the tree as it stands, or null once released
  Napi::Value Snapshot(const Napi::CallbackInfo& info);
  // (id) -> [entries, allocated, directories]
  Napi::Value Progress(const Napi::CallbackInfo& info);
  // (id) -> the nodes its threads are on now, released or not
  Napi::Value Busy(const Napi::CallbackInfo& info);
  // (id): ends it soon
  Napi::Value Stop(const Napi::CallbackInfo& info);
  // (id): ends it and frees it (its tree as soon as no thread of it runs)
  Napi::Value Release(const Napi::CallbackInfo& info);
  // (id): it no longer keeps the process alive
  Napi::Value Unref(const Napi::CallbackInfo& info);

 private:
  ScanHolder* Find(const Napi::CallbackInfo& info);

  std::unordered_map<uint32_t, std::unique_ptr<ScanHolder>> holders_;
  // Released walks that had threads out: their trees are freed, and each is
  // dropped once busy() finds none of its threads out (or on the next release).
  std::unordered_map<uint32_t, std::shared_ptr<Scan>> released_;
  uint32_t next_id_ = 0;
};

}  // namespace diskprobe

#endif  // DISKPROBE_ADDON_SCAN_H_
