# libscan_find_nccl.cmake -- finds NCCL for libscan_nccl (<libscan/nccl.h>)
# and defines the imported target libscan::nccl_dep (headers + libnccl).
#
#   libscan_find_nccl(<result-var>)
#
# Where it looks, first hit wins (the headers and the library must come from
# the same place, so a wheel's nccl.h is never paired with another libnccl):
#   1. NCCL_ROOT (CMake or environment variable): <root>/include, <root>/lib*.
#   2. The system: CMAKE_PREFIX_PATH, /usr, /usr/local and the CUDA toolkit
#      (NVIDIA's libnccl-dev puts nccl.h in /usr/include, the library in
#      /usr/lib/<arch>; some toolkits ship both in the toolkit's own folders).
#   3. The nvidia-nccl-cu13 (or -cu12) wheel of `python3` (or $Python3_EXECUTABLE):
#      the package folder of `import nvidia.nccl` has include/nccl.h and
#      lib/libnccl.so.2 (the wheel has no unversioned libnccl.so, hence that
#      name is searched too). nvidia.nccl is a namespace package in the
#      2.2x-2.3x wheels (no __init__.py, so __file__ is None): its folder is
#      then __path__[0].
# Sets <result-var> to TRUE or FALSE and, when found, LIBSCAN_NCCL_VERSION
# (from NCCL_MAJOR/MINOR/PATCH in nccl.h) and LIBSCAN_NCCL_LIBRARY. Needs
# NCCL >= 2.7 (ncclSend/ncclRecv); an older one counts as not found.
# This file is installed with the CMake package so that find_package(libscan)
# can recreate libscan::nccl_dep for libscan::nccl.

function(_libscan_nccl_try result inc_hints lib_hints no_default)
  set(_opts "")
  if(no_default)
    set(_opts NO_DEFAULT_PATH)
  endif()
  find_path(_libscan_nccl_inc NAMES nccl.h HINTS ${inc_hints} ${_opts})
  find_library(_libscan_nccl_lib NAMES nccl libnccl.so.2 NAMES_PER_DIR HINTS ${lib_hints} ${_opts})
  set(_i "${_libscan_nccl_inc}")
  set(_l "${_libscan_nccl_lib}")
  unset(_libscan_nccl_inc CACHE)
  unset(_libscan_nccl_lib CACHE)
  if(_i AND _l)
    set(${result} "${_i};${_l}" PARENT_SCOPE)
  else()
    set(${result} "" PARENT_SCOPE)
  endif()
endfunction()

function(libscan_find_nccl result)
  set(${result} FALSE PARENT_SCOPE)
  set(_found "")
  set(_where "")

  # 1. NCCL_ROOT
  set(_root "${NCCL_ROOT}")
  if(NOT _root AND DEFINED ENV{NCCL_ROOT})
    set(_root "$ENV{NCCL_ROOT}")
  endif()
  if(_root)
    _libscan_nccl_try(_found "${_root}/include" "${_root}/lib;${_root}/lib64;${_root}/lib/x86_64-linux-gnu" TRUE)
    set(_where "NCCL_ROOT ${_root}")
  endif()

  # 2. The system and the CUDA toolkit.
  if(NOT _found)
    set(_inc_hints ${CUDAToolkit_INCLUDE_DIRS})
    set(_lib_hints ${CUDAToolkit_LIBRARY_DIR})
    _libscan_nccl_try(_found "${_inc_hints}" "${_lib_hints}" FALSE)
    set(_where "the system")
  endif()

  # 3. The pip wheel (nvidia-nccl-cu13 / -cu12).
  if(NOT _found)
    if(Python3_EXECUTABLE)
      set(_py "${Python3_EXECUTABLE}")
    else()
      find_program(LIBSCAN_PYTHON3 NAMES python3)
      set(_py "${LIBSCAN_PYTHON3}")
    endif()
    if(_py)
      execute_process(
        COMMAND "${_py}" -c
          "import nvidia.nccl as m, os; print(os.path.dirname(m.__file__) if getattr(m, '__file__', None) else list(m.__path__)[0])"
        OUTPUT_VARIABLE _wheel OUTPUT_STRIP_TRAILING_WHITESPACE
        RESULT_VARIABLE _rc ERROR_QUIET)
      if(_rc EQUAL 0 AND IS_DIRECTORY "${_wheel}/include")
        _libscan_nccl_try(_found "${_wheel}/include" "${_wheel}/lib" TRUE)
        set(_where "the python wheel in ${_wheel}")
      endif()
    endif()
  endif()

  if(NOT _found)
    return()
  endif()
  list(GET _found 0 _inc)
  list(GET _found 1 _lib)

  file(STRINGS "${_inc}/nccl.h" _defs REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) +[0-9]+")
  set(_ver "")
  foreach(_part MAJOR MINOR PATCH)
    string(REGEX MATCH "NCCL_${_part} +([0-9]+)" _m "${_defs}")
    list(APPEND _ver "${CMAKE_MATCH_1}")
  endforeach()
  list(JOIN _ver "." _ver)
  if(_ver VERSION_LESS 2.7)
    message(STATUS "libscan: NCCL ${_ver} at ${_inc} is older than 2.7 (no ncclSend/ncclRecv): not used")
    return()
  endif()

  if(NOT TARGET libscan::nccl_dep)
    add_library(libscan::nccl_dep SHARED IMPORTED GLOBAL)
    set_target_properties(libscan::nccl_dep PROPERTIES
      IMPORTED_LOCATION "${_lib}"
      INTERFACE_INCLUDE_DIRECTORIES "${_inc}")
    # libnccl.so.2 from the wheel has that SONAME; IMPORTED_NO_SONAME stays
    # off so the loader looks it up by SONAME through the RUNPATH CMake adds.
  endif()
  set(LIBSCAN_NCCL_VERSION "${_ver}" PARENT_SCOPE)
  set(LIBSCAN_NCCL_LIBRARY "${_lib}" PARENT_SCOPE)
  set(LIBSCAN_NCCL_INCLUDE_DIR "${_inc}" PARENT_SCOPE)
  message(STATUS "libscan: NCCL ${_ver} from ${_where} (${_lib})")
  set(${result} TRUE PARENT_SCOPE)
endfunction()
