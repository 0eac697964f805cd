# apps/common/images.cmake -- target app_image: PNG in (libpng, the image
# data inflated by libdeflate), PNG out (zlib in parallel bands, libpng for
# the chunks) and BMP/TGA out (stb_image_write from the system's libstb),
# JPEG in and out (jpeg.cmake), sRGB helpers. Users write
# #include "common/image_io.h".
#
# libdeflate (libdeflate-dev): found like libstb below, under
# CMAKE_PREFIX_PATH first, then the system.
#
# libstb: the header <stb/stb_image_write.h> from libstb-dev and the
# implementation in libstb.so (libstb0). Found under CMAKE_PREFIX_PATH first
# (e.g. .deb contents unpacked to /tmp/deps/usr), then the system. The -dev
# package provides libstb.so (a symlink); unpacked alone, libstb0 gives only
# libstb.so.0: both names are accepted.
find_package(PNG REQUIRED)
find_package(ZLIB REQUIRED) # the PNG writer's deflate; crc32, to name a damaged chunk
find_package(Threads REQUIRED)

set(_stb_prefixes ${CMAKE_PREFIX_PATH})
if(DEFINED ENV{CMAKE_PREFIX_PATH})
  string(REPLACE ":" ";" _stb_env_prefixes "$ENV{CMAKE_PREFIX_PATH}")
  list(APPEND _stb_prefixes ${_stb_env_prefixes})
endif()
set(_stb_inc_hints "")
set(_stb_lib_hints "")
foreach(_p IN LISTS _stb_prefixes)
  list(APPEND _stb_inc_hints ${_p}/include)
  list(APPEND _stb_lib_hints ${_p}/lib/x86_64-linux-gnu ${_p}/lib/${CMAKE_LIBRARY_ARCHITECTURE} ${_p}/lib64 ${_p}/lib)
endforeach()
find_path(LIBSCAN_STB_INCLUDE_DIR NAMES stb/stb_image_write.h HINTS ${_stb_inc_hints})
find_library(LIBSCAN_STB_LIBRARY NAMES stb libstb.so.0 NAMES_PER_DIR HINTS ${_stb_lib_hints}
             PATH_SUFFIXES lib/x86_64-linux-gnu lib/${CMAKE_LIBRARY_ARCHITECTURE} lib64 lib)
if(NOT LIBSCAN_STB_INCLUDE_DIR OR NOT LIBSCAN_STB_LIBRARY)
  message(FATAL_ERROR
    "app_image needs stb_image_write (header: ${LIBSCAN_STB_INCLUDE_DIR}, library: ${LIBSCAN_STB_LIBRARY}). "
    "Install libstb-dev, or point CMAKE_PREFIX_PATH at a prefix holding include/stb/stb_image_write.h "
    "and lib/<arch>/libstb.so[.0].")
endif()
message(STATUS "app_image: stb ${LIBSCAN_STB_LIBRARY} (headers in ${LIBSCAN_STB_INCLUDE_DIR})")
if(NOT TARGET libscan_stb)
  add_library(libscan_stb UNKNOWN IMPORTED GLOBAL)
  set_target_properties(libscan_stb PROPERTIES
    IMPORTED_LOCATION "${LIBSCAN_STB_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${LIBSCAN_STB_INCLUDE_DIR}")
endif()

find_path(LIBSCAN_DEFLATE_INCLUDE_DIR NAMES libdeflate.h HINTS ${_stb_inc_hints})
find_library(LIBSCAN_DEFLATE_LIBRARY NAMES deflate libdeflate.so.0 NAMES_PER_DIR HINTS ${_stb_lib_hints}
             PATH_SUFFIXES lib/x86_64-linux-gnu lib/${CMAKE_LIBRARY_ARCHITECTURE} lib64 lib)
if(NOT LIBSCAN_DEFLATE_INCLUDE_DIR OR NOT LIBSCAN_DEFLATE_LIBRARY)
  message(FATAL_ERROR
    "app_image needs libdeflate (header: ${LIBSCAN_DEFLATE_INCLUDE_DIR}, library: ${LIBSCAN_DEFLATE_LIBRARY}). "
    "Install libdeflate-dev, or point CMAKE_PREFIX_PATH at a prefix holding include/libdeflate.h "
    "and lib/<arch>/libdeflate.so[.0].")
endif()
message(STATUS "app_image: libdeflate ${LIBSCAN_DEFLATE_LIBRARY}")
if(NOT TARGET libscan_deflate)
  add_library(libscan_deflate UNKNOWN IMPORTED GLOBAL)
  set_target_properties(libscan_deflate PROPERTIES
    IMPORTED_LOCATION "${LIBSCAN_DEFLATE_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${LIBSCAN_DEFLATE_INCLUDE_DIR}")
endif()

add_library(app_image STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/image.c
  ${CMAKE_CURRENT_SOURCE_DIR}/png_read.c
  ${CMAKE_CURRENT_SOURCE_DIR}/png_inflate.c
  ${CMAKE_CURRENT_SOURCE_DIR}/png_unfilter.c
  ${CMAKE_CURRENT_SOURCE_DIR}/image_write.c
  ${CMAKE_CURRENT_SOURCE_DIR}/png_write.c
  ${CMAKE_CURRENT_SOURCE_DIR}/png_filter.c
  ${CMAKE_CURRENT_SOURCE_DIR}/png_deflate.c
  ${CMAKE_CURRENT_SOURCE_DIR}/srgb.c)
target_include_directories(app_image PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/..)
# app_common: img_write goes through its atomic output files (app_out_*,
# whose temporary files the SIGINT/SIGTERM clean-up removes) and quotes file
# content through app_escape.
target_link_libraries(app_image PUBLIC PNG::PNG ZLIB::ZLIB Threads::Threads m
                      PRIVATE app_common libscan_stb libscan_deflate libscan_warnings)
set_target_properties(app_image PROPERTIES POSITION_INDEPENDENT_CODE ON)
# JPEG in and out (TurboJPEG; nvJPEG where the toolkit has it): jpeg.cmake.
include(${CMAKE_CURRENT_SOURCE_DIR}/jpeg.cmake)

# The sample scene for sat_blur (data/scene): its generator uses app_image.
add_subdirectory(${PROJECT_SOURCE_DIR}/data/scene ${CMAKE_BINARY_DIR}/data/scene)
