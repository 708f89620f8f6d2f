#!/usr/bin/env bash
# Runs the e2e suites on the external engine against rollups this script starts itself, as
# separate processes (`vipctl localnet up`), the way a team points them at its own rollup:
# the suites meet each chain only through the endpoints and key in its env file.
#
#   bash e2e/external/run.sh [ENGINE:VM ...]    default: process:evm process:wasm process:move
#                                              (geth, wasmd, and the dev node with the MoveVM)
#
# Against your own rollup, skip this script: export its endpoints and a funded key
# (JSON_RPC_URL, or COMET_RPC_URL and REST_URL; PRIVATE_KEY or MNEMONIC) and run
# `E2E_ENGINES=external make e2e`.
set -euo pipefail
cd "$(dirname "$0")/../.."
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(process:evm process:wasm process:move)
suites=(./e2e/scoring ./e2e/fault ./e2e/cli ./e2e/operate)

work=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill -INT "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  [ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/vipctl" ./cmd/vipctl

# dump_nodes asks each node process under vipctl (pid $1) where it waits, and prints its log:
# a Go node prints every goroutine's stack on SIGQUIT and exits, so a node that stopped
# answering names the lock or call it is stuck on. The log is in the node's working
# directory, its home, which the engine removes at stop.
dump_nodes() {
  local child home f n
  for child in $(pgrep -P "$1" || true); do
    home=$(readlink "/proc/$child/cwd" 2>/dev/null || true)
    kill -QUIT "$child" 2>/dev/null || true
    sleep 2
    for f in "$home"/*.log; do
      [ -f "$f" ] || continue
      # The 30 lines before the dump, then the dump (at most 4,000 lines).
      n=$(grep -n '^SIGQUIT' "$f" | head -1 | cut -d: -f1)
      echo "external: node $child's log $f:"
      if [ -n "$n" ]; then tail -n +"$((n > 30 ? n - 30 : 1))" "$f" | head -4000; else tail -400 "$f"; fi
    done
  done
}

status=0
for t in "${targets[@]}"; do
  engine=${t%%:*} vm=${t##*:}
  dir="$work/$engine-$vm"
  mkdir -p "$dir"
  "$work/vipctl" localnet up --engine "$engine" --vm "$vm" --l1-stage 3 --env-file "$dir/env" --state-dir "$dir" >"$dir/log" 2>&1 &
  pid=$!
  for _ in $(seq 1 600); do
    [ -f "$dir/env" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  if [ ! -f "$dir/env" ]; then
    if grep -q "node binary not found" "$dir/log" && [ "${REQUIRE_NODES:-}" != 1 ] && [ "${CI:-}" != true ]; then
      echo "external: skipping $engine $vm: $(grep -o 'node binary not found.*' "$dir/log" | head -1) (REQUIRE_NODES=1 or CI=true fail instead)"
      pid=""
      continue
    fi
    echo "external: $engine $vm rollup did not start:"; cat "$dir/log"
    exit 1
  fi
  echo "external: $vm rollup on the $engine engine (pid $pid); the suites on E2E_ENGINES=external"
  # The env file holds the dev key: exported to the suites, never printed.
  if (set -a; . "$dir/env"; set +a; E2E_ENGINES=external go test -v -count=1 -timeout 20m "${suites[@]}" -args -ginkgo.label-filter=external -ginkgo.succinct -ginkgo.no-color) >"$dir/test.log" 2>&1; then
    # How many specs each suite ran (a suite with nothing to run on this VM says so).
    grep -oE "[A-Za-z ]+ suite - [0-9]+/[0-9]+ specs" "$dir/test.log" | sed 's/^/  ran: /' || true
  else
    status=1
    cat "$dir/test.log"
    echo "external: $engine $vm failed; its node log:"; tail -50 "$dir/log"
    dump_nodes "$pid"
  fi
  kill -INT "$pid"; wait "$pid" 2>/dev/null || true
  pid=""
done
exit $status
