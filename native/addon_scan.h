// The directory walk's glue, for addon.cc to export: see addon_scan.cc.
#ifndef DISKPROBE_ADDON_SCAN_H_
#define DISKPROBE_ADDON_SCAN_H_

#include <napi.h>

namespace diskprobe {

// (path, options, onDone) -> a handle with snapshot, progress, stop, release and unref.
Napi::Value StartScan(const Napi::CallbackInfo& info);

}  // namespace diskprobe

#endif  // DISKPROBE_ADDON_SCAN_H_
