#!/usr/bin/env bash
# Lays out the build context of cmd/vipctl/Dockerfile in $2 from $1: a release archive
# (vipctl_<version>_linux_amd64.tar.gz) or a folder laid out as one (vipctl and
# libwasmvm.x86_64.so side by side). Adds the program loader and every library ldd names
# for vipctl and libwasmvm, at their paths on this machine; Initia's Move libraries from
# $3 (default: $VIPHARNESS_MOVEVM, else .cache/movevm) when they are there; the CA
# certificates; an empty /tmp.
set -euo pipefail
src=$1 ctx=$2 movevm=${3:-${VIPHARNESS_MOVEVM:-.cache/movevm}}
rootfs=$ctx/rootfs
rm -rf "$ctx"
mkdir -p "$rootfs/usr/local/bin" "$rootfs/usr/local/lib" "$rootfs/tmp"
chmod 1777 "$rootfs/tmp"
if [ -d "$src" ]; then
  cp -L "$src/vipctl" "$rootfs/usr/local/bin/vipctl"
  cp -L "$src/libwasmvm.x86_64.so" "$rootfs/usr/local/lib/"
else
  tar -xzf "$src" -C "$rootfs/usr/local/bin" vipctl
  tar -xzf "$src" -C "$rootfs/usr/local/lib" libwasmvm.x86_64.so
fi
libs=("$rootfs/usr/local/bin/vipctl" "$rootfs/usr/local/lib/libwasmvm.x86_64.so")
if [ -f "$movevm/libmovevm.x86_64.so" ] && [ -f "$movevm/libcompiler.x86_64.so" ]; then
  mkdir -p "$rootfs/usr/local/lib/vipctl/movevm"
  cp -L "$movevm"/lib{movevm,compiler}.x86_64.so "$rootfs/usr/local/lib/vipctl/movevm/"
  libs+=("$rootfs"/usr/local/lib/vipctl/movevm/*.so)
fi
# "name => /path (addr)" and the loader's "/path (addr)"; libwasmvm is carried already.
for f in "${libs[@]}"; do
  LD_LIBRARY_PATH=$rootfs/usr/local/lib ldd "$f" | awk '
    $2 == "=>" && $3 ~ /^\// { print $3 }
    $1 ~ /^\// { print $1 }'
done | sort -u | while read -r lib; do
  case "$lib" in "$rootfs"/*) continue ;; esac
  mkdir -p "$rootfs$(dirname "$lib")"
  cp -L "$lib" "$rootfs$lib"
done
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  mkdir -p "$rootfs/etc/ssl/certs"
  cp -L /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/"
fi
