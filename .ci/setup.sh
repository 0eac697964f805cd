#!/usr/bin/env bash
# setup.sh -- the README's two commands, for a fresh Debian/Ubuntu machine
# that has the CUDA toolkit (nvcc) installed:
#
#   bash .ci/setup.sh demo   install missing packages, build, run sat_blur on the
#                            sample scene (data/scene) into build/scene_blur.png
#   bash .ci/setup.sh test   install missing packages, build everything with
#                            warnings as errors, run the tests (ctest -LE large)
#   bash .ci/setup.sh asan   the host code (programs, apps/common, the
#                            library's C sources) built with ASan and UBSan
#                            into build-asan/, and the programs' end-to-end
#                            tests (ctest -L cli) and the fuzz corpora run on it
#   bash .ci/setup.sh fuzz   also installs clang and libclang-rt-dev: the
#                            file readers' libFuzzer harnesses (tests/fuzz,
#                            host-only, no nvcc) built into build-fuzz/, their
#                            corpora replayed, then each fuzzed for
#                            $LIBSCAN_FUZZ_SECONDS (default 20) seconds
#
# Packages are installed with apt-get only when `dpkg -s` says they are
# missing, non-interactively, through sudo unless running as root. The build
# goes to build/ with all cores, for sm_90 (Hopper) unless CUDAARCHS says
# otherwise (e.g. CUDAARCHS="80;90"). .ci/run (what CI runs) is the test,
# asan and fuzz commands in turn.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

PACKAGES=(cmake build-essential pkg-config libcmocka-dev libpng-dev libstb-dev libturbojpeg0-dev libdeflate-dev)
# fuzz only: clang with libFuzzer and its sanitizer runtimes (compiler-rt).
FUZZ_PACKAGES=(clang libclang-rt-dev)
MIN_CMAKE=3.25
BUILD_DIR=build
ASAN_BUILD_DIR=build-asan
FUZZ_BUILD_DIR=build-fuzz

say() { echo "setup: $*" >&2; }
die() {
    echo "setup: error: $*" >&2
    exit 1
}

usage() {
    echo "usage: bash .ci/setup.sh demo|test|asan|fuzz" >&2
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
        die "need root to run '$*' (not root and no sudo); install those packages yourself"
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

# install_missing_packages PACKAGE...
install_missing_packages() {
    if ! command -v dpkg >/dev/null || ! command -v apt-get >/dev/null; then
        say "no dpkg/apt-get here: not installing anything; this needs $*"
        return 0
    fi
    local missing=() p
    for p in "$@"; do
        installed "$p" || missing+=("$p")
    done
    if [[ ${#missing[@]} -eq 0 ]]; then
        say "system packages present: $*"
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

# NCCL, optional (libscan_nccl, radixsort --gpus): the one CMake finds (the
# system's, the CUDA toolkit's, $NCCL_ROOT), else NVIDIA's nvidia-nccl-cu13
# wheel (headers and libnccl.so.2, ~300 MB) installed with pip into
# $BUILD_DIR/.nccl-venv and handed to CMake as NCCL_ROOT. Best effort: if
# pip cannot get it, say so and build the rest (CMake leaves libscan_nccl out).
NCCL_ARGS=()
ensure_nccl() {
    local d nvcc_inc=""
    command -v nvcc >/dev/null && nvcc_inc=$(dirname "$(command -v nvcc)")/../include
    for d in "${NCCL_ROOT:+$NCCL_ROOT/include}" /usr/include /usr/local/cuda/include "$nvcc_inc"; do
        [[ -n $d && -f $d/nccl.h ]] && { say "NCCL: $d/nccl.h"; return 0; }
    done
    local venv=$BUILD_DIR/.nccl-venv root
    if [[ ! -x $venv/bin/python ]] || ! "$venv/bin/python" -c 'import nvidia.nccl' 2>/dev/null; then
        say "NCCL not found: installing the nvidia-nccl-cu13 wheel into $venv with pip (optional: libscan_nccl)"
        if command -v dpkg >/dev/null && ! installed python3-venv; then apt_install python3-venv || true; fi
        mkdir -p "$BUILD_DIR"
        if ! { python3 -m venv "$venv" && timeout 900 "$venv/bin/python" -m pip install -q nvidia-nccl-cu13; }; then
            say "could not install nvidia-nccl-cu13: building without libscan_nccl"
            return 0
        fi
    fi
    root=$("$venv/bin/python" -c 'import nvidia.nccl as m; print(list(m.__path__)[0])') || return 0
    say "NCCL: the nvidia-nccl-cu13 wheel, $root"
    NCCL_ARGS=(-DNCCL_ROOT="$root")
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

# The sanitizers' options for the asan build's tests. protect_shadow_gap=0:
# the CUDA runtime maps memory where ASan would otherwise protect its shadow
# gap (needed as soon as a GPU is used; harmless without one).
# detect_leaks=1: a leak fails the test like any other report.
# The UBSan build stops at the first report (-fno-sanitize-recover=all).
SAN_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g"
ASAN_TEST_OPTIONS=protect_shadow_gap=0:detect_leaks=1:abort_on_error=0
UBSAN_TEST_OPTIONS=print_stacktrace=1:halt_on_error=1

[[ $# -eq 1 ]] || usage
mode=$1
[[ $mode == demo || $mode == test || $mode == asan || $mode == fuzz ]] || usage

if [[ $mode == fuzz ]]; then
    # Host-only: no CUDA, no cmocka, only the readers' own dependencies.
    install_missing_packages cmake build-essential libpng-dev libdeflate-dev libturbojpeg0-dev "${FUZZ_PACKAGES[@]}"
    ensure_cmake
    say "cmake: $(cmake --version | head -n 1)"
    say "clang: $(clang --version | head -n 1)"
else
    install_missing_packages "${PACKAGES[@]}"
    ensure_cmake
    ensure_nvcc
    show_tools
fi

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
    ensure_nccl
    cmake -S . -B "$BUILD_DIR" -DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCHS" -DLIBSCAN_WERROR=ON \
        -DLIBSCAN_BUILD_TESTS=ON -DLIBSCAN_BUILD_APPS=ON -DLIBSCAN_BUILD_BENCH=ON "${NCCL_ARGS[@]}"
    cmake --build "$BUILD_DIR" --parallel "$(jobs)"
    ctest --test-dir "$BUILD_DIR" --output-on-failure --no-tests=error -LE large
    ;;
asan)
    # Host C/C++ (programs, apps/common, the library's C sources: the CPU
    # paths the programs take without a GPU) under ASan + UBSan; the CUDA
    # sources are compiled as usual (ASan cannot instrument them) and linked
    # in. Warnings are not errors here: the test build enforces them, and gcc
    # warns falsely under -fsanitize (its manual says so).
    cmake -S . -B "$ASAN_BUILD_DIR" -DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCHS" -DCMAKE_BUILD_TYPE=Release \
        -DLIBSCAN_WERROR=OFF -DLIBSCAN_BUILD_TESTS=ON -DLIBSCAN_BUILD_APPS=ON -DLIBSCAN_BUILD_BENCH=OFF \
        -DCMAKE_C_FLAGS="$SAN_FLAGS" -DCMAKE_CXX_FLAGS="$SAN_FLAGS" \
        -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
        -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined"
    # Only what the tests below run: the programs, their copies on the
    # stand-in GPU (tests/apps/mock_gpu), the JPEG tests' decoder (stb_image),
    # the corpus replays and the seed maker (fuzz_make_seeds_replay).
    cmake --build "$ASAN_BUILD_DIR" --parallel "$(jobs)" \
        --target scan_demo radixsort compact sat_blur radixsort_mockgpu compact_mockgpu test_stb_decode \
        replay_npy replay_text replay_png fuzz_make_seeds
    ASAN_OPTIONS=$ASAN_TEST_OPTIONS UBSAN_OPTIONS=$UBSAN_TEST_OPTIONS \
        ctest --test-dir "$ASAN_BUILD_DIR" --output-on-failure --no-tests=error -L 'cli|fuzz'
    ;;
fuzz)
    cmake -S tests/fuzz -B "$FUZZ_BUILD_DIR" -DCMAKE_C_COMPILER=clang -DLIBSCAN_WERROR=ON -DLIBSCAN_FUZZ=ON
    cmake --build "$FUZZ_BUILD_DIR" --parallel "$(jobs)"
    ctest --test-dir "$FUZZ_BUILD_DIR" --output-on-failure --no-tests=error
    bash tests/fuzz/run_fuzzers.sh "$FUZZ_BUILD_DIR" "${LIBSCAN_FUZZ_SECONDS:-20}"
    ;;
esac
