// POSIX probe: statvfs for the counts, stat for the device that holds the path.
// On macOS, statfs instead (see below), which also names the mount and its type.
#include "disk_usage.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>

#if defined(__APPLE__)
#include <sys/mount.h>
#include <sys/param.h>
#endif

#if defined(__linux__)
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#endif

#if defined(__linux__)
// openat2(2) (Linux 5.6; RESOLVE_CACHED 5.12). Declared here rather than from
// <linux/openat2.h>, which older build images lack; the values are the
// kernel's ABI, and openat2 has number 437 on every architecture.
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
namespace {
struct OpenHow {
  uint64_t flags;
  uint64_t mode;
  uint64_t resolve;
};
constexpr uint64_t kResolveNoXdev = 0x01;
constexpr uint64_t kResolveNoMagiclinks = 0x02;
constexpr uint64_t kResolveNoSymlinks = 0x04;
constexpr uint64_t kResolveCached = 0x20;
}  // namespace
#endif

namespace diskprobe {

namespace {

// Byte counts above 2^64 cannot be represented; no real file system reaches
// them, but a lying FUSE daemon could, and a wrapped count would be silent.
bool Bytes(uint64_t blocks, uint64_t block_size, uint64_t* out) {
  return !__builtin_mul_overflow(blocks, block_size, out);
}

#if defined(__APPLE__)
void CopyName(char* dst, const char* src) {
  size_t n = strnlen(src, kMaxNameBytes - 1);
  memcpy(dst, src, n);
  dst[n] = '\0';
}
#endif

// The byte counts from block counts, and the flags that depend on them.
int FillBytes(uint64_t blocks, uint64_t bfree, uint64_t bavail, uint64_t block_size, DiskStats* out, Syscall* syscall) {
  out->block_size = block_size;
  if (!Bytes(blocks, block_size, &out->total_bytes) ||
      !Bytes(bfree, block_size, &out->free_bytes) ||
      !Bytes(bavail, block_size, &out->avail_bytes)) {
    *syscall = kSyscallStatvfs;
    return EOVERFLOW;
  }
  if (out->files != 0) out->flags |= kHasInodes;
  return 0;
}

#if defined(__linux__)
int OpenAt2(int dir_fd, const char* path, uint64_t flags, uint64_t resolve) {
  OpenHow how = {flags, 0, resolve};
  return static_cast<int>(syscall(SYS_openat2, dir_fd, path, &how, sizeof how));
}

// The mount id of an open file, from /proc/self/fdinfo (procfs: no other
// file system is asked). 0 when it cannot be read.
uint64_t MountIdOf(int fd) {
  char name[64];
  snprintf(name, sizeof name, "/proc/self/fdinfo/%d", fd);
  int info = open(name, O_RDONLY | O_CLOEXEC);
  if (info < 0) return 0;
  char text[512];
  ssize_t length = read(info, text, sizeof text - 1);
  close(info);
  if (length <= 0) return 0;
  text[length] = '\0';
  const char* field = strstr(text, "mnt_id:");
  return field ? strtoull(field + 7, nullptr, 10) : 0;
}
#endif

}  // namespace

#if defined(__linux__)
int OpenMountRoot(const char* mount_point, uint64_t mount_id) {
  int fd = OpenAt2(AT_FDCWD, mount_point, O_PATH | O_DIRECTORY | O_CLOEXEC, kResolveCached | kResolveNoMagiclinks);
  if (fd < 0) return -1;
  if (MountIdOf(fd) != mount_id) {  // over-mounted, or the table is out of date
    close(fd);
    return -1;
  }
  return fd;
}

void CloseMountRoot(int root_fd) {
  if (root_fd >= 0) close(root_fd);
}

int ProbeBeneath(int root_fd, const char* relative, DiskStats* out, Syscall* syscall) {
  out->flags = 0;
  out->mount_point[0] = '\0';
  out->fs_type[0] = '\0';
  // The mount point itself: its root is open already.
  const bool at_root = relative[0] == '\0';
  int fd = root_fd;
  if (!at_root) {
    // RESOLVE_CACHED also fails (EAGAIN) when a mount or rename elsewhere
    // disturbed the lock-free walk; a second try then usually succeeds.
    for (int attempt = 0; attempt < 2; ++attempt) {
      fd = OpenAt2(root_fd, relative, O_PATH | O_CLOEXEC, kResolveNoXdev | kResolveCached | kResolveNoMagiclinks);
      if (fd >= 0 || errno != EAGAIN) break;
    }
    // Following a symlink whose atime is due an update (relatime: once a day)
    // leaves the lock-free walk too, so an uncached walk cannot tell whether
    // the path leads off the mount. Without following any symlink: ELOOP says
    // there is one on the way, which may lead anywhere, so the path is taken
    // as its own (see kLeavesMount).
    if (fd < 0 && errno == EAGAIN) {
      const int plain = OpenAt2(root_fd, relative, O_PATH | O_CLOEXEC, kResolveNoXdev | kResolveCached | kResolveNoSymlinks);
      const int error = errno;
      if (plain >= 0) close(plain);
      if (plain < 0 && error == ELOOP) return kLeavesMount;
      errno = EAGAIN;
    }
  }
  if (fd < 0) {
    const int error = errno;
    // EXDEV: leads to another mount. EAGAIN: not all in the cache; ELOOP: a
    // magic link; ENOSYS, EINVAL, E2BIG, EPERM: no openat2 (or a seccomp
    // filter against it). The usual probe answers all of these.
    if (error == EXDEV) return kLeavesMount;
    if (error == EAGAIN || error == ELOOP || error == ENOSYS || error == EINVAL || error == E2BIG || error == EPERM) {
      return kCannotProbeInline;
    }
    *syscall = kSyscallStatvfs;
    return error;
  }
  struct statvfs vfs;
  const int status = fstatvfs(fd, &vfs);
  const int error = errno;
  if (!at_root) close(fd);
  if (status != 0) {
    *syscall = kSyscallStatvfs;
    return error;
  }
  out->files = vfs.f_files;
  out->files_free = vfs.f_ffree;
  out->files_avail = vfs.f_favail;
  out->fsid = vfs.f_fsid;
  return FillBytes(vfs.f_blocks, vfs.f_bfree, vfs.f_bavail, vfs.f_frsize ? vfs.f_frsize : vfs.f_bsize, out, syscall);
}

bool LeadsOffMount(const char* mount_point, uint64_t mount_id, const char* relative) {
  if (relative[0] == '\0' || mount_id == 0) return false;  // the mount point itself, or no id to check
  // The mount's root from the cache alone (mount points are pinned there):
  // walking to it uncached could revalidate a parent on NFS or FUSE.
  const int root = OpenMountRoot(mount_point, mount_id);
  if (root < 0) return false;
  // No symlink is followed: one may lead anywhere, and following it could
  // trigger an automount or reach a dead mount before RESOLVE_NO_XDEV stops
  // the walk. So a symlink on the way (ELOOP) counts as leading off, as does
  // a mount crossed (EXDEV: the table changed since JS read it).
  const int fd = OpenAt2(root, relative, O_PATH | O_CLOEXEC, kResolveNoXdev | kResolveNoSymlinks);
  const int error = errno;
  if (fd >= 0) close(fd);
  CloseMountRoot(root);
  return fd < 0 && (error == EXDEV || error == ELOOP);
}
#else
int OpenMountRoot(const char*, uint64_t) { return -1; }
void CloseMountRoot(int) {}
int ProbeBeneath(int, const char*, DiskStats*, Syscall*) { return kCannotProbeInline; }
bool LeadsOffMount(const char*, uint64_t, const char*) { return false; }
#endif

int ProbePath(const char* path, bool with_device, DiskStats* out, Syscall* syscall) {
  out->flags = 0;
  out->mount_point[0] = '\0';
  out->fs_type[0] = '\0';

#if defined(__APPLE__)
  // macOS's statvfs has 32-bit block counts (fsblkcnt_t is unsigned int), so
  // it caps at 16 TiB with 4 KiB blocks. statfs is 64-bit, and there f_bsize
  // is the fundamental block size: the unit f_blocks is counted in.
  struct statfs fs;
  if (statfs(path, &fs) != 0) {
    *syscall = kSyscallStatfs;
    return errno;
  }
  const uint64_t block_size = fs.f_bsize;
  const uint64_t blocks = fs.f_blocks, bfree = fs.f_bfree, bavail = fs.f_bavail;
  out->files = fs.f_files;
  out->files_free = fs.f_ffree;
  out->files_avail = fs.f_ffree;  // macOS has no f_favail
  out->fsid = (static_cast<uint64_t>(static_cast<uint32_t>(fs.f_fsid.val[0])) << 32) |
              static_cast<uint32_t>(fs.f_fsid.val[1]);
  CopyName(out->mount_point, fs.f_mntonname);
  CopyName(out->fs_type, fs.f_fstypename);
  out->flags |= kHasNames;
#else
  struct statvfs vfs;
  if (statvfs(path, &vfs) != 0) {
    *syscall = kSyscallStatvfs;
    return errno;
  }
  // f_frsize, not f_bsize: block counts are in fragments. They differ on
  // virtiofs, ZFS, CephFS and FUSE, where f_bsize is up to 256x larger.
  const uint64_t block_size = vfs.f_frsize ? vfs.f_frsize : vfs.f_bsize;
  const uint64_t blocks = vfs.f_blocks, bfree = vfs.f_bfree, bavail = vfs.f_bavail;
  out->files = vfs.f_files;
  out->files_free = vfs.f_ffree;
  out->files_avail = vfs.f_favail;
  out->fsid = vfs.f_fsid;
#endif

  if (int error = FillBytes(blocks, bfree, bavail, block_size, out, syscall)) return error;

  // The device id tells which mount holds the path (bind and nested mounts
  // share prefixes, not devices); JS matches it against the mount table.
  if (!with_device) return 0;
  struct stat st;
  if (stat(path, &st) != 0) {
    *syscall = kSyscallStat;
    return errno;
  }
  out->device_major = major(st.st_dev);
  out->device_minor = minor(st.st_dev);
  out->flags |= kHasDevice;
  return 0;
}

}  // namespace diskprobe
