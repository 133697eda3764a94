#!/usr/bin/env bash
# The full test suite, as CI runs it (.ci/run calls this script).
#   1. installs what the tests need and is missing (scripts/setup.sh);
#   2. go vet, then every Go test (unit, golden, cross-check, co-simulation);
#   3. every fuzz target for FUZZTIME (default 10s) each.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/setup.sh

echo "== go vet"
go vet ./...

echo "== go test"
go test -count=1 -timeout 60m ./...

echo "== fuzz (${FUZZTIME:=10s} per target)"
for pkg in $(go list ./...); do
  for target in $(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true); do
    echo "-- $pkg $target"
    go test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" "$pkg"
  done
done
echo "== all tests passed"
