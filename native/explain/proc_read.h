// Reading /proc for explain's scan (proc(5)): small files whole, a
// process's maps with a deadline, its state, an fd's mount id, and the
// superblock device of each mount id, per mount namespace. Plain C++, Linux.
#ifndef DISKPROBE_PROC_READ_H_
#define DISKPROBE_PROC_READ_H_

#include <sys/types.h>

#include <map>
#include <string>
#include <unordered_map>

namespace diskprobe {

// The whole of a small /proc file, read relative to `dir`; empty when unreadable.
std::string ReadAt(int dir, const char* name);

// The maps at `path` of a process in uninterruptible sleep, read on a thread
// of its own: a read takes the process's mmap lock, which that process (or a
// writer queued behind it) may hold for as long as its I/O waits. False when
// it did not answer within kMapsWaitMs: the thread is left to it.
bool ReadMapsWithin(const std::string& path, std::string* out);

// The kernel's flag of a kernel thread (PF_KTHREAD, include/linux/sched.h): no files, no memory of its own.
constexpr unsigned long kKernelThread = 0x00200000;

struct TaskState {
  char state = '?';
  unsigned long flags = 0;
};

// The state letter and flags of /proc/<pid>/stat, or of a thread's.
TaskState StateOf(int task_dir);

// The mount id fdinfo gives an fd ("mnt_id:\t42"), or -1.
long MountIdOf(int fdinfo_dir, const char* fd);

// Mount ids are global, but mountinfo lists only one namespace's: a process
// in a container holds files on mounts this process's mountinfo does not
// list. Each namespace is read once, through a process in it.
class MountNamespaces {
 public:
  // The superblock device of mount `id` as the process or thread at `task_dir` sees it; 0 when unknown.
  dev_t DeviceOf(int task_dir, uint32_t id);

 private:
  std::map<ino_t, std::unordered_map<uint32_t, dev_t>> namespaces_;
};

}  // namespace diskprobe

#endif  // DISKPROBE_PROC_READ_H_
