#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
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
./scripts/crossbuild.sh   # every release platform builds and vets (linux, darwin, windows)

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

# Go before 1.27 can fail a fuzz run that found nothing with a bare "context
# deadline exceeded" as -fuzztime ends (a race in its fuzzing coordinator,
# fixed in Go 1.27; most often on a loaded machine). A finding writes its
# input under testdata/fuzz and says so; a run that failed with that message
# alone and wrote nothing is run again, up to three times in all.
fuzz_log=$(mktemp)
echo "== fuzz (${FUZZTIME:=10s} per target)"
for pkg in $(go list ./...); do
  for target in $(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true); do
    echo "-- $pkg $target"
    for try in 1 2 3; do
      if go test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" "$pkg" 2>&1 | tee "$fuzz_log"; then
        break
      fi
      if [[ $try == 3 ]] || grep -q 'Failing input written' "$fuzz_log" || ! grep -q '^    context deadline exceeded$' "$fuzz_log"; then
        exit 1
      fi
      echo "-- $pkg $target: failed with the fuzzing coordinator's deadline race and no input; again"
    done
  done
done
rm -f "$fuzz_log"
echo "== all tests passed"
