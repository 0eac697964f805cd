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
#   pkg-config    compile + link consumer.c (cc) and families.cu, affine_scan.cu
#                 (nvcc) with `pkg-config --cflags --libs libscan` from
#                 WORK/prefix, shared and (consumer.c) static, then run them
#
# The programs: consumer.c calls every family of the C API (scan, segmented
# scan, sort, compaction, SAT) from C, families.cu the same from CUDA C++,
# each linked once against the shared and once against the static library;
# affine_scan.cu uses the device layer. Every program must link exactly one
# of libscan.so and libscan.a: run.sh checks the link commands CMake
# generates and, for every mode, the binaries (readelf -d, nm).
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
# Ninja deletes response files after a successful link; keep them for
# check_link_line.
[[ $generator == *Ninja* ]] && build_args+=(-- -d keeprsp)

# Runs each program given; all must exit 0.
run_programs() {
    local p
    for p in "$@"; do
        echo "== $p"
        "$p" || die "$p exited with status $?"
    done
}

# The link command CMake generated for target $2 in build dir $1 (Makefile
# and Ninja generators), on one line, with the response files it names
# (@file: CMake passes CUDA links' objects and libraries that way) appended.
link_command() {
    local bdir=$1 t=$2 cmd tok f
    if [[ -f $bdir/CMakeFiles/$t.dir/link.txt ]]; then
        cmd=$(tr '\n' ' ' <"$bdir/CMakeFiles/$t.dir/link.txt")
    elif [[ -f $bdir/build.ninja ]]; then
        command -v ninja >/dev/null || die "ninja is needed to read $bdir/build.ninja"
        cmd=$(ninja -C "$bdir" -t commands "$t" | tail -n 1)
    else
        die "cannot find the link command of $t in $bdir (generator not supported by run.sh)"
    fi
    for tok in $cmd; do
        [[ $tok == @* ]] || continue
        f=${tok#@}
        [[ $f == /* ]] || f=$bdir/$f
        [[ -f $f ]] || die "response file $f of $t's link command is missing"
        cmd+=" $(tr '\n' ' ' <"$f")"
    done
    echo "$cmd"
}

# Whether a link command names libscan's static and its shared library.
links_static() { grep -qE '(^|[[:space:]/"])libscan\.a([[:space:]"]|$)|-l:libscan\.a([[:space:]]|$)' <<<"$1"; }
links_shared() { grep -qE '(^|[[:space:]/"])libscan\.so(\.[0-9]+)*([[:space:]"]|$)|(^|[[:space:]])-lscan([[:space:]]|$)' <<<"$1"; }

# check_link_line BUILD_DIR TARGET shared|static: the generated link command
# names the one library the target asked for, never both.
check_link_line() {
    local cmd
    cmd=$(link_command "$1" "$2")
    local s=0 d=0
    links_static "$cmd" && s=1
    links_shared "$cmd" && d=1
    if ((s && d)); then
        die "$2 links both libscan.a and libscan.so: $cmd"
    fi
    case $3 in
    shared) ((d)) || die "$2 should link libscan.so; its link command: $cmd" ;;
    static) ((s)) || die "$2 should link libscan.a; its link command: $cmd" ;;
    esac
    if [[ $3 == none ]]; then
        ((s || d)) && die "$2 should link no libscan library: $cmd"
        echo "link line of $2: no libscan library"
    else
        echo "link line of $2: the $3 libscan only"
    fi
}

# check_binary EXE shared|static: the program needs libscan.so (and holds no
# libscan code of its own), or holds libscan's code and does not need the .so.
check_binary() {
    local exe=$1 kind=$2 needs=0 defines=0
    command -v readelf >/dev/null && command -v nm >/dev/null || die "readelf and nm (binutils) are needed"
    local dynamic symbols # read whole first: grep -q on a pipe would cut it short (SIGPIPE under pipefail)
    dynamic=$(readelf -d "$exe")
    symbols=$(nm --defined-only "$exe")
    grep -qE 'NEEDED.*\[libscan\.so' <<<"$dynamic" && needs=1
    grep -qE ' [Tt] libscan_inclusive_scan$' <<<"$symbols" && defines=1
    if ((needs && defines)); then
        die "$exe both needs libscan.so and contains libscan's code (libscan.a and libscan.so on one link line)"
    fi
    case $kind in
    shared) ((needs && !defines)) || die "$exe should use libscan.so (NEEDED: $needs, own copy: $defines)" ;;
    static) ((defines && !needs)) || die "$exe should contain libscan.a's code (NEEDED: $needs, own copy: $defines)" ;;
    esac
    echo "binary $(basename "$exe"): libscan ${kind} only"
}

# The CMake-built programs and the library each should link.
cmake_programs=(consumer_c:shared consumer_c_static:static consumer_cuda_api:shared
                consumer_cuda_api_static:static consumer_cuda:none)

# Checks every CMake-built program's link line and binary, then runs them.
check_and_run_cmake_build() {
    local bdir=$1 entry t kind programs=()
    for entry in "${cmake_programs[@]}"; do
        t=${entry%%:*} kind=${entry#*:}
        check_link_line "$bdir" "$t" "$kind"
        [[ $kind == none ]] || check_binary "$bdir/$t" "$kind"
        programs+=("$bdir/$t")
    done
    run_programs "${programs[@]}"
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
    for f in include/libscan/libscan.h include/libscan/sort.h include/libscan/compact.h include/libscan/sat.h \
             include/libscan/version.h include/libscan/cuda/warp_scan.cuh include/libscan/cuda/block_scan.cuh \
             include/libscan/cuda/compact.cuh; do
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
    check_and_run_cmake_build "$bdir"
    ;;

subdirectory)
    bdir=$work/subdirectory
    rm -rf "$bdir"
    "$cmake" -S "$project" -B "$bdir" "${configure_args[@]}" -DCONSUMER_USE_SUBDIRECTORY=ON \
        -DLIBSCAN_SOURCE_DIR="$src"
    "$cmake" --build "$bdir" "${build_args[@]}"
    check_and_run_cmake_build "$bdir"
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
    # The public headers must be clean C99 under strict warnings.
    # shellcheck disable=SC2086 # the flags are meant to be split
    "${cc:-cc}" -std=c99 -Wall -Wextra -Werror $cflags -c "$project/consumer.c" -o "$bdir/consumer.o"
    # shellcheck disable=SC2086
    "${cc:-cc}" "$bdir/consumer.o" -o "$bdir/consumer_c" $libs
    # Static: the same flags with Libs.private (what libscan.a needs beyond
    # the CUDA runtime), libscan itself taken as the archive.
    static_libs=$(pkg-config --static --libs libscan)
    # shellcheck disable=SC2086
    "${cc:-cc}" "$bdir/consumer.o" -o "$bdir/consumer_c_static" ${static_libs/-lscan/-l:libscan.a}
    # CUDA C++: every family, and a kernel on the device layer. nvcc takes
    # -I, -L and -l as they are.
    [[ -n $nvcc ]] || nvcc=nvcc
    nvcc_args=(-std=c++17 -arch=sm_90 -Xcompiler=-Wall,-Wextra,-Werror)
    [[ -n $hostcxx ]] && nvcc_args+=(-ccbin "$hostcxx")
    # shellcheck disable=SC2086
    "$nvcc" "${nvcc_args[@]}" $cflags "$project/families.cu" -o "$bdir/consumer_cuda_api" $libs
    # shellcheck disable=SC2086
    "$nvcc" "${nvcc_args[@]}" $cflags "$project/affine_scan.cu" -o "$bdir/consumer_cuda"
    check_binary "$bdir/consumer_c" shared
    check_binary "$bdir/consumer_c_static" static
    check_binary "$bdir/consumer_cuda_api" shared
    # Run them the way a user of a non-system prefix would: with the -L
    # directories (libscan's and CUDA's) on the loader path.
    ldpath=""
    for flag in $libs; do
        [[ $flag == -L* ]] && ldpath+="${ldpath:+:}${flag#-L}"
    done
    LD_LIBRARY_PATH="$ldpath${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" run_programs "$bdir/consumer_c" \
        "$bdir/consumer_c_static" "$bdir/consumer_cuda_api" "$bdir/consumer_cuda"
    ;;

*)
    die "unknown mode '$mode' (install, find_package, subdirectory or pkg-config)"
    ;;
esac
echo "run.sh: $mode ok"
