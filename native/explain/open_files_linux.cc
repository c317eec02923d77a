// Linux: the deleted files still held on one file system, from /proc
// (proc(5): /proc/<pid>/fd, fdinfo, maps, map_files, mountinfo).
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "held_set.h"
#include "open_files.h"
#include "proc_read.h"

#ifndef SYS_open_tree
#define SYS_open_tree 428  // the same on every architecture (asm-generic numbering, Linux 5.2)
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif

namespace diskprobe {

namespace {

constexpr char kDeleted[] = " (deleted)";
constexpr size_t kDeletedLength = sizeof kDeleted - 1;

bool EndsDeleted(const std::string& link) {
  return link.size() > kDeletedLength && link[0] == '/' && link.compare(link.size() - kDeletedLength, kDeletedLength, kDeleted) == 0;
}

struct Process {
  int32_t pid;
  uint32_t uid;
  std::string command;
};

// The scan of one run: what it has found, each inode once.
class Finder {
 public:
  Finder(OpenFilesScan* scan, int thread, dev_t target) : scan_(scan), thread_(thread), target_(target) {}

  OpenFilesReport& report() { return report_; }
  HeldSet& held() { return held_; }

  void Process(int proc, const char* name) {
    int pid_dir = openat(proc, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (pid_dir < 0) return;  // gone
    struct stat owner;
    TaskState task = StateOf(pid_dir);
    if (fstat(pid_dir, &owner) != 0 || (task.flags & kKernelThread) != 0) {
      close(pid_dir);
      return;
    }
    std::string command = ReadAt(pid_dir, "comm");
    if (!command.empty() && command.back() == '\n') command.pop_back();
    struct Process process = {static_cast<int32_t>(atoi(name)), static_cast<uint32_t>(owner.st_uid), std::move(command)};
    report_.processes += 1;
    std::string path = std::string("/proc/") + name;
    int listed = Descriptors(pid_dir, process);
    // The leader has exited (a zombie) while its threads run on: its fd
    // table and its memory are gone from /proc/<pid>, and a live thread's
    // still has both, at /proc/<tid> (which has map_files, where
    // /proc/<pid>/task/<tid> has not).
    if (listed == 0 && task.state == 'Z') {
      int thread_dir = LiveThread(proc, pid_dir, process, &path);
      if (thread_dir >= 0) {
        Descriptors(thread_dir, process);
        Mappings(thread_dir, path, StateOf(thread_dir).state, process);
        close(thread_dir);
      }
    } else {
      Mappings(pid_dir, path, task.state, process);
    }
    close(pid_dir);
  }

 private:
  // The deleted files of the fd table of the process or thread at `task_dir`; how many fds it listed, or -1.
  int Descriptors(int task_dir, const struct Process& process) {
    int fd_dir = openat(task_dir, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd_dir < 0) {
      if (errno != ENOENT) report_.unreadable.push_back({process.pid, process.uid, errno});
      return -1;
    }
    DIR* listing = fdopendir(fd_dir);
    if (listing == nullptr) {
      close(fd_dir);
      return -1;
    }
    int info_dir = -1;
    int listed = 0;
    char link[4096 + kDeletedLength + 1];
    while (struct dirent* entry = readdir(listing)) {
      if (entry->d_name[0] == '.') continue;
      listed += 1;
      report_.descriptors += 1;
      // readlink of an fd never asks its file system: the kernel names the dentry it holds.
      ssize_t length = readlinkat(fd_dir, entry->d_name, link, sizeof link - 1);
      if (length <= 0) continue;
      std::string target(link, static_cast<size_t>(length));
      if (!EndsDeleted(target)) continue;
      if (info_dir < 0) info_dir = openat(task_dir, "fdinfo", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      long mount_id = info_dir < 0 ? -1 : MountIdOf(info_dir, entry->d_name);
      dev_t device = mount_id < 0 ? 0 : namespaces_.DeviceOf(task_dir, static_cast<uint32_t>(mount_id));
      if (device == 0) {
        report_.unknownMounts += 1;
        continue;
      }
      if (device != target_) continue;
      // On this file system: the one stat that asks it, and may wait on it.
      scan_->SetBusy(thread_, "/proc/" + std::to_string(process.pid) + "/fd/" + entry->d_name + " (" + target + ")");
      struct stat st;
      int status = fstatat(fd_dir, entry->d_name, &st, 0);
      scan_->SetBusy(thread_, "");
      if (status != 0 || st.st_nlink != 0) continue;  // a hard link is left: still visible, not held space
      Hold(st, target.substr(0, target.size() - kDeletedLength), {process.pid, atoi(entry->d_name), process.uid, process.command});
    }
    if (info_dir >= 0) close(info_dir);
    closedir(listing);
    return listed;
  }

  // /proc/<tid> of a live thread of a process whose leader has exited, and its path; -1 when there is none.
  int LiveThread(int proc, int pid_dir, const struct Process& process, std::string* path) {
    int tasks = openat(pid_dir, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (tasks < 0) return -1;
    DIR* listing = fdopendir(tasks);
    if (listing == nullptr) {
      close(tasks);
      return -1;
    }
    int found = -1;
    while (struct dirent* entry = readdir(listing)) {
      if (entry->d_name[0] == '.' || atoi(entry->d_name) == process.pid) continue;
      int thread_dir = openat(proc, entry->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (thread_dir < 0) continue;
      if (StateOf(thread_dir).state == 'Z') {
        close(thread_dir);
        continue;
      }
      *path = std::string("/proc/") + entry->d_name;
      found = thread_dir;  // threads share one fd table and one memory
      break;
    }
    closedir(listing);
    return found;
  }

  // Deleted files mapped on this file system: maps gives the superblock device and inode of each.
  void Mappings(int task_dir, const std::string& task_path, char state, const struct Process& process) {
    std::string maps;
    if (state != 'D') {
      scan_->SetBusy(thread_, task_path + "/maps");
      maps = ReadAt(task_dir, "maps");
      scan_->SetBusy(thread_, "");
    } else if (!ReadMapsWithin(task_path + "/maps", &maps)) {
      report_.mapsSkipped.push_back(process.pid);
      return;
    }
    size_t at = 0;
    while (at < maps.size()) {
      size_t end = maps.find('\n', at);
      if (end == std::string::npos) end = maps.size();
      std::string line = maps.substr(at, end - at);
      at = end + 1;
      if (!EndsDeleted(line.substr(line.find('/') == std::string::npos ? line.size() : line.find('/')))) continue;
      char range[64];
      unsigned major = 0, minor = 0;
      unsigned long long inode = 0;
      if (sscanf(line.c_str(), "%63s %*s %*s %x:%x %llu", range, &major, &minor, &inode) != 4 || inode == 0) continue;
      if (makedev(major, minor) != target_) continue;
      std::string path = line.substr(line.find('/'));
      path.resize(path.size() - kDeletedLength);
      FileHolder holder{process.pid, -1, process.uid, process.command};
      // Sized through map_files where that is readable: its st_dev tells btrfs subvolumes apart.
      struct stat st;
      std::string link = std::string("map_files/") + range;
      scan_->SetBusy(thread_, task_path + "/" + link + " (" + path + ")");
      int status = fstatat(task_dir, link.c_str(), &st, 0);
      scan_->SetBusy(thread_, "");
      if (status == 0) {
        if (st.st_nlink == 0) Hold(st, path, holder);
        continue;
      }
      // map_files wants more privilege than maps: known to be held, not how much.
      DeletedFile file;
      file.inode = inode;
      file.path = path;
      file.holders.push_back(holder);
      held_.Add(std::move(file));
    }
  }

  // A deleted file stat'ed, through an fd or a mapping.
  void Hold(const struct stat& st, std::string path, FileHolder holder) {
    DeletedFile file;
    file.device = st.st_dev;
    file.inode = st.st_ino;
    file.allocated = static_cast<uint64_t>(st.st_blocks) * 512;
    file.size = static_cast<uint64_t>(st.st_size);
    file.sized = true;
    file.path = std::move(path);
    file.holders.push_back(std::move(holder));
    held_.Add(std::move(file));
  }

  OpenFilesScan* scan_;
  int thread_;
  dev_t target_;
  OpenFilesReport report_;
  HeldSet held_;
  MountNamespaces namespaces_;
};

}  // namespace

// How many processes a thread takes at a time from the shared list, and
// how many processes make a second thread worth starting.
constexpr size_t kBatch = 32;
constexpr size_t kPerThread = 128;

void OpenFilesScan::Run() {
  int proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (proc < 0) {
    report_.error = errno;
    return;
  }
  DIR* listing = fdopendir(proc);
  if (listing == nullptr) {
    report_.error = errno;
    close(proc);
    return;
  }
  std::vector<std::string> pids;
  while (struct dirent* entry = readdir(listing)) {
    if (entry->d_name[0] >= '1' && entry->d_name[0] <= '9') pids.emplace_back(entry->d_name);
  }
  // The time goes to syscalls on /proc, each cheap and many (readlink of
  // every fd, fdinfo, maps): threads share them out (bench/explainFloor.c
  // measures the gain); each keeps its own findings, merged at the end.
  size_t cores = std::max(1u, std::thread::hardware_concurrency());
  size_t threads = std::min({static_cast<size_t>(kScanThreads), cores, std::max<size_t>(1, pids.size() / kPerThread)});
  dev_t target = makedev(target_.major, target_.minor);
  std::vector<std::unique_ptr<Finder>> finders;
  for (size_t i = 0; i < threads; i++) finders.push_back(std::make_unique<Finder>(this, static_cast<int>(i), target));
  std::atomic<size_t> next{0};
  auto work = [&](Finder* finder) {
    for (size_t from = next.fetch_add(kBatch); from < pids.size(); from = next.fetch_add(kBatch)) {
      for (size_t i = from; i < std::min(from + kBatch, pids.size()); i++) finder->Process(proc, pids[i].c_str());
    }
  };
  std::vector<std::thread> running;
  for (size_t i = 1; i < threads; i++) running.emplace_back(work, finders[i].get());
  work(finders[0].get());
  for (std::thread& thread : running) thread.join();
  closedir(listing);
  HeldSet held;
  for (auto& finder : finders) {
    OpenFilesReport& part = finder->report();
    report_.processes += part.processes;
    report_.descriptors += part.descriptors;
    report_.unknownMounts += part.unknownMounts;
    report_.unreadable.insert(report_.unreadable.end(), part.unreadable.begin(), part.unreadable.end());
    report_.mapsSkipped.insert(report_.mapsSkipped.end(), part.mapsSkipped.begin(), part.mapsSkipped.end());
    held.Merge(std::move(finder->held()));
  }
  std::sort(report_.unreadable.begin(), report_.unreadable.end(), [](const UnreadableProcess& a, const UnreadableProcess& b) { return a.pid < b.pid; });
  std::sort(report_.mapsSkipped.begin(), report_.mapsSkipped.end());
  report_.files = held.Take();
}

int OpenTreeClone(const char* path) {
  long fd = syscall(SYS_open_tree, AT_FDCWD, path, OPEN_TREE_CLONE | O_CLOEXEC);
  return fd < 0 ? -errno : static_cast<int>(fd);
}

}  // namespace diskprobe
