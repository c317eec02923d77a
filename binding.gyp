{
  "targets": [
    {
      "target_name": "diskprobe",
      "sources": ["native/addon.cc", "native/addon_scan.cc", "native/probe_pool.cc", "native/scan.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS", "NODE_ADDON_API_DISABLE_DEPRECATED"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions"],
      "cflags_cc": ["-std=c++17", "-Wall", "-Wextra"],
      "conditions": [
        ["OS=='win'", {
          "sources": ["native/disk_usage_win.cc", "native/mount_list_win.cc"],
          "defines": ["UNICODE", "_UNICODE", "WIN32_LEAN_AND_MEAN"],
          "msvs_settings": {"VCCLCompilerTool": {"ExceptionHandling": 1, "AdditionalOptions": ["/std:c++17"]}}
        }, {
          "sources": ["native/disk_usage_posix.cc", "native/mount_list_posix.cc"]
        }],
        ["OS=='linux'", {"sources": ["native/scan_linux.cc", "native/scan_posix.cc"]}],
        ["OS=='mac'", {"sources": ["native/scan_darwin.cc", "native/scan_posix.cc"]}],
        ["OS=='win'", {"sources": ["native/scan_win.cc"]}],
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
