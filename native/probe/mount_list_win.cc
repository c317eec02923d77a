#include "mount_list.h"

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <errno.h>

namespace diskprobe {

namespace {
std::string Utf8(const wchar_t* wide) {
  int n = WideCharToMultiByte(CP_UTF8, 0, wide, -1, nullptr, 0, nullptr, nullptr);
  if (n <= 1) return std::string();
  std::string out(static_cast<size_t>(n - 1), '\0');
  WideCharToMultiByte(CP_UTF8, 0, wide, -1, &out[0], n, nullptr, nullptr);
  return out;
}
}  // namespace

int ListMounts(std::vector<MountEntry>* out) {
  wchar_t drives[27 * 4 + 1];
  DWORD len = GetLogicalDriveStringsW(static_cast<DWORD>(sizeof drives / sizeof drives[0]), drives);
  if (len == 0 || len > sizeof drives / sizeof drives[0]) return EIO;
  // Never touch the media of removable drives: an empty card reader would
  // raise the "insert a disk" dialog.
  UINT previous = SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX);
  for (const wchar_t* root = drives; *root; root += wcslen(root) + 1) {
    MountEntry entry;
    entry.mount_point = Utf8(root);
    UINT type = GetDriveTypeW(root);
    entry.remote = type == DRIVE_REMOTE;
    wchar_t device[MAX_PATH] = L"";
    wchar_t drive[3] = {root[0], L':', L'\0'};
    if (QueryDosDeviceW(drive, device, MAX_PATH)) entry.device = Utf8(device);
    wchar_t fs_name[MAX_PATH + 1] = L"";
    DWORD flags = 0;
    // Network drives are not asked: a dead share would block here.
    if (type != DRIVE_REMOTE &&
        GetVolumeInformationW(root, nullptr, 0, nullptr, nullptr, &flags, fs_name, MAX_PATH + 1)) {
      entry.fs_type = Utf8(fs_name);
      entry.read_only = (flags & FILE_READ_ONLY_VOLUME) != 0;
    }
    out->push_back(std::move(entry));
  }
  SetErrorMode(previous);
  return 0;
}

struct MountTableWatch::State {};

MountTableWatch::~MountTableWatch() {}

bool MountTableWatch::Start() { return false; }

bool MountTableWatch::Changed() { return true; }

uint64_t MountTableWatch::Generation() {
  static uint64_t unwatched = 0;
  return ++unwatched;
}

}  // namespace diskprobe
