#!/usr/bin/env bash
# The full test suite, as CI runs it (.ci/run calls this script).
#   1. installs what the tests need and is missing (scripts/setup.sh);
#   2. go vet, then every Go test (unit, golden, cross-check, co-simulation,
#      every documented command from a fresh clone: internal/e2e);
#   3. the hostile-input suite (scripts/hostile.sh);
#   4. every benchmark once (-benchtime 1x);
#   5. every fuzz target for FUZZTIME (default 10s) each.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/setup.sh
# With CI set, a test that needs a missing tool fails instead of skipping.
export CI="${CI:-1}"

echo "== go vet"
go vet ./...

echo "== go test"
go test -count=1 -timeout 60m ./...

echo "== hostile input (bad flags, crafted captures, interrupts, corrupt files)"
./scripts/hostile.sh

echo "== benchmarks (one iteration each, so that none rots; docs give the measured figures)"
bench_log=$(mktemp)
if ! go test -count=1 -run '^$' -bench . -benchtime 1x ./... >"$bench_log" 2>&1; then
  cat "$bench_log"
  exit 1
fi
grep -E '^(ok|FAIL)' "$bench_log" || true
rm -f "$bench_log"

echo "== fuzz (${FUZZTIME:=10s} per target)"
for pkg in $(go list ./...); do
  for target in $(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true); do
    echo "-- $pkg $target"
    go test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" "$pkg"
  done
done
echo "== all tests passed"
