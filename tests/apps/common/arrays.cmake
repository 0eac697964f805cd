# Suites for apps/common's array files and CLI helpers (target app_common).
# Included by tests/common/CMakeLists.txt; label cpu (no GPU needed).
if(TARGET app_common)
  add_library(libscan_test_common_fixtures STATIC ${CMAKE_CURRENT_SOURCE_DIR}/fixtures.c)
  target_include_directories(libscan_test_common_fixtures PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(libscan_test_common_fixtures PUBLIC libscan_test_support PRIVATE libscan_warnings)

  libscan_add_suite(test_array_io SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_array_io.c LABELS cpu TIMEOUT 300)
  target_link_libraries(test_array_io PRIVATE app_common libscan_test_common_fixtures m)

  libscan_add_suite(test_cli_helpers SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_cli_helpers.c LABELS cpu TIMEOUT 120)
  find_package(Threads REQUIRED) # the signal clean-up with threads writing at once
  target_link_libraries(test_cli_helpers PRIVATE app_common libscan_test_common_fixtures Threads::Threads m)

  libscan_add_suite(test_stream_io SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_stream_io.c LABELS cpu TIMEOUT 300)
  target_link_libraries(test_stream_io PRIVATE app_common libscan_test_common_fixtures m)

  libscan_add_suite(test_out_map SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_out_map.c LABELS cpu TIMEOUT 120)
  target_link_libraries(test_out_map PRIVATE app_common libscan_test_common_fixtures m)
endif()
