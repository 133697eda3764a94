#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The hostile-input suite: truncated and crafted captures, bad flag values
# (NaN, infinities, negatives, overflow, empty), vector sets whose manifest,
# index or header lie, two runs in one work or output directory, interrupts
# (SIGINT, SIGTERM) in the middle of runs and of their child processes,
# corrupt inputs and impossible outputs, thrown at every command. Every case
# must end in a clear error (the whole message is checked) or a correct
# result, with no panic, hang, silent pass, half-written output, leftover
# staging or lock file, process left running or unbounded memory. Interrupts
# wait for a condition (output begun, a progress line), not a fixed time. The
# cases and their expected outcomes are one table, in
# internal/e2e/hostile_test.go; the run ends with that table (PASS, FAIL or
# SKIP per case, and the command it exercises) and the case count and time.
# About a minute; CI runs it from scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
IBRESERVOIR_HOSTILE=1 exec go test -count=1 -timeout 10m -run '^TestHostile' -v ./internal/e2e "$@"
