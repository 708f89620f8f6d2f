#!/usr/bin/env bash
# Builds the Solidity contract with the pinned npm solc: bash contracts/evm/build.sh [--check]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ ! -d "$here/../node_modules/solc" ]; then
  npm ci --prefix "$here/.." --no-audit --no-fund --loglevel=error
fi
exec node "$here/build.js" "$@"
