// Linux: the deleted files still held on one file system, from /proc
// (proc(5): /proc/<pid>/fd, fdinfo, maps, map_files, mountinfo).
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "open_files.h"

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

// The whole of a small /proc file, read relative to `dir`; empty when unreadable.
std::string ReadAt(int dir, const char* name) {
  std::string text;
  int fd = openat(dir, name, O_RDONLY | O_CLOEXEC);
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

bool EndsDeleted(const std::string& link) {
  return link.size() > kDeletedLength && link[0] == '/' && link.compare(link.size() - kDeletedLength, kDeletedLength, kDeleted) == 0;
}

// The superblock device of each mount id, from one mount namespace's mountinfo.
using MountDevices = std::unordered_map<uint32_t, dev_t>;

MountDevices ParseMountInfo(const std::string& text) {
  MountDevices devices;
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

// Mount ids are global, but mountinfo lists only one namespace's: a process
// in a container holds files on mounts this process's mountinfo does not
// list. Each namespace is read once, through a process in it.
class MountNamespaces {
 public:
  // The superblock device of mount `id` as the process at `pid_dir` sees it; 0 when unknown.
  dev_t DeviceOf(int pid_dir, uint32_t id) {
    struct stat ns;
    if (fstatat(pid_dir, "ns/mnt", &ns, 0) != 0) return 0;
    auto found = namespaces_.find(ns.st_ino);
    if (found == namespaces_.end()) found = namespaces_.emplace(ns.st_ino, ParseMountInfo(ReadAt(pid_dir, "mountinfo"))).first;
    auto device = found->second.find(id);
    return device == found->second.end() ? 0 : device->second;
  }

 private:
  std::map<ino_t, MountDevices> namespaces_;
};

// The mount id fdinfo gives an fd ("mnt_id:\t42"), or -1.
long MountIdOf(int fdinfo_dir, const char* fd) {
  std::string info = ReadAt(fdinfo_dir, fd);
  size_t at = info.find("mnt_id:");
  return at == std::string::npos ? -1 : strtol(info.c_str() + at + 7, nullptr, 10);
}

// The state letter of /proc/<pid>/stat (after the command, which may hold spaces and parentheses).
char StateOf(int pid_dir) {
  std::string stat = ReadAt(pid_dir, "stat");
  size_t end = stat.rfind(')');
  return end == std::string::npos || end + 2 >= stat.size() ? '?' : stat[end + 2];
}

struct Process {
  int32_t pid;
  uint32_t uid;
  std::string command;
};

// The scan of one run: what it has found, by inode.
class Finder {
 public:
  Finder(OpenFilesScan* scan, OpenFilesReport* report, dev_t target) : scan_(scan), report_(report), target_(target) {}

  void Process(int proc, const char* name) {
    int pid_dir = openat(proc, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (pid_dir < 0) return;  // gone
    struct stat owner;
    if (fstat(pid_dir, &owner) != 0) {
      close(pid_dir);
      return;
    }
    std::string command = ReadAt(pid_dir, "comm");
    if (!command.empty() && command.back() == '\n') command.pop_back();
    struct Process process = {static_cast<int32_t>(atoi(name)), static_cast<uint32_t>(owner.st_uid), std::move(command)};
    report_->processes += 1;
    char state = StateOf(pid_dir);
    int listed = Descriptors(pid_dir, "fd", "fdinfo", process);
    // The leader has exited (a zombie) while its threads run on: its fd
    // table is gone from /proc/<pid>/fd, and a live thread's still holds it.
    if (listed == 0 && state == 'Z') ThreadDescriptors(pid_dir, process);
    // Reading maps takes the process's mmap lock, which a process in
    // uninterruptible sleep may hold for as long as its I/O waits.
    if (state == 'D') report_->mapsSkipped.push_back(process.pid);
    else Mappings(pid_dir, process);
    close(pid_dir);
  }

 private:
  // The deleted files of one fd table; how many fds it listed, or -1.
  int Descriptors(int base, const char* fd_name, const char* info_name, const struct Process& process) {
    int fd_dir = openat(base, fd_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd_dir < 0) {
      if (errno != ENOENT) report_->unreadable.push_back({process.pid, process.uid, errno});
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
      report_->descriptors += 1;
      // readlink of an fd never asks its file system: the kernel names the dentry it holds.
      ssize_t length = readlinkat(fd_dir, entry->d_name, link, sizeof link - 1);
      if (length <= 0) continue;
      std::string target(link, static_cast<size_t>(length));
      if (!EndsDeleted(target)) continue;
      if (info_dir < 0) info_dir = openat(base, info_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      long mount_id = info_dir < 0 ? -1 : MountIdOf(info_dir, entry->d_name);
      dev_t device = mount_id < 0 ? 0 : namespaces_.DeviceOf(base, static_cast<uint32_t>(mount_id));
      if (device == 0) {
        report_->unknownMounts += 1;
        continue;
      }
      if (device != target_) continue;
      // On this file system: the one stat that asks it, and may wait on it.
      scan_->SetBusy("/proc/" + std::to_string(process.pid) + "/fd/" + entry->d_name + " (" + target + ")");
      struct stat st;
      int status = fstatat(fd_dir, entry->d_name, &st, 0);
      scan_->SetBusy("");
      if (status != 0 || st.st_nlink != 0) continue;  // a hard link is left: still visible, not held space
      Hold(st, target.substr(0, target.size() - kDeletedLength), {process.pid, atoi(entry->d_name), process.uid, process.command});
    }
    if (info_dir >= 0) close(info_dir);
    closedir(listing);
    return listed;
  }

  void ThreadDescriptors(int pid_dir, const struct Process& process) {
    int tasks = openat(pid_dir, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (tasks < 0) return;
    DIR* listing = fdopendir(tasks);
    if (listing == nullptr) {
      close(tasks);
      return;
    }
    while (struct dirent* entry = readdir(listing)) {
      if (entry->d_name[0] == '.' || atoi(entry->d_name) == process.pid) continue;
      std::string fd = std::string(entry->d_name) + "/fd", info = std::string(entry->d_name) + "/fdinfo";
      if (Descriptors(tasks, fd.c_str(), info.c_str(), process) > 0) break;  // threads share one table
    }
    closedir(listing);
  }

  // Deleted files mapped on this file system: maps gives the superblock device and inode of each.
  void Mappings(int pid_dir, const struct Process& process) {
    scan_->SetBusy("/proc/" + std::to_string(process.pid) + "/maps");
    std::string maps = ReadAt(pid_dir, "maps");
    scan_->SetBusy("");
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
      if (AddMapping(inode, holder)) continue;
      struct stat st;
      std::string link = std::string("map_files/") + range;
      scan_->SetBusy("/proc/" + std::to_string(process.pid) + "/" + link + " (" + path + ")");
      int status = fstatat(pid_dir, link.c_str(), &st, 0);
      scan_->SetBusy("");
      if (status == 0) {
        if (st.st_nlink == 0) Hold(st, path, holder);
        continue;
      }
      // map_files wants more privilege than maps: known to be held, not how much.
      DeletedFile file;
      file.inode = inode;
      file.path = path;
      file.holders.push_back(holder);
      by_inode_[inode] = report_->files.size();
      report_->files.push_back(std::move(file));
    }
  }

  // A mapping of a file already found (by an fd, or by another mapping): true when it was.
  bool AddMapping(uint64_t inode, const FileHolder& holder) {
    auto found = by_inode_.find(inode);
    if (found == by_inode_.end()) return false;
    auto& holders = report_->files[found->second].holders;
    for (const FileHolder& held : holders) {
      if (held.pid == holder.pid) return true;
    }
    holders.push_back(holder);
    return true;
  }

  void Hold(const struct stat& st, std::string path, FileHolder holder) {
    auto found = by_inode_.find(st.st_ino);
    if (found != by_inode_.end()) {
      DeletedFile& file = report_->files[found->second];
      if (!file.sized) {  // first met as a mapping that could not be sized
        file.sized = true;
        file.device = st.st_dev;
        file.allocated = static_cast<uint64_t>(st.st_blocks) * 512;
        file.size = static_cast<uint64_t>(st.st_size);
      }
      for (FileHolder& held : file.holders) {
        if (held.pid == holder.pid && (held.fd == holder.fd || held.fd == -1)) {
          held.fd = holder.fd;  // a mapping's holder, now known by an fd
          return;
        }
      }
      file.holders.push_back(std::move(holder));
      return;
    }
    DeletedFile file;
    file.device = st.st_dev;
    file.inode = st.st_ino;
    file.allocated = static_cast<uint64_t>(st.st_blocks) * 512;
    file.size = static_cast<uint64_t>(st.st_size);
    file.sized = true;
    file.path = std::move(path);
    file.holders.push_back(std::move(holder));
    by_inode_[st.st_ino] = report_->files.size();
    report_->files.push_back(std::move(file));
  }

  OpenFilesScan* scan_;
  OpenFilesReport* report_;
  dev_t target_;
  MountNamespaces namespaces_;
  std::unordered_map<uint64_t, size_t> by_inode_;
};

}  // namespace

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
  Finder finder(this, &report_, makedev(target_.major, target_.minor));
  while (struct dirent* entry = readdir(listing)) {
    if (entry->d_name[0] < '1' || entry->d_name[0] > '9') continue;
    finder.Process(proc, entry->d_name);
  }
  closedir(listing);
}

int OpenTreeClone(const char* path) {
  long fd = syscall(SYS_open_tree, AT_FDCWD, path, OPEN_TREE_CLONE | O_CLOEXEC);
  return fd < 0 ? -errno : static_cast<int>(fd);
}

}  // namespace diskprobe
