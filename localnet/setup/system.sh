#!/usr/bin/env bash
# The one system set-up path, shared by `make demo`, `make test` and .ci/run: installs the
# Debian packages a goal needs (apt-get as root, or through sudo where it asks no password)
# and, where it cannot, prints one line per missing piece with the command that installs it.
# It never fails for a missing piece: the tests that need one skip with a line that names it
# (or fail under CI=true / REQUIRE_*=1).
#
#   bash localnet/setup/system.sh demo   # the demo: Node and npm (Move libraries, solc)
#   bash localnet/setup/system.sh test   # + the Wasm contract's Rust toolchain, gcc, Docker
set -euo pipefail
goal="${1:-test}"

# piece|check|packages: check is a command name or "dpkg:<package>".
pieces=(
  "node (solc and the Move libraries come from npm)|node|nodejs npm"
  "npm|npm|npm"
)
if [ "$goal" = test ]; then
  pieces+=(
    "gcc (cgo: wasmvm, the Move shim)|gcc|gcc libc6-dev"
    "git|git|git"
    "Debian rustc 1.63 with the wasm32 std (contracts/wasm rebuild check)|dpkg:libstd-rust-dev-wasm32|rustc cargo libstd-rust-dev-wasm32"
    "lld (contracts/wasm linker)|dpkg:lld|lld"
    "binaryen wasm-opt (contracts/wasm)|dpkg:binaryen|binaryen"
    "wabt (contracts/wasm)|dpkg:wabt|wabt"
    "Docker engine (container engine specs)|dpkg:docker.io|docker.io"
  )
fi

have() {
  case "$1" in
    dpkg:*) dpkg-query -W -f='${Status}' "${1#dpkg:}" 2>/dev/null | grep -q 'install ok installed' ;;
    *) command -v "$1" >/dev/null 2>&1 ;;
  esac
}

missing=() packages=()
for p in "${pieces[@]}"; do
  IFS='|' read -r what check pkgs <<<"$p"
  if ! have "$check"; then
    missing+=("$what|$pkgs")
    # shellcheck disable=SC2206
    packages+=($pkgs)
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo_cmd=(sudo -n)
  else
    sudo_cmd=(none)
  fi
fi
if [ "${sudo_cmd[0]:-}" != none ] && command -v apt-get >/dev/null 2>&1; then
  echo "setup: installing ${packages[*]}"
  if "${sudo_cmd[@]}" apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null; then
    exit 0
  fi
  echo "setup: apt-get failed; what is still missing:" >&2
fi
for m in "${missing[@]}"; do
  IFS='|' read -r what pkgs <<<"$m"
  # Only what apt-get did not install is still missing.
  still=()
  for pkg in $pkgs; do dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || still+=("$pkg"); done
  [ ${#still[@]} -eq 0 ] && continue
  echo "setup: missing $what: sudo apt-get install -y ${still[*]}" >&2
done
exit 0
