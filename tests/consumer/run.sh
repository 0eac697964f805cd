#!/usr/bin/env bash
# run.sh -- build tests/consumer/project against libscan the way an outside
# user would, and run what was built. Called by ctest (tests/consumer/CMakeLists.txt):
#
#   run.sh MODE --source DIR --build DIR --work DIR [--config CFG] [--cmake CMAKE]
#          [--generator GEN] [--c-compiler CC] [--cuda-compiler NVCC]
#          [--cuda-host-compiler CXX] [--libdir LIBDIR]
#
# MODE
#   install       cmake --install the main build (--build) into WORK/prefix
#   find_package  configure + build the consumer with find_package(libscan CONFIG)
#                 against WORK/prefix, then run its programs
#   subdirectory  configure + build the consumer with add_subdirectory(--source)
#   pkg-config    compile + link consumer.c with `pkg-config --cflags --libs libscan`
#                 from WORK/prefix, then run it
#
# Every build uses CMAKE_CUDA_ARCHITECTURES=90. The programs exit 0 without a
# GPU ("no GPU, skipped run"): these tests are about building and linking.
set -euo pipefail

die() { echo "run.sh: $*" >&2; exit 1; }

[[ $# -ge 1 ]] || die "usage: run.sh MODE --source DIR --build DIR --work DIR [options]"
mode=$1; shift
src="" build="" work="" config="" cmake=cmake generator="" cc="" nvcc="" hostcxx="" libdir=""
while [[ $# -gt 0 ]]; do
    [[ $# -ge 2 ]] || die "option $1 needs a value"
    case $1 in
        --source) src=$2 ;;
        --build) build=$2 ;;
        --work) work=$2 ;;
        --config) config=$2 ;;
        --cmake) cmake=$2 ;;
        --generator) generator=$2 ;;
        --c-compiler) cc=$2 ;;
        --cuda-compiler) nvcc=$2 ;;
        --cuda-host-compiler) hostcxx=$2 ;;
        --libdir) libdir=$2 ;;
        *) die "unknown option $1" ;;
    esac
    shift 2
done
[[ -n $src && -n $build && -n $work ]] || die "--source, --build and --work are required"

project=$src/tests/consumer/project
prefix=$work/prefix
jobs=$(nproc 2>/dev/null || echo 2)

# Options shared by every configure of the consumer project.
configure_args=(-DCMAKE_CUDA_ARCHITECTURES=90)
[[ -n $generator ]] && configure_args+=(-G "$generator")
[[ -n $config ]] && configure_args+=("-DCMAKE_BUILD_TYPE=$config")
[[ -n $cc ]] && configure_args+=("-DCMAKE_C_COMPILER=$cc")
[[ -n $nvcc ]] && configure_args+=("-DCMAKE_CUDA_COMPILER=$nvcc")
[[ -n $hostcxx ]] && configure_args+=("-DCMAKE_CUDA_HOST_COMPILER=$hostcxx")
build_args=(--parallel "$jobs")
[[ -n $config ]] && build_args+=(--config "$config")

# Runs each program given; all must exit 0.
run_programs() {
    local p
    for p in "$@"; do
        echo "== $p"
        "$p" || die "$p exited with status $?"
    done
}

require_prefix() {
    [[ -d $prefix ]] || die "$prefix does not exist: run the consumer_install test first"
}

case $mode in
install)
    rm -rf "$prefix"
    install_args=(--install "$build" --prefix "$prefix")
    [[ -n $config ]] && install_args+=(--config "$config")
    "$cmake" "${install_args[@]}"
    for f in include/libscan/libscan.h include/libscan/version.h include/libscan/cuda/warp_scan.cuh \
             include/libscan/cuda/block_scan.cuh; do
        [[ -f $prefix/$f ]] || die "not installed: $f"
    done
    ;;

find_package)
    require_prefix
    bdir=$work/find_package
    rm -rf "$bdir"
    "$cmake" -S "$project" -B "$bdir" "${configure_args[@]}" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
    # It must have found the installed package, not some other libscan.
    found=$(sed -n 's/^libscan_DIR:PATH=//p' "$bdir/CMakeCache.txt")
    [[ $found == "$prefix"/* ]] || die "find_package used '$found', not the package under $prefix"
    "$cmake" --build "$bdir" "${build_args[@]}"
    run_programs "$bdir/consumer_c" "$bdir/consumer_c_static" "$bdir/consumer_cuda"
    ;;

subdirectory)
    bdir=$work/subdirectory
    rm -rf "$bdir"
    "$cmake" -S "$project" -B "$bdir" "${configure_args[@]}" -DCONSUMER_USE_SUBDIRECTORY=ON \
        -DLIBSCAN_SOURCE_DIR="$src"
    "$cmake" --build "$bdir" "${build_args[@]}"
    run_programs "$bdir/consumer_c" "$bdir/consumer_c_static" "$bdir/consumer_cuda"
    ;;

pkg-config)
    require_prefix
    command -v pkg-config >/dev/null || die "pkg-config is not installed"
    pcdir=""
    if [[ -n $libdir && -f $prefix/$libdir/pkgconfig/libscan.pc ]]; then
        pcdir=$prefix/$libdir/pkgconfig
    else
        pc=$(find "$prefix" -name libscan.pc -path '*/pkgconfig/*' | head -n 1)
        [[ -n $pc ]] || die "no libscan.pc under $prefix"
        pcdir=$(dirname "$pc")
    fi
    export PKG_CONFIG_PATH=$pcdir
    cflags=$(pkg-config --cflags libscan)
    libs=$(pkg-config --libs libscan)
    echo "pkg-config libscan $(pkg-config --modversion libscan): cflags: $cflags"
    echo "pkg-config libscan: libs: $libs"
    bdir=$work/pkg-config
    rm -rf "$bdir" && mkdir -p "$bdir"
    # The public header must be clean C99 under strict warnings.
    # shellcheck disable=SC2086 # the flags are meant to be split
    "${cc:-cc}" -std=c99 -Wall -Wextra -Werror $cflags -c "$project/consumer.c" -o "$bdir/consumer.o"
    # shellcheck disable=SC2086
    "${cc:-cc}" "$bdir/consumer.o" -o "$bdir/consumer_c" $libs
    # Run it the way a user of a non-system prefix would: with the -L
    # directories (libscan's and CUDA's) on the loader path.
    ldpath=""
    for flag in $libs; do
        [[ $flag == -L* ]] && ldpath+="${ldpath:+:}${flag#-L}"
    done
    LD_LIBRARY_PATH="$ldpath${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" run_programs "$bdir/consumer_c"
    ;;

*)
    die "unknown mode '$mode' (install, find_package, subdirectory or pkg-config)"
    ;;
esac
echo "run.sh: $mode ok"
