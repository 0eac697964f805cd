# app_common: array files (.npy / raw / text) and CLI helpers shared by the
# programs (compact, radixsort, sat_blur). Included by apps/common/CMakeLists.txt.
# Users write #include "common/array_io.h" / "common/cli.h".
add_library(app_common STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/cli.c
  ${CMAKE_CURRENT_SOURCE_DIR}/gpu_probe.c
  ${CMAKE_CURRENT_SOURCE_DIR}/out_file.c
  ${CMAKE_CURRENT_SOURCE_DIR}/out_map.c
  ${CMAKE_CURRENT_SOURCE_DIR}/progress.c
  ${CMAKE_CURRENT_SOURCE_DIR}/dtype.c
  ${CMAKE_CURRENT_SOURCE_DIR}/npy.c
  ${CMAKE_CURRENT_SOURCE_DIR}/text_values.c
  ${CMAKE_CURRENT_SOURCE_DIR}/array_io.c
  ${CMAKE_CURRENT_SOURCE_DIR}/bulk_mem.c
  ${CMAKE_CURRENT_SOURCE_DIR}/host_mem.c
  ${CMAKE_CURRENT_SOURCE_DIR}/par_io.c
  ${CMAKE_CURRENT_SOURCE_DIR}/stream_src.c
  ${CMAKE_CURRENT_SOURCE_DIR}/stream_sink.c
  ${CMAKE_CURRENT_SOURCE_DIR}/temp_file.c
  ${CMAKE_CURRENT_SOURCE_DIR}/threads.c)
target_include_directories(app_common PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/..)
# app_gpu_usable() probes through the CUDA runtime; the shared one, like the
# rest of the project, so a program has a single runtime.
find_package(Threads REQUIRED)
target_link_libraries(app_common PUBLIC CUDA::cudart m Threads::Threads PRIVATE libscan_warnings)
set_target_properties(app_common PROPERTIES POSITION_INDEPENDENT_CODE ON)
