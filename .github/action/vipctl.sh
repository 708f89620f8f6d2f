#!/usr/bin/env bash
# The steps of the vipctl GitHub Action (action.yml at the repository root), one verb a step:
#
#   vipctl.sh install   download the pinned vipctl release archive, check it against the
#                       release's checksums.txt, unpack it, put it on PATH (Move: vipctl setup)
#   vipctl.sh run       preflight and check, then (when asked) deploy and scores update
#                       --file; a job summary (markdown) and JUnit reports of what ran
#
# Inputs arrive as environment variables (action.yml maps them), never pasted into a
# script, so no input is executed. The rollup's and L1's settings are vipctl's own variables
# (VM, JSON_RPC_URL, COMET_RPC_URL, REST_URL, NETWORK, L1_REST_URL, VIP_MODULE_ADDRESS,
# CONTRACT_ADDRESS, GAS_PRICE); the keys (PRIVATE_KEY, MNEMONIC, OPERATOR_PRIVATE_KEY,
# OPERATOR_MNEMONIC) come from the workflow's secrets, which the runner masks: this script
# never prints them, and never traces (no set -x). Its own inputs are VIPCTL_*:
#
#   VIPCTL_VERSION       release tag to install (install)
#   VIPCTL_RELEASE_URL   base URL of the releases (install; default the project's)
#   VIPCTL_DEPLOY        "true": deploy the contract after the checks (run)
#   VIPCTL_SCORES_FILE   a score file to push with scores update (run)
#   VIPCTL_STAGE         the stage for deploy and scores update (run; default the L1's)
#   VIPCTL_REPORTS       folder for the JUnit reports (run; default vipctl-reports)
#   VIPCTL_STATE_DIR     vipctl's state folder: journals, deployments (run)
#
# GitHub sets GITHUB_PATH, GITHUB_STEP_SUMMARY, GITHUB_OUTPUT and RUNNER_TEMP; outside
# Actions (a test, a laptop) the script works without them.
set -euo pipefail

die() { echo "vipctl action: $*" >&2; exit 1; }

install() {
  local version=${VIPCTL_VERSION:-}
  local base=${VIPCTL_RELEASE_URL:-https://github.com/vipharness/vipharness/releases/download}
  [[ $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]+)?$ ]] || die "version: want a release tag such as v1.2.3, got '${version}'"
  case "$(uname -s)/$(uname -m)" in
    Linux/x86_64) ;;
    *) die "vipctl releases are built for linux/amd64 only (this runner is $(uname -s)/$(uname -m))" ;;
  esac
  local archive="vipctl_${version#v}_linux_amd64.tar.gz"
  local dir="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/vipctl-$version"
  local dl="$dir.download"
  rm -rf "$dl" && mkdir -p "$dl"
  curl -fsSL --retry 3 -o "$dl/checksums.txt" "$base/$version/checksums.txt" || die "download $base/$version/checksums.txt failed"
  curl -fsSL --retry 3 -o "$dl/$archive" "$base/$version/$archive" || die "download $base/$version/$archive failed"
  grep -q "  $archive\$" "$dl/checksums.txt" || die "checksums.txt of $version does not list $archive"
  (cd "$dl" && grep "  $archive\$" checksums.txt | sha256sum --quiet -c -) || die "$archive does not match its sha256 in checksums.txt"
  rm -rf "$dir" && mkdir -p "$dir"
  tar -xzf "$dl/$archive" -C "$dir"
  rm -rf "$dl"
  "$dir/vipctl" version
  if [ -n "${GITHUB_PATH:-}" ]; then echo "$dir" >>"$GITHUB_PATH"; fi
  if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "path=$dir/vipctl" >>"$GITHUB_OUTPUT"; fi
  if [ "${VM:-}" = move ]; then
    # Initia's Move compiler (npm) and MoveVM (movevm's Go module), pinned and sha256-checked: Move deploys need them.
    "$dir/vipctl" setup
  fi
}

# step NAME ARGS...: runs vipctl ARGS, keeps its output for the summary and the report, and
# records NAME's outcome. A failed step does not stop the others that do not depend on it.
names=() codes=() outs=() times=()
step() {
  local name=$1; shift
  local out="$work/${#names[@]}.out" start=$SECONDS code=0
  echo "::group::vipctl $name"
  vipctl --no-progress "$@" >"$out" 2>&1 || code=$?
  cat "$out"
  echo "::endgroup::"
  names+=("$name") codes+=("$code") outs+=("$out") times+=("$((SECONDS - start))")
  return "$code"
}

skip() { names+=("$1") codes+=("skipped") outs+=("") times+=(0); }

xml_escape() { sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g' -e 's/[^[:print:]\t]//g'; }

summary() {
  local i mark
  echo "### vipctl ${VM:-evm}: $(vipctl version)"
  echo
  echo "| step | result | seconds |"
  echo "|---|---|---|"
  for i in "${!names[@]}"; do
    case "${codes[$i]}" in 0) mark="passed" ;; skipped) mark="skipped" ;; *) mark="failed (exit ${codes[$i]})" ;; esac
    echo "| ${names[$i]} | $mark | ${times[$i]} |"
  done
  for i in "${!names[@]}"; do
    [ -n "${outs[$i]}" ] || continue
    echo
    echo "<details><summary>${names[$i]}</summary>"
    echo
    echo '```'
    tail -n 200 "${outs[$i]}"
    echo '```'
    echo "</details>"
  done
}

junit() {
  local i failures=0 skipped=0 total=${#names[@]} secs=0
  for i in "${!names[@]}"; do
    case "${codes[$i]}" in 0) ;; skipped) skipped=$((skipped + 1)) ;; *) failures=$((failures + 1)) ;; esac
    secs=$((secs + times[i]))
  done
  echo '<?xml version="1.0" encoding="UTF-8"?>'
  echo "<testsuites name=\"vipctl\" tests=\"$total\" failures=\"$failures\" skipped=\"$skipped\" time=\"$secs\">"
  echo "  <testsuite name=\"vipctl action ${VM:-evm}\" tests=\"$total\" failures=\"$failures\" skipped=\"$skipped\" time=\"$secs\">"
  for i in "${!names[@]}"; do
    echo "    <testcase classname=\"vipctl\" name=\"${names[$i]}\" time=\"${times[$i]}\">"
    case "${codes[$i]}" in
      0) ;;
      skipped) echo '      <skipped message="an earlier step failed"/>' ;;
      *)
        echo "      <failure message=\"vipctl ${names[$i]} exited ${codes[$i]}\">"
        tail -n 50 "${outs[$i]}" | xml_escape
        echo "      </failure>"
        ;;
    esac
    echo "    </testcase>"
  done
  echo "  </testsuite>"
  echo "</testsuites>"
}

run() {
  command -v vipctl >/dev/null || die "no vipctl on PATH: run the install step first"
  # An input left empty is a setting not given: vipctl reads a set but empty key as a key.
  local v
  for v in VM JSON_RPC_URL COMET_RPC_URL REST_URL NETWORK L1_REST_URL VIP_MODULE_ADDRESS CONTRACT_ADDRESS GAS_PRICE \
    PRIVATE_KEY MNEMONIC OPERATOR_PRIVATE_KEY OPERATOR_MNEMONIC; do
    if [ -z "${!v:-}" ]; then unset "$v"; fi
  done
  local reports=${VIPCTL_REPORTS:-vipctl-reports}
  state=${VIPCTL_STATE_DIR:-.vipharness}
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  mkdir -p "$reports"
  local stage=() ok=1
  if [ -n "${VIPCTL_STAGE:-}" ]; then stage=(--stage "$VIPCTL_STAGE"); fi

  step preflight --state-dir "$state" preflight || ok=0
  # check deploys a throwaway contract of its own: its state stays apart, so that contract
  # never becomes the deployment that deploy and scores update find.
  step check --state-dir "$work/check" check --junit "$reports/check.xml" "${stage[@]}" || ok=0
  if [ "${VIPCTL_DEPLOY:-false}" = true ]; then
    if [ "$ok" = 1 ]; then step deploy --state-dir "$state" deploy "${stage[@]}" || ok=0; else skip deploy; fi
  fi
  if [ -n "${VIPCTL_SCORES_FILE:-}" ]; then
    if [ "$ok" = 1 ]; then
      step "scores update" --state-dir "$state" scores update --file "$VIPCTL_SCORES_FILE" "${stage[@]}" || ok=0
    else
      skip "scores update"
    fi
  fi

  junit >"$reports/steps.xml"
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then summary >>"$GITHUB_STEP_SUMMARY"; fi
  if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "reports=$reports" >>"$GITHUB_OUTPUT"; fi
  [ "$ok" = 1 ] || die "a step failed: see the job summary and $reports/"
}

case "${1:-}" in
  install) install ;;
  run) run ;;
  *) die "usage: vipctl.sh install|run" ;;
esac
