// The disk probe's platform-independent contract. Plain C++: no Node types,
// so the platform files can be built and tested without Node.
#ifndef DISKPROBE_DISK_USAGE_H_
#define DISKPROBE_DISK_USAGE_H_

#include <cstddef>
#include <cstdint>

namespace diskprobe {

// Longest UTF-8 path the probe accepts, in bytes, without the terminating NUL.
// POSIX kernels refuse PATH_MAX (4096) and longer with ENAMETOOLONG; Windows
// long paths (\\?\) reach 32,767 UTF-16 units, up to 3 UTF-8 bytes each.
#ifdef _WIN32
constexpr size_t kMaxPathBytes = 32767 * 3;
#else
constexpr size_t kMaxPathBytes = 4095;
#endif

// Room for a mount point or file system name reported by the OS itself
// (macOS statfs, Windows volume APIs). Linux leaves both empty: the mount
// table is read once in JS and matched by device id.
constexpr size_t kMaxNameBytes = 1024;

enum StatsFlags : uint32_t {
  kHasInodes = 1u << 0,  // the file system counts inodes (f_files != 0)
  kHasDevice = 1u << 1,  // device_major/device_minor are the path's st_dev
  kHasNames = 1u << 2,   // mount_point and fs_type are filled in
};

// One probe's answer. Every byte count is blocks x f_frsize (POSIX) or the
// exact byte count the OS reports (Windows).
struct DiskStats {
  uint64_t block_size;    // bytes: f_frsize, or the cluster size on Windows
  uint64_t total_bytes;   // f_blocks x f_frsize
  uint64_t free_bytes;    // f_bfree x f_frsize, root-reserved blocks included
  uint64_t avail_bytes;   // f_bavail x f_frsize: what an unprivileged caller may use
  uint64_t files;         // f_files
  uint64_t files_free;    // f_ffree
  uint64_t files_avail;   // f_favail
  uint64_t device_major;  // of the path's st_dev, when asked for
  uint64_t device_minor;
  uint64_t fsid;          // f_fsid: with the sizes, a fingerprint of the file system
  uint32_t flags;         // StatsFlags
  char mount_point[kMaxNameBytes];
  char fs_type[kMaxNameBytes];
};

// Names of the system calls an error can come from; JS reports them as the
// error's `syscall`, as Node's fs errors do.
enum Syscall : uint32_t {
  kSyscallNone = 0,
  kSyscallStatvfs,
  kSyscallStat,
  kSyscallStatfs,
  kSyscallGetDiskFreeSpaceEx,
  kSyscallGetFileAttributes,
  kSyscallGetVolumePathName,
  kSyscallMultiByteToWideChar,
};

#ifdef _WIN32
// A Win32 error as the POSIX errno JS reports, as libuv's uv_translate_sys_error maps it.
int Win32Errno(unsigned long error);
#endif

// Probes the file system holding `path` (UTF-8, NUL-terminated). Returns 0 and
// fills `out`, or returns a POSIX errno value (on Windows, the Win32 error
// mapped to its POSIX equivalent) and sets `*syscall`. With `with_device`,
// also stats the path for its device id (a second syscall, which callers
// that already know the path's mount skip). Allocates nothing on POSIX;
// safe to call from any thread.
int ProbePath(const char* path, bool with_device, DiskStats* out, Syscall* syscall);

// ProbeBeneath's answer when it cannot answer without the risk of blocking:
// the caller probes the usual way, on the addon's threads.
constexpr int kCannotProbeInline = -2;
// ProbeBeneath's answer when the path leads off its mount (a symlink or ".."
// to another mount), or may (a symlink it could not follow without leaving
// the lock-free walk): the probe belongs to wherever it leads.
constexpr int kLeavesMount = -3;

// Opens the root of the mount with id `mount_id` (the first field of
// /proc/self/mountinfo), found at `mount_point`, for ProbeBeneath. The lookup
// of `mount_point` is served from the kernel's dentry cache only
// (RESOLVE_CACHED: it fails rather than wait for I/O or a revalidation).
// Returns the descriptor, or -1 when the lookup would need the file systems,
// or another mount is found there. Linux 5.12 and later; elsewhere always -1.
int OpenMountRoot(const char* mount_point, uint64_t mount_id);
void CloseMountRoot(int root_fd);

// Probes `relative` (UTF-8, relative to the mount root `root_fd`; "" for the
// root itself) on the calling thread, without walking anything that could
// block: the path is resolved from the dentry cache alone (RESOLVE_CACHED) and
// never leaves the mount (RESOLVE_NO_XDEV, which also refuses symlinks and
// ".." that lead out), so no other file system, dead or alive, is asked
// anything. The statfs itself is the mount's own file system's: callers use
// this only on file systems whose statfs reads counters kept in memory (ext4,
// xfs, tmpfs, ...). Returns 0 and fills `out`, an errno from the lookup
// (ENOENT, ENOTDIR, ...), kLeavesMount when the path leads off the mount, or
// kCannotProbeInline.
int ProbeBeneath(int root_fd, const char* relative, DiskStats* out, Syscall* syscall);

// Whether `relative` (beneath the mount with id `mount_id`, found at
// `mount_point`) may lead off that mount: a symlink on the way (which may
// lead anywhere), or a mount crossed. For the addon's threads, where the
// inline probe could not tell (a path not in the kernel's cache yet): unlike
// ProbeBeneath, this walk reads what it needs from the mount's own storage,
// so it may wait on that. But it finds the mount's root from the cache alone,
// follows no symlink and stops at the mount's edge (RESOLVE_NO_XDEV), so it
// asks no other file system anything, and a dead mount the path leads to
// cannot hold it. false when the path stays on the mount, and whenever the
// walk cannot tell (no openat2 or RESOLVE_CACHED, an error, the mount is
// gone): the probe itself then answers. Linux 5.12 and later; elsewhere
// always false.
bool LeadsOffMount(const char* mount_point, uint64_t mount_id, const char* relative);

}  // namespace diskprobe

#endif  // DISKPROBE_DISK_USAGE_H_
