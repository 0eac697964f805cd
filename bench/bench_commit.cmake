# bench_commit.cmake -- run at every build (bench/CMakeLists.txt's
# libscan_bench_commit_stamp): writes OUT, a C file defining the commit the
# benchmarks were built at, "-dirty" when tracked files differ from it, or
# "unknown" outside a git checkout. OUT is rewritten only when the label
# changes, so that an unchanged commit rebuilds nothing.
#   cmake -DSRC=<source tree> -DOUT=<file.c> [-DGIT=<git>] -P bench_commit.cmake
set(_commit "unknown")
if(GIT)
  execute_process(COMMAND ${GIT} rev-parse --short HEAD WORKING_DIRECTORY ${SRC}
                  OUTPUT_VARIABLE _head OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _rc)
  if(_rc EQUAL 0 AND NOT _head STREQUAL "")
    set(_commit "${_head}")
    execute_process(COMMAND ${GIT} status --porcelain --untracked-files=no WORKING_DIRECTORY ${SRC}
                    OUTPUT_VARIABLE _changes OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _rc)
    if(_rc EQUAL 0 AND NOT _changes STREQUAL "")
      string(APPEND _commit "-dirty")
    endif()
  endif()
endif()
set(_text "/* Generated at build time by bench/bench_commit.cmake. */\nconst char libscan_bench_build_commit[] = \"${_commit}\";\n")
set(_old "")
if(EXISTS ${OUT})
  file(READ ${OUT} _old)
endif()
if(NOT _old STREQUAL _text)
  file(WRITE ${OUT} "${_text}")
endif()
