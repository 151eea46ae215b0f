#!/usr/bin/env bash
# Installs every Debian package hetsched needs to build, test and run. Idempotent: installs only
# what is missing, so a second run is instant. Needs root (or sudo) for apt-get.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config lld
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libfmt-dev libspdlog-dev
  libeigen3-dev coinor-libcbc-dev coinor-libclp-dev
  # The goodput model's fit (perf/goodput_fit.cc, issue 46): L-BFGS-B 3.0, as scipy runs it.
  liblbfgsb-dev
  # exp, log and pow of the same bits on every CPU for the goodput model (util/fixed_math.h).
  libsleef-dev
  # The peers' measured profiles interpolated over a Delaunay triangulation (perf/interpolate.cc).
  libqhull-dev
  libtorch-dev
  # Debian's LibTorch calls the system BLAS (libblas.so.3); without OpenBLAS that is the
  # reference Fortran BLAS, 4-6x slower on the learned planners' training (82% of its time in
  # sgemm). The serial build keeps one thread per process (LibTorch's thread setting does not
  # reach it) and registers itself as libblas.so.3 through update-alternatives.
  libopenblas0-serial
  slurmctld slurmd slurm-client
  # The libFuzzer targets (fuzz/, scripts/fuzz.sh): clang with its fuzzer runtime.
  clang-16 libfuzzer-16-dev libclang-rt-16-dev
  # The Python module (python/, issue 22): pybind11 bindings, and what its API and tests use.
  pybind11-dev python3-dev python3-pandas python3-pytest python3-matplotlib
  # The report's browser check (tests/browser/): headless Chromium and a font for its screenshot.
  chromium fonts-dejavu-core
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# Slurm's packages must not start system daemons (the tests start their own cluster): a
# temporary policy-rc.d forbids service starts during the install (scripts/slurm/install-deps.sh).
made_policy=0
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
  $SUDO chmod +x /usr/sbin/policy-rc.d
  made_policy=1
fi
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
if [ $made_policy -eq 1 ]; then $SUDO rm -f /usr/sbin/policy-rc.d; fi
echo "setup: done"
