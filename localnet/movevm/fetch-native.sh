#!/usr/bin/env bash
# Installs Initia's Move VM and compiler libraries (BUSL-1.1, non-production use: installed
# at set-up, never committed) from the pinned npm package into .cache/movevm, and verifies
# them against native.sha256. npm checks the package tarball against the registry's
# integrity; this script checks the two libraries taken from it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dest="${VIPHARNESS_MOVEVM:-$root/.cache/movevm}"
pkg="@initia/builder.js@0.2.12"
if [ "$(uname -m)" != x86_64 ]; then
  echo "movevm: only the x86_64 libraries are pinned (this machine is $(uname -m))" >&2
  exit 1
fi
if [ -d "$dest" ] && (cd "$dest" && sha256sum --quiet --status -c "$here/native.sha256" 2>/dev/null); then
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "movevm: fetching $pkg from npm"
npm pack "$pkg" --pack-destination "$tmp" --silent --no-audit --no-fund >/dev/null
tar -xzf "$tmp"/initia-builder.js-*.tgz -C "$tmp" package/library/libmovevm.x86_64.so package/library/libcompiler.x86_64.so
mkdir -p "$dest"
cp "$tmp"/package/library/libmovevm.x86_64.so "$tmp"/package/library/libcompiler.x86_64.so "$dest/"
if ! (cd "$dest" && sha256sum --quiet -c "$here/native.sha256"); then
  rm -f "$dest"/libmovevm.x86_64.so "$dest"/libcompiler.x86_64.so
  echo "movevm: checksum mismatch for the libraries of $pkg; nothing installed" >&2
  exit 1
fi
echo "movevm: libraries verified in $dest"
