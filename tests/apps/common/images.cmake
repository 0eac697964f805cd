# tests/common/images.cmake -- test_image_io: apps/common/image_io (PNG
# reading of every kind, writing PNG/JPEG/BMP/TGA, the PNG encoder's parts
# and the reader's fast path, png_unfilter's threads, sRGB) and the committed
# sample scene in data/scene (decodes, and make_scene reproduces it).
if(TARGET app_image AND TARGET make_scene)
  find_package(PNG REQUIRED) # the test writes its own PNG files with libpng
  libscan_add_suite(test_image_io
    SOURCES test_image_io.c test_image_write.c test_png_codec.c test_png_unfilter.c test_image_srgb.c png_gen.c image_test_util.c
    LABELS cpu TIMEOUT 120)
  find_package(ZLIB REQUIRED) # the encoder's zlib streams are inflated by zlib itself
  target_link_libraries(test_image_io PRIVATE app_image PNG::PNG ZLIB::ZLIB libscan_stb m)
  target_compile_definitions(test_image_io PRIVATE
    TEST_MAKE_SCENE="$<TARGET_FILE:make_scene>"
    TEST_SCENE_DIR="${PROJECT_SOURCE_DIR}/data/scene")
  add_dependencies(test_image_io make_scene)
endif()
