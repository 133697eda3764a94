#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the tools the tests need when they are missing: Go's module
# downloads, and, from Debian's packages, the HDL tools of packages verilog and
# cosim (Verilator for lint and co-simulation, Icarus Verilog as the second
# simulator, Yosys for synthesis and its formal flows, yosys-smtbmc with the z3
# solver, ABC (yosys-abc) and CryptoMiniSat for the formal properties, OpenSTA and the OSU 0.18 um
# standard-cell library for area and timing) and tshark (the capture package's test opens
# the ERF pcap files with it), and qemu-user-static (the decode kernels'
# portable path is cross-checked as an arm64 build under qemu-aarch64-static).
# Safe to run again: it installs only what is
# missing, and does nothing when everything is there.
set -euo pipefail
cd "$(dirname "$0")/.."

go mod download

# command -> Debian package
declare -A pkgs=(
  [verilator]=verilator
  [yosys]=yosys
  [iverilog]=iverilog
  [vvp]=iverilog
  [yosys-smtbmc]=yosys
  [yosys-abc]=yosys
  [sta]=opensta
  [z3]=z3
  [cryptominisat5]=cryptominisat
  [tshark]=tshark
  [qemu-aarch64-static]=qemu-user-static
)
tools=(verilator yosys yosys-smtbmc yosys-abc iverilog vvp sta z3 cryptominisat5 tshark qemu-aarch64-static)
missing=()
for cmd in "${tools[@]}"; do
  if ! command -v "$cmd" >/dev/null 2>&1; then
    p=${pkgs[$cmd]}
    [[ " ${missing[*]-} " == *" $p "* ]] || missing+=("$p")
  fi
done
# Verilator compiles its C++ model with a C++ compiler and make.
command -v g++ >/dev/null 2>&1 || missing+=(g++)
command -v make >/dev/null 2>&1 || missing+=(make)
# The C library (capi) builds with cgo's C compiler; its Python example runs on python3.
command -v gcc >/dev/null 2>&1 || missing+=(gcc)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
# The standard-cell library verify --synth maps to (cosim.Liberty).
liberty=/usr/share/qflow/tech/osu018/osu018_stdcells.lib
[[ -f $liberty ]] || missing+=(qflow-tech-osu018)

if ((${#missing[@]} > 0)); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then
    sudo="sudo"
  fi
  $sudo apt-get update
  # tshark asks whether non-root users may capture; answer no, without a prompt.
  echo "wireshark-common wireshark-common/install-setuid boolean false" | $sudo debconf-set-selections
  # One retry: an install can fail when another dpkg run shares the machine.
  for try in 1 2; do
    if DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"; then
      break
    fi
    [[ $try == 2 ]] && exit 1
    echo "setup: apt-get install failed; retrying once" >&2
    sleep 5
  done
fi

for cmd in "${tools[@]}"; do
  command -v "$cmd" >/dev/null 2>&1 || { echo "setup: $cmd is still missing" >&2; exit 1; }
done
[[ -f $liberty ]] || { echo "setup: $liberty is still missing" >&2; exit 1; }
echo "setup: $(verilator --version | head -1); $(yosys -V | head -1); $(iverilog -V 2>/dev/null | head -1); OpenSTA $(sta -version 2>/dev/null | head -1); $(z3 --version | head -1)"
