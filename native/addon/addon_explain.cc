// The glue of explain's native parts: starts an OpenFilesScan
// (native/explain/open_files.h) on a detached thread, tells JS when it is
// done, and hands over its report as one object. With the other addon_*.cc
// files, the only ones that know Node.
#define NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS
#include "addon_explain.h"

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "../explain/open_files.h"

namespace diskprobe {

// One scan, shared by its thread and JS. `tsfn` is unref'd from the start:
// JS keeps the process alive with a timer of its own while it waits, so
// that a scan stuck in a stat never keeps a process from ending. Once the
// environment is torn down (`alive` false) the thread tells nobody.
struct OpenFilesJob {
  explicit OpenFilesJob(OpenFilesTarget target) : scan(target) {}
  OpenFilesScan scan;
  std::atomic<bool> done{false};
  std::mutex mutex;
  bool alive = true;
  Napi::ThreadSafeFunction tsfn;

  void Tell() {
    done.store(true);
    std::lock_guard<std::mutex> lock(mutex);
    if (!alive) return;
    alive = false;
    tsfn.NonBlockingCall();
    tsfn.Release();
  }

  // From JS: the environment is going away, or JS no longer waits.
  void Forget() {
    std::lock_guard<std::mutex> lock(mutex);
    if (!alive) return;
    alive = false;
    tsfn.Release();
  }
};

namespace {

Napi::Object ReportToJs(Napi::Env env, const OpenFilesReport& report) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("error", Napi::Number::New(env, report.error));
  out.Set("processes", Napi::Number::New(env, report.processes));
  out.Set("descriptors", Napi::Number::New(env, static_cast<double>(report.descriptors)));
  out.Set("unknownMounts", Napi::Number::New(env, report.unknownMounts));
  Napi::Array files = Napi::Array::New(env, report.files.size());
  for (size_t i = 0; i < report.files.size(); ++i) {
    const DeletedFile& file = report.files[i];
    Napi::Object f = Napi::Object::New(env);
    f.Set("device", Napi::BigInt::New(env, file.device));
    f.Set("inode", Napi::BigInt::New(env, file.inode));
    f.Set("allocated", Napi::BigInt::New(env, file.allocated));
    f.Set("size", Napi::BigInt::New(env, file.size));
    f.Set("sized", Napi::Boolean::New(env, file.sized));
    f.Set("path", Napi::Buffer<char>::Copy(env, file.path.data(), file.path.size()));
    Napi::Array holders = Napi::Array::New(env, file.holders.size());
    for (size_t j = 0; j < file.holders.size(); ++j) {
      const FileHolder& holder = file.holders[j];
      Napi::Array h = Napi::Array::New(env, 4);
      h.Set(0u, Napi::Number::New(env, holder.pid));
      h.Set(1u, Napi::Number::New(env, holder.fd));
      h.Set(2u, Napi::Number::New(env, holder.uid));
      h.Set(3u, Napi::String::New(env, holder.command));
      holders.Set(static_cast<uint32_t>(j), h);
    }
    f.Set("holders", holders);
    files.Set(static_cast<uint32_t>(i), f);
  }
  out.Set("files", files);
  Napi::Array unreadable = Napi::Array::New(env, report.unreadable.size());
  for (size_t i = 0; i < report.unreadable.size(); ++i) {
    Napi::Array u = Napi::Array::New(env, 3);
    u.Set(0u, Napi::Number::New(env, report.unreadable[i].pid));
    u.Set(1u, Napi::Number::New(env, report.unreadable[i].uid));
    u.Set(2u, Napi::Number::New(env, report.unreadable[i].error));
    unreadable.Set(static_cast<uint32_t>(i), u);
  }
  out.Set("unreadable", unreadable);
  Napi::Array skipped = Napi::Array::New(env, report.mapsSkipped.size());
  for (size_t i = 0; i < report.mapsSkipped.size(); ++i) skipped.Set(static_cast<uint32_t>(i), Napi::Number::New(env, report.mapsSkipped[i]));
  out.Set("mapsSkipped", skipped);
  return out;
}

uint32_t IdArg(const Napi::CallbackInfo& info) { return info[0].As<Napi::Number>().Uint32Value(); }

}  // namespace

void OpenFilesRegistry::Clear() {
  for (auto& [id, job] : jobs_) job->Forget();
  jobs_.clear();
}

Napi::Value OpenFilesRegistry::Start(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  OpenFilesTarget target{info[0].As<Napi::Number>().Uint32Value(), info[1].As<Napi::Number>().Uint32Value()};
  auto job = std::make_shared<OpenFilesJob>(target);
  job->tsfn = Napi::ThreadSafeFunction::New(env, info[2].As<Napi::Function>(), "diskprobe.openFiles", 0, 1);
  job->tsfn.Unref(env);
  uint32_t id = ++next_id_;
  jobs_[id] = job;
  std::thread([job] {
    job->scan.Run();
    job->Tell();
  }).detach();
  return Napi::Number::New(env, id);
}

Napi::Value OpenFilesRegistry::Busy(const Napi::CallbackInfo& info) {
  auto found = jobs_.find(IdArg(info));
  return Napi::String::New(info.Env(), found == jobs_.end() ? std::string() : found->second->scan.Busy());
}

Napi::Value OpenFilesRegistry::Result(const Napi::CallbackInfo& info) {
  auto found = jobs_.find(IdArg(info));
  if (found == jobs_.end() || !found->second->done.load()) return info.Env().Null();
  return ReportToJs(info.Env(), found->second->scan.report());
}

Napi::Value OpenFilesRegistry::Release(const Napi::CallbackInfo& info) {
  auto found = jobs_.find(IdArg(info));
  if (found != jobs_.end()) {
    found->second->Forget();
    jobs_.erase(found);
  }
  return info.Env().Undefined();
}

Napi::Value OpenFilesRegistry::OpenTreeClone(const Napi::CallbackInfo& info) {
  std::string path = info[0].As<Napi::String>().Utf8Value();
  return Napi::Number::New(info.Env(), diskprobe::OpenTreeClone(path.c_str()));
}

}  // namespace diskprobe
