// The directory walk's platform half on Windows. A directory is opened
// relative to its parent's handle (NtCreateFile with a root directory, from
// ntdll, which every process has loaded), so no path is ever spelled out and
// none is too long; it is listed with GetFileInformationByHandleEx
// (FileIdBothDirectoryInfo), which gives every entry's size, the allocation
// size that Explorer calls "size on disk", and its file id, in large
// batches. Reparse points (symlinks, junctions, mount points) are reported as
// they stand and never followed. The link count is not in a listing: a file
// with several hard links is counted at each (docs/du.md).
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <string>
#include <vector>

#include "../probe/disk_usage.h"
#include "scan_platform.h"

namespace diskprobe {
namespace scan {

namespace {

constexpr size_t kListBuffer = 64 * 1024;

// ntdll's NtCreateFile, as winternl.h would declare it; looked up at first
// use rather than imported, so the addon imports only kernel32 and the CRT.
struct UnicodeString {
  USHORT Length;
  USHORT MaximumLength;
  PWSTR Buffer;
};
struct ObjectAttributes {
  ULONG Length;
  HANDLE RootDirectory;
  UnicodeString* ObjectName;
  ULONG Attributes;
  PVOID SecurityDescriptor;
  PVOID SecurityQualityOfService;
};
struct IoStatusBlock {
  union {
    LONG Status;
    PVOID Pointer;
  };
  ULONG_PTR Information;
};
using NtCreateFileFn = LONG(WINAPI*)(PHANDLE, ACCESS_MASK, ObjectAttributes*, IoStatusBlock*, PLARGE_INTEGER, ULONG, ULONG, ULONG, ULONG, PVOID, ULONG);
using RtlNtStatusToDosErrorFn = ULONG(WINAPI*)(LONG);

constexpr ULONG kObjCaseInsensitive = 0x40;
constexpr ULONG kFileOpen = 1;
constexpr ULONG kFileDirectoryFile = 0x1;
constexpr ULONG kFileSynchronousIoNonalert = 0x20;
constexpr ULONG kFileOpenForBackupIntent = 0x4000;
constexpr ULONG kFileOpenReparsePoint = 0x200000;

struct Ntdll {
  NtCreateFileFn create = nullptr;
  RtlNtStatusToDosErrorFn to_dos = nullptr;
};

const Ntdll& GetNtdll() {
  static const Ntdll ntdll = [] {
    Ntdll found;
    HMODULE module = GetModuleHandleW(L"ntdll.dll");
    if (module != nullptr) {
      found.create = reinterpret_cast<NtCreateFileFn>(reinterpret_cast<void*>(GetProcAddress(module, "NtCreateFile")));
      found.to_dos = reinterpret_cast<RtlNtStatusToDosErrorFn>(reinterpret_cast<void*>(GetProcAddress(module, "RtlNtStatusToDosError")));
    }
    return found;
  }();
  return ntdll;
}

std::wstring Wide(const char* utf8, size_t length) {
  if (length == 0) return std::wstring();
  const int chars = MultiByteToWideChar(CP_UTF8, 0, utf8, static_cast<int>(length), nullptr, 0);
  std::wstring wide(static_cast<size_t>(chars), L'\0');
  MultiByteToWideChar(CP_UTF8, 0, utf8, static_cast<int>(length), &wide[0], chars);
  return wide;
}

std::string Utf8(const wchar_t* wide, size_t length) {
  if (length == 0) return std::string();
  const int bytes = WideCharToMultiByte(CP_UTF8, 0, wide, static_cast<int>(length), nullptr, 0, nullptr, nullptr);
  std::string utf8(static_cast<size_t>(bytes), '\0');
  WideCharToMultiByte(CP_UTF8, 0, wide, static_cast<int>(length), &utf8[0], bytes, nullptr, nullptr);
  return utf8;
}

// "C:\x" -> "\\?\C:\x", "\\server\share" -> "\\?\UNC\server\share": no length limit, no parsing.
std::wstring LongPath(const char* path) {
  std::wstring wide = Wide(path, strlen(path));
  if (wide.rfind(L"\\\\?\\", 0) == 0) return wide;
  if (wide.rfind(L"\\\\", 0) == 0) return L"\\\\?\\UNC\\" + wide.substr(2);
  return L"\\\\?\\" + wide;
}

uint64_t Join(DWORD high, DWORD low) { return (static_cast<uint64_t>(high) << 32) | low; }

// The facts of an open file or directory.
int FactsOf(HANDLE handle, Facts* facts) {
  BY_HANDLE_FILE_INFORMATION info;
  FILE_STANDARD_INFO standard;
  if (!GetFileInformationByHandle(handle, &info) || !GetFileInformationByHandleEx(handle, FileStandardInfo, &standard, sizeof standard)) {
    return Win32Errno(GetLastError());
  }
  facts->dev = info.dwVolumeSerialNumber;
  facts->ino = Join(info.nFileIndexHigh, info.nFileIndexLow);
  facts->nlink = info.nNumberOfLinks;
  facts->allocated = static_cast<uint64_t>(standard.AllocationSize.QuadPart);
  facts->apparent = static_cast<uint64_t>(standard.EndOfFile.QuadPart);
  // Not followed: a reparse point is what it is, not the directory it leads to.
  facts->is_dir = (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0 && (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) == 0;
  return 0;
}

// Opens `name` relative to `parent` (any object, directory or not, unless `directory`).
int OpenRelative(HANDLE parent, const char* name, size_t length, bool directory, HANDLE* out) {
  const Ntdll& ntdll = GetNtdll();
  if (ntdll.create == nullptr) return ENOSYS;
  std::wstring wide = Wide(name, length);
  UnicodeString object{static_cast<USHORT>(wide.size() * sizeof(wchar_t)), static_cast<USHORT>(wide.size() * sizeof(wchar_t)), &wide[0]};
  ObjectAttributes attributes{sizeof(ObjectAttributes), parent, &object, kObjCaseInsensitive, nullptr, nullptr};
  IoStatusBlock io{};
  const ULONG options = kFileSynchronousIoNonalert | kFileOpenForBackupIntent | kFileOpenReparsePoint | (directory ? kFileDirectoryFile : 0);
  const LONG status = ntdll.create(out, FILE_LIST_DIRECTORY | FILE_READ_ATTRIBUTES | SYNCHRONIZE, &attributes, &io, nullptr, 0,
                                   FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, kFileOpen, options, nullptr, 0);
  if (status < 0) return Win32Errno(ntdll.to_dos != nullptr ? ntdll.to_dos(status) : ERROR_ACCESS_DENIED);
  return 0;
}

}  // namespace

int StatPath(const char* path, Facts* facts) {
  HANDLE handle = CreateFileW(LongPath(path).c_str(), FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, OPEN_EXISTING,
                              FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT, nullptr);
  if (handle == INVALID_HANDLE_VALUE) return Win32Errno(GetLastError());
  const int error = FactsOf(handle, facts);
  CloseHandle(handle);
  return error;
}

int OpenPath(const char* path, Dir* out) {
  HANDLE handle = CreateFileW(LongPath(path).c_str(), FILE_LIST_DIRECTORY | FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                              OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT, nullptr);
  if (handle == INVALID_HANDLE_VALUE) return Win32Errno(GetLastError());
  out->handle = reinterpret_cast<intptr_t>(handle);
  return 0;
}

int OpenChild(const Dir& parent, const char* name, size_t length, Dir* out) {
  HANDLE handle = INVALID_HANDLE_VALUE;
  const int error = OpenRelative(reinterpret_cast<HANDLE>(parent.handle), name, length, true, &handle);
  if (error != 0) return error;
  out->handle = reinterpret_cast<intptr_t>(handle);
  return 0;
}

int StatChild(const Dir& parent, const char* name, size_t length, Facts* facts, WalkSyscall* syscall) {
  *syscall = kWalkStat;
  HANDLE handle = INVALID_HANDLE_VALUE;
  int error = OpenRelative(reinterpret_cast<HANDLE>(parent.handle), name, length, false, &handle);
  if (error != 0) return error;
  error = FactsOf(handle, facts);
  CloseHandle(handle);
  return error;
}

int List(const Dir& dir, EntrySink* sink, std::vector<char>* scratch) {
  HANDLE handle = reinterpret_cast<HANDLE>(dir.handle);
  Facts self;
  const int error = FactsOf(handle, &self);
  if (error != 0) return error;
  // 8-byte aligned, as the records are: vector<char> storage comes from operator new, aligned for any scalar.
  if (scratch->size() < kListBuffer) scratch->resize(kListBuffer);
  char* buffer = scratch->data();
  for (;;) {
    if (sink->Stopped()) return 0;
    if (!GetFileInformationByHandleEx(handle, FileIdBothDirectoryInfo, buffer, kListBuffer)) {
      const DWORD last = GetLastError();
      return last == ERROR_NO_MORE_FILES ? 0 : Win32Errno(last);
    }
    for (const char* at = buffer;;) {
      const auto* entry = reinterpret_cast<const FILE_ID_BOTH_DIR_INFO*>(at);
      const size_t chars = entry->FileNameLength / sizeof(wchar_t);
      const wchar_t* wide = entry->FileName;
      const bool dots = (chars == 1 && wide[0] == L'.') || (chars == 2 && wide[0] == L'.' && wide[1] == L'.');
      if (!dots) {
        const std::string name = Utf8(wide, chars);
        const Decision decision = sink->Decide(name.data(), name.size());
        if (decision != Decision::kStat) {
          sink->Set(name.data(), name.size(), decision);
        } else {
          Facts facts;
          facts.dev = self.dev;  // every entry of a listing is on the directory's volume; mount points are reparse points
          facts.ino = static_cast<uint64_t>(entry->FileId.QuadPart);
          facts.allocated = static_cast<uint64_t>(entry->AllocationSize.QuadPart);
          facts.apparent = static_cast<uint64_t>(entry->EndOfFile.QuadPart);
          facts.is_dir = (entry->FileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0 && (entry->FileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) == 0;
          sink->Entry(name.data(), name.size(), &facts, 0, kWalkRead);
        }
        if (sink->Stopped()) return 0;
      }
      if (entry->NextEntryOffset == 0) break;
      at += entry->NextEntryOffset;
    }
  }
}

void Close(Dir* dir) {
  if (dir->handle != -1) CloseHandle(reinterpret_cast<HANDLE>(dir->handle));
  dir->handle = -1;
}

}  // namespace scan
}  // namespace diskprobe
