// The directory walk's glue: starts a Scan (scan.h) from JS, keeps it by
// id, tells JS when it is done, and hands over its tree as typed arrays: one
// crossing per answer, never a JS object per file or per directory. With
// addon.cc and addon_probe.cc, the only files that know Node.
#define NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS
#include "addon_scan.h"

#include <string.h>
#if !defined(_WIN32)
#include <sys/types.h>
#if defined(__linux__)
#include <sys/sysmacros.h>
#endif
#endif

#include <atomic>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "../walk/scan.h"

namespace diskprobe {

namespace {

// How a walk tells JS it is done, shared by the JS handle and the walk's
// own threads (either may outlive the other). Released exactly once, by
// whichever ends it: the walk's last thread once it has queued the call
// (the walk was done), or JS (the walk was stopped first). JS unrefs it
// when it stops waiting (a deadline), so that a walk stuck on a dead mount
// never keeps the process alive; finalization runs on the main thread, so
// an unref there never meets a function already freed. The call carries no
// data: a queued call that never runs (the environment torn down) then
// leaves nothing to free.
struct DoneSignal {
  Napi::ThreadSafeFunction tsfn;
  std::atomic<bool> held{true};

  // From the walk's thread, when it is done.
  void Tell() {
    if (!held.exchange(false)) return;
    tsfn.BlockingCall();
    tsfn.Release();
  }

  // From JS, when the walk was stopped before it was done.
  void Release() {
    if (held.exchange(false)) tsfn.Release();
  }
};

}  // namespace

// One walk as JS holds it (by id: ScanRegistry).
struct ScanHolder {
  std::shared_ptr<Scan> scan;
  std::shared_ptr<DoneSignal> done;

  // Stops the walk. If it was not done by then it never will be, and the
  // signal is released here; if it was, the call it has queued releases it.
  void Stop() {
    scan->Stop();
    if (!scan->Done()) done->Release();
  }
};

namespace {

template <typename T>
Napi::Value U32Array(Napi::Env env, const std::vector<T>& values) {
  Napi::Uint32Array array = Napi::Uint32Array::New(env, values.size());
  if (!values.empty()) memcpy(array.Data(), values.data(), values.size() * sizeof(uint32_t));
  return array;
}

Napi::Value U64Array(Napi::Env env, const std::vector<uint64_t>& values) {
  auto array = Napi::TypedArrayOf<uint64_t>::New(env, values.size(), napi_biguint64_array);
  if (!values.empty()) memcpy(array.Data(), values.data(), values.size() * sizeof(uint64_t));
  return array;
}

Napi::Value Bytes(Napi::Env env, const std::string& bytes) { return Napi::Buffer<char>::Copy(env, bytes.data(), bytes.size()); }

// Errors and what busy threads are on: few, so plain objects.
Napi::Value ErrorList(Napi::Env env, const std::vector<ScanError>& errors) {
  Napi::Array list = Napi::Array::New(env, errors.size());
  for (size_t i = 0; i < errors.size(); ++i) {
    Napi::Object error = Napi::Object::New(env);
    error.Set("dir", Napi::Number::New(env, errors[i].dir));
    error.Set("name", Bytes(env, errors[i].name));
    error.Set("errno", Napi::Number::New(env, errors[i].error));
    error.Set("syscall", Napi::Number::New(env, errors[i].syscall));
    list.Set(static_cast<uint32_t>(i), error);
  }
  return list;
}

// Every kept file as five arrays: directory, place in its listing, sizes, names.
Napi::Object FileArrays(Napi::Env env, const std::vector<ScanFile>& files) {
  std::vector<uint32_t> dir(files.size()), entry(files.size()), name_end(files.size());
  std::vector<uint64_t> sizes(files.size() * 2);
  std::string names;
  for (size_t i = 0; i < files.size(); ++i) {
    dir[i] = files[i].dir;
    entry[i] = files[i].entry_index;
    sizes[i * 2] = files[i].allocated;
    sizes[i * 2 + 1] = files[i].apparent;
    names += files[i].name;
    name_end[i] = static_cast<uint32_t>(names.size());
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("dir", U32Array(env, dir));
  out.Set("entryIndex", U32Array(env, entry));
  out.Set("sizes", U64Array(env, sizes));
  out.Set("names", Bytes(env, names));
  out.Set("nameEnd", U32Array(env, name_end));
  return out;
}

Napi::Value SnapshotToJs(Napi::Env env, const ScanSnapshot& tree) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("done", Napi::Boolean::New(env, tree.done));
  out.Set("stopped", Napi::Boolean::New(env, tree.stopped));
  out.Set("parent", U32Array(env, tree.parent));
  out.Set("entryIndex", U32Array(env, tree.entry_index));
  out.Set("firstChild", U32Array(env, tree.first_child));
  out.Set("childCount", U32Array(env, tree.child_count));
  out.Set("flags", U32Array(env, tree.flags));
  out.Set("entries", U32Array(env, tree.entries));
  out.Set("sizes", U64Array(env, tree.sizes));
  out.Set("names", Bytes(env, tree.names));
  out.Set("nameEnd", U32Array(env, tree.name_end));
  out.Set("files", FileArrays(env, tree.files));
  out.Set("errorCount", Napi::Number::New(env, static_cast<double>(tree.error_count)));
  out.Set("errors", ErrorList(env, tree.errors));
  out.Set("unfinishedCount", Napi::Number::New(env, static_cast<double>(tree.unfinished_count)));
  out.Set("unfinished", U32Array(env, tree.unfinished));
  out.Set("inProgress", ErrorList(env, tree.in_progress));
  out.Set("entriesSeen", Napi::Number::New(env, static_cast<double>(tree.entries_seen)));
  return out;
}

uint32_t OptionalU32(const Napi::Object& options, const char* key, uint32_t fallback) {
  const Napi::Value value = options.Get(key);
  return value.IsNumber() ? value.As<Napi::Number>().Uint32Value() : fallback;
}

// [path, major, minor, stuck] per mount.
std::vector<ScanMount> ReadMounts(const Napi::Object& options) {
  std::vector<ScanMount> mounts;
  const Napi::Value value = options.Get("mounts");
  if (!value.IsArray()) return mounts;
  const Napi::Array list = value.As<Napi::Array>();
  for (uint32_t i = 0; i < list.Length(); ++i) {
    const Napi::Array mount = list.Get(i).As<Napi::Array>();
    ScanMount entry;
    entry.path = mount.Get(0u).As<Napi::String>().Utf8Value();
    const double major = mount.Get(1u).As<Napi::Number>().DoubleValue();
    const double minor = mount.Get(2u).As<Napi::Number>().DoubleValue();
#if defined(__linux__)
    // NaN where the table does not say: 0, unknown.
    if (major == major && minor == minor) entry.dev = makedev(static_cast<unsigned>(major), static_cast<unsigned>(minor));
#else
    (void)major;
    (void)minor;
#endif
    entry.stuck = mount.Get(3u).ToBoolean().Value();
    mounts.push_back(std::move(entry));
  }
  return mounts;
}

}  // namespace

ScanRegistry::ScanRegistry() = default;

ScanRegistry::~ScanRegistry() { Clear(); }

// A walk still held when the environment goes: stopped and freed; its threads end on their own.
void ScanRegistry::Clear() {
  for (auto& entry : holders_) {
    entry.second->Stop();
    entry.second->scan->Release();
  }
  holders_.clear();
  released_.clear();
}

ScanHolder* ScanRegistry::Find(const Napi::CallbackInfo& info) {
  if (info.Length() < 1 || !info[0].IsNumber()) return nullptr;
  const auto found = holders_.find(info[0].As<Napi::Number>().Uint32Value());
  return found == holders_.end() ? nullptr : found->second.get();
}

Napi::Value ScanRegistry::Start(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ScanOptions options;
  options.path = info[0].As<Napi::String>().Utf8Value();
  const Napi::Object given = info[1].As<Napi::Object>();
  options.threads = OptionalU32(given, "threads", 0);
  options.one_file_system = given.Get("oneFileSystem").ToBoolean().Value();
  options.keep_files = given.Get("keepFiles").ToBoolean().Value();
  options.top_files = OptionalU32(given, "topFiles", 0);
  options.max_errors = OptionalU32(given, "maxErrors", 20);
  options.mounts = ReadMounts(given);

  auto holder = std::make_unique<ScanHolder>();
  holder->done = std::make_shared<DoneSignal>();
  holder->done->tsfn = Napi::ThreadSafeFunction::New(env, info[2].As<Napi::Function>(), "diskprobe scan", 0, 1);
  std::shared_ptr<DoneSignal> done = holder->done;
  holder->scan = Scan::Start(std::move(options), [done] { done->Tell(); });
  const uint32_t id = ++next_id_;
  holders_.emplace(id, std::move(holder));
  return Napi::Number::New(env, id);
}

Napi::Value ScanRegistry::Snapshot(const Napi::CallbackInfo& info) {
  ScanHolder* holder = Find(info);
  if (holder == nullptr) return info.Env().Null();
  const size_t max_unfinished = info[1].IsNumber() ? info[1].As<Napi::Number>().Uint32Value() : 20;
  return SnapshotToJs(info.Env(), holder->scan->Snapshot(max_unfinished));
}

Napi::Value ScanRegistry::Progress(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ScanHolder* holder = Find(info);
  uint64_t entries = 0, allocated = 0, dirs = 0;
  if (holder != nullptr) holder->scan->Progress(&entries, &allocated, &dirs);
  Napi::Array out = Napi::Array::New(env, 3);
  out.Set(0u, Napi::Number::New(env, static_cast<double>(entries)));
  out.Set(1u, Napi::Number::New(env, static_cast<double>(allocated)));
  out.Set(2u, Napi::Number::New(env, static_cast<double>(dirs)));
  return out;
}

Napi::Value ScanRegistry::Busy(const Napi::CallbackInfo& info) {
  ScanHolder* holder = Find(info);
  if (holder != nullptr) return U32Array(info.Env(), holder->scan->Busy());
  std::vector<uint32_t> busy;
  if (info.Length() >= 1 && info[0].IsNumber()) {
    const auto found = released_.find(info[0].As<Napi::Number>().Uint32Value());
    if (found != released_.end()) {
      busy = found->second->Busy();
      if (busy.empty()) released_.erase(found);
    }
  }
  return U32Array(info.Env(), busy);
}

Napi::Value ScanRegistry::Stop(const Napi::CallbackInfo& info) {
  ScanHolder* holder = Find(info);
  if (holder != nullptr) holder->Stop();
  return info.Env().Undefined();
}

Napi::Value ScanRegistry::Release(const Napi::CallbackInfo& info) {
  ScanHolder* holder = Find(info);
  if (holder == nullptr) return info.Env().Undefined();
  holder->Stop();
  holder->scan->Release();
  // Threads still out (a dead mount holds them, or they are finishing a call):
  // keep the walk's small state, without its tree, for busy() to answer.
  for (auto it = released_.begin(); it != released_.end();) {
    it = it->second->Busy().empty() ? released_.erase(it) : std::next(it);
  }
  const uint32_t id = info[0].As<Napi::Number>().Uint32Value();
  if (!holder->scan->Busy().empty()) released_.emplace(id, holder->scan);
  holders_.erase(id);
  return info.Env().Undefined();
}

Napi::Value ScanRegistry::Unref(const Napi::CallbackInfo& info) {
  ScanHolder* holder = Find(info);
  if (holder != nullptr && holder->done->held.load()) holder->done->tsfn.Unref(info.Env());
  return info.Env().Undefined();
}

}  // namespace diskprobe
