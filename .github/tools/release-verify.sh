#!/usr/bin/env bash
# Checks the archives a goreleaser run left in $1 (default .cache/dist): checksums.txt holds
# every archive and agrees with it; each archive carries vipctl, the libwasmvm it links, the
# README, man pages and completions; and the vipctl unpacked from it runs from there and
# prints the commit it was built from.
set -euo pipefail
dist=${1:-.cache/dist}
commit=$(git rev-parse HEAD)
cd "$dist"
sha256sum --quiet -c checksums.txt
shopt -s nullglob
archives=(vipctl_*.tar.gz)
[ ${#archives[@]} -gt 0 ] || { echo "release-verify: no archive in $dist" >&2; exit 1; }
for a in "${archives[@]}"; do
  grep -q " $a\$" checksums.txt || { echo "release-verify: $a is not in checksums.txt" >&2; exit 1; }
  listing=$(tar -tzf "$a")
  for want in vipctl libwasmvm.x86_64.so README.md manpages/vipctl.1 manpages/vipctl-deploy.1 completions/vipctl.bash completions/vipctl.zsh completions/vipctl.fish; do
    grep -qx "$want" <<<"$listing" || { echo "release-verify: $a lacks $want" >&2; exit 1; }
  done
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  tar -xzf "$a" -C "$tmp"
  grep -q "\$ORIGIN" < <(readelf -d "$tmp/vipctl") || { echo "release-verify: $a's vipctl has no \$ORIGIN run path" >&2; exit 1; }
  out=$(env -i "$tmp/vipctl" version)
  case "$out" in
    *"commit $commit"*) echo "release-verify: $a: $out" ;;
    *) echo "release-verify: $a's vipctl says \"$out\", not commit $commit" >&2; exit 1 ;;
  esac
  rm -rf "$tmp"
  trap - EXIT
done
