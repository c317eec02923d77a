// Windows: the addon's imports of node.exe are delay-loaded, and this hook
// binds them to whichever executable hosts the addon (node.exe, a renamed
// node, electron.exe), instead of a file that must be called node.exe.
//
// For the prebuilds only (Zig's clang and mingw-w64 headers: scripts/prebuild.mjs). MSVC builds
// through node-gyp get node-gyp's own hook, and its delayimp.h declares the
// hook const, which this definition would contradict (C2373).
#if defined(_WIN32) && !defined(_MSC_VER)

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <delayimp.h>
#include <string.h>

namespace {

FARPROC WINAPI BindToHost(unsigned event, PDelayLoadInfo info) {
  if (event == dliNotePreLoadLibrary && _stricmp(info->szDll, "node.exe") == 0) {
    return reinterpret_cast<FARPROC>(GetModuleHandleW(nullptr));
  }
  return nullptr;
}

}  // namespace

// Defined here, declared extern "C" in delayimp.h: the delay-load helper calls it.
PfnDliHook __pfnDliNotifyHook2 = BindToHost;

#endif  // _WIN32
