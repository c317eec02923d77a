// Windows probe: GetDiskFreeSpaceExW on the volume that holds the path.
// Unlike Node's fs.statfs, it keeps the caller's quota (FreeBytesAvailable-
// ToCaller) apart from the volume's free space, and counts bytes in 64 bits
// instead of capping a 32-bit block count.
#include "disk_usage.h"

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <errno.h>
#include <string.h>
#include <wchar.h>

namespace diskprobe {

// The Win32 errors a path probe can meet, as the POSIX errno JS reports.
// The mapping follows libuv's uv_translate_sys_error, so codes match fs.
int Win32Errno(unsigned long error) {
  switch (error) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_DRIVE:
    case ERROR_INVALID_NAME:
    case ERROR_BAD_PATHNAME:
    case ERROR_BAD_NETPATH:
    case ERROR_BAD_NET_NAME:
    case ERROR_NOT_READY:
    case ERROR_UNRECOGNIZED_VOLUME:
      return ENOENT;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
      return EACCES;
    case ERROR_DIRECTORY:
      return ENOTDIR;
    case ERROR_FILENAME_EXCED_RANGE:
      return ENAMETOOLONG;
    case ERROR_NO_UNICODE_TRANSLATION:
      return EINVAL;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
      return ENOMEM;
    case ERROR_SEM_TIMEOUT:
      return ETIMEDOUT;
    default:
      return EIO;
  }
}


namespace {

constexpr DWORD kWideChars = 32768;

int Fail(Syscall which, Syscall* syscall) {
  *syscall = which;
  return Win32Errno(GetLastError());
}

// Writes `wide` as UTF-8 into `dst`, dropping the \\?\ prefix that long paths
// carry (\\?\UNC\server\share\ becomes \\server\share\), so mount points read
// as users write them.
void ToUtf8Name(const wchar_t* wide, char* dst) {
  wchar_t unc[kMaxNameBytes];
  if (wcsncmp(wide, L"\\\\?\\UNC\\", 8) == 0) {
    unc[0] = L'\\';
    wcsncpy(unc + 1, wide + 7, kMaxNameBytes - 2);
    unc[kMaxNameBytes - 1] = L'\0';
    wide = unc;
  } else if (wcsncmp(wide, L"\\\\?\\", 4) == 0) {
    wide += 4;
  }
  int n = WideCharToMultiByte(CP_UTF8, 0, wide, -1, dst, static_cast<int>(kMaxNameBytes), nullptr, nullptr);
  if (n <= 0) dst[0] = '\0';
}

}  // namespace

int ProbePath(const char* path, bool with_device, DiskStats* out, Syscall* syscall) {
  (void)with_device;  // the volume APIs name the mount themselves
  // Thread-local, not on the stack: 64 KiB each, and no per-call allocation.
  thread_local wchar_t wide_path[kWideChars];
  thread_local wchar_t volume[kWideChars];

  out->flags = 0;
  out->mount_point[0] = '\0';
  out->fs_type[0] = '\0';
  out->files = out->files_free = out->files_avail = 0;  // NTFS has no inode counts to report
  out->device_major = out->device_minor = out->fsid = 0;

  if (MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, wide_path, kWideChars) == 0) {
    return Fail(kSyscallMultiByteToWideChar, syscall);
  }
  // Existence first: GetVolumePathNameW answers for paths that do not exist.
  if (GetFileAttributesW(wide_path) == INVALID_FILE_ATTRIBUTES) {
    return Fail(kSyscallGetFileAttributes, syscall);
  }
  // The volume root, not the path: GetDiskFreeSpaceExW wants a directory, and
  // a folder mount point inside C:\ must report its own volume.
  if (!GetVolumePathNameW(wide_path, volume, kWideChars)) {
    return Fail(kSyscallGetVolumePathName, syscall);
  }

  ULARGE_INTEGER avail_to_caller, total, total_free;
  if (!GetDiskFreeSpaceExW(volume, &avail_to_caller, &total, &total_free)) {
    return Fail(kSyscallGetDiskFreeSpaceEx, syscall);
  }
  out->total_bytes = total.QuadPart;
  out->free_bytes = total_free.QuadPart;       // the whole volume's free space
  out->avail_bytes = avail_to_caller.QuadPart;  // after this user's quota

  // Only for the cluster size: this older call's counts are capped at 2^32.
  DWORD sectors_per_cluster, bytes_per_sector, free_clusters, total_clusters;
  out->block_size = GetDiskFreeSpaceW(volume, &sectors_per_cluster, &bytes_per_sector,
                                      &free_clusters, &total_clusters)
                        ? static_cast<uint64_t>(sectors_per_cluster) * bytes_per_sector
                        : 0;

  wchar_t fs_name[MAX_PATH + 1];
  if (GetVolumeInformationW(volume, nullptr, 0, nullptr, nullptr, nullptr, fs_name, MAX_PATH + 1)) {
    ToUtf8Name(fs_name, out->fs_type);
  }
  ToUtf8Name(volume, out->mount_point);
  out->flags |= kHasNames;
  return 0;
}

// No inline probes on Windows: every probe runs on the addon's threads.
int OpenMountRoot(const char*, uint64_t) { return -1; }
void CloseMountRoot(int) {}
int ProbeBeneath(int, const char*, DiskStats*, Syscall*) { return kCannotProbeInline; }
bool LeadsOffMount(const char*, uint64_t, const char*) { return false; }

}  // namespace diskprobe
