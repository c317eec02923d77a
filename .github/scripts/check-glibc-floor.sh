#!/bin/sh
# Fails when a glibc prebuild needs more than the floor the README promises:
# glibc 2.28 (Node 20's own floor) and the libstdc++ of GCC 8 (GLIBCXX_3.4.25,
# CXXABI_1.3.11), which RHEL 8, Debian 10 and Ubuntu 18.10 and later have.
#   sh .github/scripts/check-glibc-floor.sh prebuilds/linux-x64/diskprobe.glibc.node
set -eu
status=0
for file in "$@"; do
  for pair in GLIBC:2.28 GLIBCXX:3.4.25 CXXABI:1.3.11; do
    name=${pair%%:*}
    floor=${pair#*:}
    need=$(objdump -T "$file" | grep -o "${name}_[0-9][0-9.]*" | sed "s/^${name}_//" | sort -uV | tail -n 1)
    if [ -z "$need" ]; then
      echo "ok   $file needs no $name symbol version"
    elif printf '%s\n%s\n' "$need" "$floor" | sort -V -C; then
      echo "ok   $file needs $name $need (floor $floor)"
    else
      echo "FAIL $file needs $name $need, above the floor $floor"
      status=1
    fi
  done
done
exit $status
