# tests/apps/common/jpeg.cmake -- test_jpeg: JPEG through apps/common
# (TurboJPEG out and in, checked with stb_image and the JPEG standard's
# tables; the fixtures in jpeg_fixtures/ that other encoders wrote; corrupt
# files; the PNG/JPEG dispatch) and, as test_jpeg_gpu, nvJPEG against
# TurboJPEG (label gpu: skipped without a GPU or without nvJPEG in the
# build). test_stb_decode: stb_image as a command, for the CLI scripts.
if(TARGET app_image)
  find_package(PNG REQUIRED) # png_gen.c: the tests' own PNG encoder
  libscan_add_suite(test_jpeg
    SOURCES test_jpeg.c jpeg_check.c png_gen.c image_test_util.c
    LABELS cpu TIMEOUT 300)
  target_link_libraries(test_jpeg PRIVATE app_image PNG::PNG libscan_stb m)
  target_compile_definitions(test_jpeg PRIVATE TEST_JPEG_FIXTURES="${CMAKE_CURRENT_SOURCE_DIR}/jpeg_fixtures")
  set_tests_properties(test_jpeg PROPERTIES ENVIRONMENT "LIBSCAN_TEST_FILTER=cpu_*")
  add_test(NAME test_jpeg_gpu COMMAND test_jpeg)
  set_tests_properties(test_jpeg_gpu PROPERTIES
    LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 600 RESOURCE_LOCK libscan_gpu ENVIRONMENT "LIBSCAN_TEST_FILTER=gpu_*")

  add_executable(test_stb_decode stb_decode.c)
  target_link_libraries(test_stb_decode PRIVATE libscan_stb libscan_warnings)
endif()
