// The glue of explain's native parts (native/explain/): the scan of /proc
// for deleted files still held, on a thread of its own, and open_tree(2).
// See addon_explain.cc.
#ifndef DISKPROBE_ADDON_EXPLAIN_H_
#define DISKPROBE_ADDON_EXPLAIN_H_

#include <napi.h>

#include <cstdint>
#include <memory>
#include <unordered_map>

namespace diskprobe {

struct OpenFilesJob;

// The scans one environment has started, by id. A scan's thread may never
// return (a stat on this file system that does not answer): JS stops
// waiting, releases it, and the thread, when it ends, finds nobody to tell.
class OpenFilesRegistry {
 public:
  OpenFilesRegistry() = default;
  ~OpenFilesRegistry() { Clear(); }
  OpenFilesRegistry(const OpenFilesRegistry&) = delete;
  OpenFilesRegistry& operator=(const OpenFilesRegistry&) = delete;

  // The environment is going away: no thread calls into it after this.
  void Clear();

  // (major, minor, onDone) -> id; onDone() once the scan is done
  Napi::Value Start(const Napi::CallbackInfo& info);
  // (id) -> what the scan waits on now ("" for nothing)
  Napi::Value Busy(const Napi::CallbackInfo& info);
  // (id) -> the report once done, else null
  Napi::Value Result(const Napi::CallbackInfo& info);
  // (id): forgotten
  Napi::Value Release(const Napi::CallbackInfo& info);
  // (path) -> an fd of a detached copy of the mount at path, or -errno
  static Napi::Value OpenTreeClone(const Napi::CallbackInfo& info);

 private:
  std::unordered_map<uint32_t, std::shared_ptr<OpenFilesJob>> jobs_;
  uint32_t next_id_ = 0;
};

}  // namespace diskprobe

#endif  // DISKPROBE_ADDON_EXPLAIN_H_
