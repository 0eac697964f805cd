#!/usr/bin/env bash
# setup.sh -- the README's two commands, for a fresh Debian/Ubuntu machine
# that has the CUDA toolkit (nvcc) installed:
#
#   bash .ci/setup.sh demo   install missing packages, build, run sat_blur on the
#                            sample scene (data/scene) into build/scene_blur.png
#   bash .ci/setup.sh test   install missing packages, build everything with
#                            warnings as errors, run the tests (ctest -LE large)
#
# Packages are installed with apt-get only when `dpkg -s` says they are
# missing, non-interactively, through sudo unless running as root. The build
# goes to build/ with all cores, for sm_90 (Hopper) unless CUDAARCHS says
# otherwise (e.g. CUDAARCHS="80;90"). .ci/run (what CI runs) is
# `bash .ci/setup.sh test`.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

PACKAGES=(cmake build-essential pkg-config libcmocka-dev libpng-dev libstb-dev libturbojpeg0-dev libdeflate-dev)
MIN_CMAKE=3.25
BUILD_DIR=build

say() { echo "setup: $*" >&2; }
die() {
    echo "setup: error: $*" >&2
    exit 1
}

usage() {
    echo "usage: bash .ci/setup.sh demo|test" >&2
    exit 1
}

# Runs a command as root: directly when root, else through sudo.
as_root() {
    if [[ $(id -u) -eq 0 ]]; then
        "$@"
    elif command -v sudo >/dev/null; then
        # Without a terminal (CI), never wait for a password prompt.
        if [[ -t 0 ]]; then sudo "$@"; else sudo -n "$@"; fi
    else
        die "need root to run '$*' (not root and no sudo); install the packages yourself: ${PACKAGES[*]}"
    fi
}

installed() { dpkg -s "$1" 2>/dev/null | grep -q '^Status: install ok installed'; }

apt_updated=0
apt_install() {
    if [[ $apt_updated -eq 0 ]]; then
        as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
        apt_updated=1
    fi
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"
}

install_missing_packages() {
    if ! command -v dpkg >/dev/null || ! command -v apt-get >/dev/null; then
        say "no dpkg/apt-get here: not installing anything; this needs ${PACKAGES[*]}"
        return 0
    fi
    local missing=() p
    for p in "${PACKAGES[@]}"; do
        installed "$p" || missing+=("$p")
    done
    if [[ ${#missing[@]} -eq 0 ]]; then
        say "system packages present: ${PACKAGES[*]}"
    else
        say "installing missing packages: ${missing[*]}"
        apt_install "${missing[@]}"
    fi
}

version_at_least() { # VERSION MINIMUM
    [[ $(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1) == "$2" ]]
}

# libscan needs CMake >= 3.25; older distributions (Ubuntu 22.04: 3.22) get a
# newer one from PyPI in a private virtual environment under build/.
ensure_cmake() {
    local v
    v=$(cmake --version 2>/dev/null | sed -n '1s/^cmake version //p')
    if [[ -n $v ]] && version_at_least "$v" "$MIN_CMAKE"; then
        return 0
    fi
    local venv=$BUILD_DIR/.cmake-venv
    if [[ ! -x $venv/bin/cmake ]]; then
        say "cmake ${v:-(none)} is older than $MIN_CMAKE: installing a newer one into $venv with pip"
        if command -v dpkg >/dev/null && ! installed python3-venv; then apt_install python3-venv; fi
        mkdir -p "$BUILD_DIR"
        python3 -m venv "$venv"
        "$venv/bin/python" -m pip install -q "cmake>=$MIN_CMAKE"
    fi
    PATH=$PWD/$venv/bin:$PATH
    export PATH
}

# nvcc: $CUDACXX, the PATH, or the usual install places of the toolkit.
ensure_nvcc() {
    if [[ -n ${CUDACXX:-} ]]; then
        [[ -x $CUDACXX ]] || die "CUDACXX=$CUDACXX is not an executable"
        return 0
    fi
    command -v nvcc >/dev/null && return 0
    local c candidates=(/usr/local/cuda/bin/nvcc)
    shopt -s nullglob
    local versioned=(/usr/local/cuda-*/bin/nvcc)
    shopt -u nullglob
    if [[ ${#versioned[@]} -gt 0 ]]; then
        mapfile -t versioned < <(printf '%s\n' "${versioned[@]}" | sort -V -r)
        candidates+=("${versioned[@]}")
    fi
    for c in "${candidates[@]}"; do
        if [[ -x $c ]]; then
            export CUDACXX=$c
            PATH=$(dirname "$c"):$PATH
            export PATH
            return 0
        fi
    done
    die "the CUDA toolkit was not found (no nvcc on PATH, in \$CUDACXX or in /usr/local/cuda*/bin); install it first"
}

show_tools() {
    say "cmake: $(cmake --version | head -n 1)"
    say "nvcc:  $("${CUDACXX:-nvcc}" --version | tail -n 1)"
    say "cc:    $(cc --version | head -n 1)"
}

jobs() { nproc 2>/dev/null || echo 2; }

CUDA_ARCHS=${CUDAARCHS:-90}

[[ $# -eq 1 ]] || usage
mode=$1
[[ $mode == demo || $mode == test ]] || usage

install_missing_packages
ensure_cmake
ensure_nvcc
show_tools

case $mode in
demo)
    # Only the library and the programs (the test command turns the rest on).
    cmake -S . -B "$BUILD_DIR" -DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCHS" \
        -DLIBSCAN_BUILD_APPS=ON -DLIBSCAN_BUILD_TESTS=OFF -DLIBSCAN_BUILD_BENCH=OFF
    cmake --build "$BUILD_DIR" --parallel "$(jobs)" --target sat_blur
    say "running: sat_blur data/scene/scene.png $BUILD_DIR/scene_blur.png --depth data/scene/depth.png --focus 0.3"
    "$BUILD_DIR/apps/sat_blur/sat_blur" data/scene/scene.png "$BUILD_DIR/scene_blur.png" \
        --depth data/scene/depth.png --focus 0.3 --timing
    say "wrote $BUILD_DIR/scene_blur.png (depth-of-field blur of data/scene/scene.png, focused on the near sphere)"
    ;;
test)
    cmake -S . -B "$BUILD_DIR" -DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCHS" -DLIBSCAN_WERROR=ON \
        -DLIBSCAN_BUILD_TESTS=ON -DLIBSCAN_BUILD_APPS=ON -DLIBSCAN_BUILD_BENCH=ON
    cmake --build "$BUILD_DIR" --parallel "$(jobs)"
    ctest --test-dir "$BUILD_DIR" --output-on-failure --no-tests=error -LE large
    ;;
esac
