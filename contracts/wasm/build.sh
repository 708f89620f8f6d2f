#!/usr/bin/env bash
# Builds the VIP score CosmWasm contract reproducibly and offline.
#
#   bash contracts/wasm/build.sh [--test] [OUT_DIR]
#
# Writes OUT_DIR/vip_score.wasm and OUT_DIR/vip_score.wasm.sha256 (default
# OUT_DIR: contracts/wasm/artifacts). --test first runs the Rust unit tests on
# the host. Needs Debian's packages:
#   apt-get install -y rustc cargo libstd-rust-dev-wasm32 lld binaryen wabt
# The artifact is byte-identical only with the pinned tool versions below, so
# other versions are refused unless VIP_WASM_ANY_TOOLCHAIN=1.
set -euo pipefail

RUSTC_VERSION="rustc 1.63.0"
WASM_OPT_VERSION="wasm-opt version 108"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
run_tests=0
if [ "${1:-}" = "--test" ]; then
  run_tests=1
  shift
fi
out_dir="${1:-$here/artifacts}"

die() { echo "build.sh: $*" >&2; exit 1; }
# A missing tool exits 3, so callers (the rebuild test) can tell it from a failed build.
missing() { echo "build.sh: $*" >&2; exit 3; }

# rustup's newer rustc may come first in PATH and lacks the wasm32 target:
# use Debian's tools only, with a clean environment.
tool_path=/usr/bin:/bin
for t in rustc cargo wasm-opt wasm2wat wasm-validate sha256sum; do
  PATH=$tool_path command -v "$t" >/dev/null 2>&1 ||
    missing "missing $t; install: apt-get install -y rustc cargo libstd-rust-dev-wasm32 lld binaryen wabt"
done
[ -d "$(/usr/bin/rustc --print sysroot)/lib/rustlib/wasm32-unknown-unknown" ] ||
  missing "rustc has no wasm32-unknown-unknown std; install: apt-get install -y libstd-rust-dev-wasm32"
rustc_v="$(/usr/bin/rustc --version)"
opt_v="$(PATH=$tool_path wasm-opt --version)"
if [ "${VIP_WASM_ANY_TOOLCHAIN:-0}" != 1 ]; then
  case "$rustc_v" in "$RUSTC_VERSION"*) ;; *) die "need $RUSTC_VERSION for a reproducible build, found: $rustc_v (set VIP_WASM_ANY_TOOLCHAIN=1 to build anyway)";; esac
  case "$opt_v" in "$WASM_OPT_VERSION"*) ;; *) die "need $WASM_OPT_VERSION for a reproducible build, found: $opt_v (set VIP_WASM_ANY_TOOLCHAIN=1 to build anyway)";; esac
fi

# Build from a private copy under a fixed name, so neither the checkout's
# location nor a stale target dir can leak into the output.
work="$(mktemp -d "${TMPDIR:-/tmp}/vip-score-wasm.XXXXXX")"
trap 'rm -rf "$work"' EXIT
src="$work/vip_score"
mkdir -p "$src/.cargo"
cp "$here/Cargo.toml" "$here/Cargo.lock" "$src/"
cp "$here/.cargo/config.toml" "$src/.cargo/"
cp -r "$here/src" "$src/src"

cargo_env=(env -i
  PATH="$tool_path"
  HOME="$work/home"
  CARGO_HOME="$work/cargo-home"
  CARGO_TARGET_DIR="$work/target"
  RUSTC=/usr/bin/rustc
  RUSTFLAGS="--remap-path-prefix=$src=/vip_score --remap-path-prefix=$work=/build"
  SOURCE_DATE_EPOCH=0
  LANG=C.UTF-8)

cd "$src"
if [ "$run_tests" = 1 ]; then
  "${cargo_env[@]}" /usr/bin/cargo test --offline --locked --target x86_64-unknown-linux-gnu
fi
"${cargo_env[@]}" /usr/bin/cargo build --offline --locked --release --target wasm32-unknown-unknown

raw="$work/target/wasm32-unknown-unknown/release/vip_score.wasm"
[ -f "$raw" ] || die "cargo produced no $raw"
opt="$work/vip_score.wasm"
PATH=$tool_path wasm-opt -Oz --strip-debug --strip-producers "$raw" -o "$opt"

# Keep the contract float-free: chains differ on whether they accept floats.
PATH=$tool_path wasm2wat "$opt" -o "$work/vip_score.wat"
if grep -qE '\bf(32|64)\.' "$work/vip_score.wat"; then
  die "float instructions found in the contract"
fi

# Plain MVP Wasm only (no bulk-memory, sign-ext, reference types, SIMD):
# every wasmvm release accepts it.
PATH=$tool_path wasm-validate --disable-bulk-memory --disable-reference-types --disable-simd \
  --disable-sign-extension --disable-saturating-float-to-int --disable-multi-value "$opt" ||
  die "the contract uses Wasm features beyond MVP"

mkdir -p "$out_dir"
cp "$opt" "$out_dir/vip_score.wasm"
(cd "$out_dir" && sha256sum vip_score.wasm > vip_score.wasm.sha256)
echo "build.sh: $out_dir/vip_score.wasm $(wc -c < "$out_dir/vip_score.wasm") bytes, sha256 $(cut -d' ' -f1 "$out_dir/vip_score.wasm.sha256")"
