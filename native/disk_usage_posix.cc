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
#include <sys/sysmacros.h>
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

}  // namespace

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

  out->block_size = block_size;
  if (!Bytes(blocks, block_size, &out->total_bytes) ||
      !Bytes(bfree, block_size, &out->free_bytes) ||
      !Bytes(bavail, block_size, &out->avail_bytes)) {
    *syscall = kSyscallStatvfs;
    return EOVERFLOW;
  }
  if (out->files != 0) out->flags |= kHasInodes;

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
