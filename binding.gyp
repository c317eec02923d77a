{
  "targets": [
    {
      "target_name": "diskprobe",
      "sources": [
        "native/addon/addon.cc", "native/addon/addon_probe.cc", "native/addon/addon_scan.cc", "native/addon/addon_explain.cc",
        "native/probe/probe_pool.cc",
        "native/walk/scan.cc", "native/walk/scan_state.cc", "native/walk/mount_trie.cc", "native/walk/dedupe.cc", "native/walk/snapshot.cc"
      ],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS", "NODE_ADDON_API_DISABLE_DEPRECATED"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions"],
      "cflags_cc": ["-std=c++17", "-Wall", "-Wextra"],
      "conditions": [
        ["OS=='win'", {
          "sources": ["native/probe/disk_usage_win.cc", "native/probe/mount_list_win.cc"],
          "defines": ["UNICODE", "_UNICODE", "WIN32_LEAN_AND_MEAN"],
          "msvs_settings": {"VCCLCompilerTool": {"ExceptionHandling": 1, "AdditionalOptions": ["/std:c++17"]}}
        }, {
          "sources": ["native/probe/disk_usage_posix.cc", "native/probe/mount_list_posix.cc"]
        }],
        ["OS=='linux'", {"sources": ["native/walk/scan_linux.cc", "native/walk/scan_posix.cc", "native/explain/open_files_linux.cc", "native/explain/proc_read.cc", "native/explain/held_set.cc"]}, {"sources": ["native/explain/open_files_other.cc"]}],
        ["OS=='mac'", {"sources": ["native/walk/scan_darwin.cc", "native/walk/scan_posix.cc"]}],
        ["OS=='win'", {"sources": ["native/walk/scan_win.cc"]}],
        ["OS=='linux'", {
          "libraries": ["-ldl"]
        }],
        ["OS=='mac'", {
          "xcode_settings": {
            "GCC_ENABLE_CPP_EXCEPTIONS": "YES",
            "CLANG_CXX_LANGUAGE_STANDARD": "c++17",
            "MACOSX_DEPLOYMENT_TARGET": "10.15",
            "OTHER_CFLAGS": ["-arch x86_64", "-arch arm64"],
            "OTHER_LDFLAGS": ["-arch x86_64", "-arch arm64"]
          }
        }]
      ]
    }
  ]
}
