#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Cross-builds the ibreservoir command and every package for each release
# platform, without cgo: linux/amd64, linux/arm64, darwin/amd64, darwin/arm64,
# windows/amd64; and vets every package, tests included, once per operating
# system (build tags select files by GOOS; vet's findings do not depend on the
# architecture). The C library (./capi) is cgo only: it is built
# and tested natively (go build -buildmode=c-archive ./capi), so it is left out
# here. Prints one line per platform; exits non-zero on the first failure.
#
#   ./scripts/crossbuild.sh                   # every platform
#   ./scripts/crossbuild.sh windows/amd64     # the named ones
set -euo pipefail
cd "$(dirname "$0")/.."

platforms=("$@")
if [ ${#platforms[@]} -eq 0 ]; then
  platforms=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64)
fi

# Packages with cgo files: built natively only.
mapfile -t cgo_pkgs < <(go list -f '{{if .CgoFiles}}{{.ImportPath}}{{end}}' ./...)
mapfile -t pkgs < <(go list ./... | grep -vxF -f <(printf '%s\n' "${cgo_pkgs[@]}" ""))
# Of those, the ones with code outside their tests (a test-only package is
# vetted, not built: go build refuses it).
mapfile -t build_pkgs < <(go list -f '{{if .GoFiles}}{{.ImportPath}}{{end}}' "${pkgs[@]}")

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
declare -A vetted
for p in "${platforms[@]}"; do
  goos=${p%/*} goarch=${p#*/}
  ext=""
  [ "$goos" = windows ] && ext=.exe
  vet="not vetted again (vetted on $goos already)"
  if ! CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -o "$out/ibreservoir-$goos-$goarch$ext" . ||
     ! CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build "${build_pkgs[@]}"; then
    echo "crossbuild: $p FAILED (build)" >&2
    exit 1
  fi
  if [ -z "${vetted[$goos]:-}" ]; then
    if ! CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go vet "${pkgs[@]}"; then
      echo "crossbuild: $p FAILED (vet)" >&2
      exit 1
    fi
    vetted[$goos]=1
    vet="vetted"
  fi
  echo "crossbuild: $p ok ($(wc -c <"$out/ibreservoir-$goos-$goarch$ext") bytes; ${#build_pkgs[@]} packages built, ${#pkgs[@]} $vet; left to native builds: ${cgo_pkgs[*]:-none})"
done
