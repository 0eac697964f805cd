# bench_commit_test.cmake -- bench/bench_commit.cmake (SCRIPT) on a scratch
# repository under WORK: the commit's short hash, "-dirty" with a tracked file
# changed (not with an untracked one), "unknown" without git or outside a
# repository, and the output left untouched when its label has not changed.
#   cmake -DSCRIPT=... -DGIT=<git or empty> -DWORK=<scratch folder> -P bench_commit_test.cmake
set(_out ${WORK}/bench_commit.c)
function(stamp src git)
  execute_process(COMMAND ${CMAKE_COMMAND} -DSRC=${src} -DOUT=${_out} -DGIT=${git} -P ${SCRIPT} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "bench_commit.cmake failed (${rc}) on ${src}")
  endif()
endfunction()
function(expect label what)
  file(READ ${_out} text)
  if(NOT text MATCHES "libscan_bench_build_commit\\[\\] = \"${label}\";")
    message(FATAL_ERROR "${what}: want the label \"${label}\", got: ${text}")
  endif()
endfunction()

# WORK may lie inside another checkout (a build folder in the source tree):
# git must not look above it.
set(ENV{GIT_CEILING_DIRECTORIES} ${WORK})
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/repo ${WORK}/plain)

# No git at all, and a folder that is no repository: "unknown".
stamp(${WORK}/plain "")
expect("unknown" "without git")
if(NOT GIT)
  message("SKIPPED: git not found; only the \"unknown\" case ran")
  return()
endif()
stamp(${WORK}/plain ${GIT})
expect("unknown" "outside a repository")

function(git)
  execute_process(COMMAND ${GIT} -c user.name=t -c user.email=t@t ${ARGN} WORKING_DIRECTORY ${WORK}/repo
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "git ${ARGN}: ${err}")
  endif()
  set(git_out "${out}" PARENT_SCOPE)
endfunction()
git(init -q)
file(WRITE ${WORK}/repo/a.txt "one\n")
git(add a.txt)
git(commit -q -m one)
git(rev-parse --short HEAD)
set(_head "${git_out}")

stamp(${WORK}/repo ${GIT})
expect("${_head}" "a clean checkout")
file(WRITE ${WORK}/repo/untracked.txt "x\n")
stamp(${WORK}/repo ${GIT})
expect("${_head}" "an untracked file")

# Unchanged label: the file is not written again (its build stays).
file(TIMESTAMP ${_out} _before "%s")
execute_process(COMMAND ${CMAKE_COMMAND} -E sleep 1.1)
stamp(${WORK}/repo ${GIT})
file(TIMESTAMP ${_out} _after "%s")
if(NOT _before STREQUAL _after)
  message(FATAL_ERROR "an unchanged label rewrote ${_out} (${_before} -> ${_after})")
endif()

file(WRITE ${WORK}/repo/a.txt "two\n")
stamp(${WORK}/repo ${GIT})
expect("${_head}-dirty" "a changed tracked file")

git(commit -q -am two)
git(rev-parse --short HEAD)
stamp(${WORK}/repo ${GIT})
expect("${git_out}" "a new commit")
message("bench_commit_stamp: unknown, clean, untracked, unchanged, dirty, new commit: ok")
