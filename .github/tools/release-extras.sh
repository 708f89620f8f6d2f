#!/usr/bin/env bash
# goreleaser's post-build hook (.goreleaser.yaml): puts beside the vipctl binary it is given
# ($1) what its archive carries into $2: the libwasmvm that binary links (found by ldd, so it
# is the one the build used), a man page per command and the shell completions, written by
# that binary.
set -euo pipefail
bin=$1 out=$2
rm -rf "$out"
mkdir -p "$out/manpages" "$out/completions"
lib=$(ldd "$bin" | awk '$1 == "libwasmvm.x86_64.so" { print $3 }')
if [ ! -f "$lib" ]; then
  echo "release-extras: $bin does not link libwasmvm.x86_64.so from a file (ldd: ${lib:-none})" >&2
  exit 1
fi
cp "$lib" "$out/"
"$bin" man --dir "$out/manpages" >/dev/null
for shell in bash zsh fish; do
  "$bin" completion "$shell" >"$out/completions/vipctl.$shell"
done
