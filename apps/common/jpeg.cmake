# apps/common/jpeg.cmake -- JPEG for app_image (included by images.cmake once
# app_image exists): TurboJPEG (libjpeg-turbo) encodes and decodes, and
# nvJPEG encodes on the GPU where the CUDA toolkit has it.
#
# TurboJPEG: the header turbojpeg.h and libturbojpeg.so from
# libturbojpeg0-dev (Debian 12 and Ubuntu 24.04 ship 2.1.5; the code uses the
# tjCompress2/tjDecompress2 API, which 3.x keeps). Looked for like stb
# (images.cmake's hints: CMAKE_PREFIX_PATH first, e.g. .deb contents
# unpacked to /tmp/deps/usr, then the system); libturbojpeg.so.0 alone (the
# runtime package unpacked without the -dev one) is accepted too.
find_path(LIBSCAN_TURBOJPEG_INCLUDE_DIR NAMES turbojpeg.h HINTS ${_stb_inc_hints})
find_library(LIBSCAN_TURBOJPEG_LIBRARY NAMES turbojpeg libturbojpeg.so.0 NAMES_PER_DIR HINTS ${_stb_lib_hints}
             PATH_SUFFIXES lib/x86_64-linux-gnu lib/${CMAKE_LIBRARY_ARCHITECTURE} lib64 lib)
if(NOT LIBSCAN_TURBOJPEG_INCLUDE_DIR OR NOT LIBSCAN_TURBOJPEG_LIBRARY)
  message(FATAL_ERROR
    "app_image needs TurboJPEG (header: ${LIBSCAN_TURBOJPEG_INCLUDE_DIR}, library: ${LIBSCAN_TURBOJPEG_LIBRARY}). "
    "Install libturbojpeg0-dev, or point CMAKE_PREFIX_PATH at a prefix holding include/turbojpeg.h "
    "and lib/<arch>/libturbojpeg.so[.0].")
endif()
message(STATUS "app_image: TurboJPEG ${LIBSCAN_TURBOJPEG_LIBRARY} (header in ${LIBSCAN_TURBOJPEG_INCLUDE_DIR})")
if(NOT TARGET libscan_turbojpeg)
  add_library(libscan_turbojpeg UNKNOWN IMPORTED GLOBAL)
  set_target_properties(libscan_turbojpeg PROPERTIES
    IMPORTED_LOCATION "${LIBSCAN_TURBOJPEG_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${LIBSCAN_TURBOJPEG_INCLUDE_DIR}")
endif()

target_sources(app_image PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/image_read.c
  ${CMAKE_CURRENT_LIST_DIR}/jpeg_read.c
  ${CMAKE_CURRENT_LIST_DIR}/jpeg_write.c)
target_link_libraries(app_image PRIVATE libscan_turbojpeg)

# nvJPEG: FindCUDAToolkit (called by the top-level CMakeLists) makes
# CUDA::nvjpeg when the toolkit has libnvjpeg; the header must be there too
# (a runtime-only install has the library alone). -DLIBSCAN_NVJPEG=OFF
# leaves it out even when found. Without it nvjpeg_none.c stands in and
# img_write encodes every JPEG with TurboJPEG.
option(LIBSCAN_NVJPEG "Encode JPEG with nvJPEG on the GPU when the CUDA toolkit has it" ON)
set(LIBSCAN_HAVE_NVJPEG OFF)
if(NOT LIBSCAN_NVJPEG)
  set(_nvjpeg_why "LIBSCAN_NVJPEG is OFF")
elseif(NOT TARGET CUDA::nvjpeg)
  set(_nvjpeg_why "the CUDA toolkit has no libnvjpeg: no CUDA::nvjpeg")
else()
  find_path(LIBSCAN_NVJPEG_INCLUDE_DIR NAMES nvjpeg.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
  if(LIBSCAN_NVJPEG_INCLUDE_DIR)
    set(LIBSCAN_HAVE_NVJPEG ON)
  else()
    set(_nvjpeg_why "CUDA::nvjpeg exists but nvjpeg.h was not found")
  endif()
endif()
if(LIBSCAN_HAVE_NVJPEG)
  message(STATUS "app_image: nvJPEG found (header in ${LIBSCAN_NVJPEG_INCLUDE_DIR}): JPEG on the GPU when a program runs there")
  target_sources(app_image PRIVATE ${CMAKE_CURRENT_LIST_DIR}/nvjpeg_write.c)
  target_include_directories(app_image PRIVATE ${LIBSCAN_NVJPEG_INCLUDE_DIR})
  target_link_libraries(app_image PRIVATE CUDA::nvjpeg CUDA::cudart)
else()
  message(STATUS "app_image: no nvJPEG (${_nvjpeg_why}): every JPEG through TurboJPEG")
  target_sources(app_image PRIVATE ${CMAKE_CURRENT_LIST_DIR}/nvjpeg_none.c)
endif()
