// Reading /proc for explain's scan: see proc_read.h.
#include "proc_read.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

namespace diskprobe {

namespace {

// Milliseconds a read of a process's maps may wait on its mmap lock.
constexpr int kMapsWaitMs = 200;

// The whole of an open /proc file, closed after; empty when unreadable.
std::string ReadAll(int fd) {
  std::string text;
  if (fd < 0) return text;
  char buffer[8192];
  for (;;) {
    ssize_t got = read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    text.append(buffer, static_cast<size_t>(got));
  }
  close(fd);
  return text;
}

// The superblock device of each mount id, from one mount namespace's mountinfo.
std::unordered_map<uint32_t, dev_t> ParseMountInfo(const std::string& text) {
  std::unordered_map<uint32_t, dev_t> devices;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    unsigned id = 0, parent = 0, major = 0, minor = 0;
    if (sscanf(text.c_str() + at, "%u %u %u:%u", &id, &parent, &major, &minor) == 4) devices[id] = makedev(major, minor);
    at = end + 1;
  }
  return devices;
}

}  // namespace

std::string ReadAt(int dir, const char* name) { return ReadAll(openat(dir, name, O_RDONLY | O_CLOEXEC)); }

bool ReadMapsWithin(const std::string& path, std::string* out) {
  struct Pending {
    std::mutex mutex;
    std::condition_variable answered;
    bool done = false;
    std::string text;
  };
  auto pending = std::make_shared<Pending>();
  std::thread([pending, path] {
    std::string text = ReadAll(open(path.c_str(), O_RDONLY | O_CLOEXEC));
    std::lock_guard<std::mutex> lock(pending->mutex);
    pending->text = std::move(text);
    pending->done = true;
    pending->answered.notify_all();
  }).detach();
  std::unique_lock<std::mutex> lock(pending->mutex);
  if (!pending->answered.wait_for(lock, std::chrono::milliseconds(kMapsWaitMs), [&] { return pending->done; })) return false;
  *out = std::move(pending->text);
  return true;
}

TaskState StateOf(int task_dir) {
  TaskState task;
  std::string stat = ReadAt(task_dir, "stat");
  // After the command, which may hold spaces and parentheses: state ppid pgrp session tty_nr tpgid flags.
  size_t end = stat.rfind(')');
  if (end == std::string::npos || end + 2 >= stat.size()) return task;
  sscanf(stat.c_str() + end + 2, "%c %*d %*d %*d %*d %*d %lu", &task.state, &task.flags);
  return task;
}

long MountIdOf(int fdinfo_dir, const char* fd) {
  std::string info = ReadAt(fdinfo_dir, fd);
  size_t at = info.find("mnt_id:");
  return at == std::string::npos ? -1 : strtol(info.c_str() + at + 7, nullptr, 10);
}

dev_t MountNamespaces::DeviceOf(int task_dir, uint32_t id) {
  struct stat ns;
  if (fstatat(task_dir, "ns/mnt", &ns, 0) != 0) return 0;
  auto found = namespaces_.find(ns.st_ino);
  if (found == namespaces_.end()) found = namespaces_.emplace(ns.st_ino, ParseMountInfo(ReadAt(task_dir, "mountinfo"))).first;
  auto device = found->second.find(id);
  return device == found->second.end() ? 0 : device->second;
}

}  // namespace diskprobe
