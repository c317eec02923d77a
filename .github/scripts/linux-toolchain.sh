#!/bin/sh
# The prebuild workflow's Linux build containers: what a prebuild and the test
# suite need, per image. Runs as root inside the container.
#   node:20-alpine (musl): a compiler, Python for node-gyp, and GNU coreutils
#     (the df/du/stat the tests compare with; busybox's lack --output and -B1).
#   quay.io/pypa/manylinux_2_28_* (glibc 2.28, AlmaLinux 8, gcc-toolset with
#     its libstdc++ parts linked in statically): Node 20 itself, the newest
#     20.x from nodejs.org, checked against its SHASUMS256.txt. glibc 2.28 is
#     also Node 20's own floor, so any system that runs Node 20 loads the prebuild.
set -eu

if [ -f /etc/alpine-release ]; then
  apk add --no-cache build-base python3 coreutils
elif [ -d /opt/python ]; then
  case "$(uname -m)" in
    x86_64) arch=x64 ;;
    aarch64) arch=arm64 ;;
    *) echo "linux-toolchain.sh: no Node 20 for $(uname -m)" >&2; exit 1 ;;
  esac
  base=https://nodejs.org/dist/latest-v20.x
  curl -fsSL "$base/SHASUMS256.txt" -o /tmp/SHASUMS256.txt
  tarball=$(awk -v want="linux-$arch.tar.xz" 'substr($2, length($2) - length(want) + 1) == want { print $2 }' /tmp/SHASUMS256.txt)
  [ -n "$tarball" ] || { echo "linux-toolchain.sh: no linux-$arch tarball in $base" >&2; exit 1; }
  curl -fsSL "$base/$tarball" -o "/tmp/$tarball"
  (cd /tmp && grep " $tarball\$" SHASUMS256.txt | sha256sum -c -)
  tar -xJf "/tmp/$tarball" -C /usr/local --strip-components=1
else
  echo 'linux-toolchain.sh: expected node:20-alpine or a manylinux image' >&2
  exit 1
fi

echo "node $(node --version), npm $(npm --version), $(g++ --version | head -n 1)"
ldd --version 2>&1 | head -n 1 || true
df --version | head -n 1
