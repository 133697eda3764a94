#!/usr/bin/env bash
# Installs the tools the tests need when they are missing: Go's module
# downloads, and (from Debian's packages) the HDL tools used by package verilog.
set -euo pipefail
cd "$(dirname "$0")/.."

go mod download
