# Part of `cmake --install`: writes lib/pkgconfig/fcast.pc with the prefix
# of this installation (--prefix, else CMAKE_INSTALL_PREFIX), under
# $DESTDIR when set. FC_PC_TEMPLATE (the configured cmake/fcast.pc.in) and
# FC_PC_DIR (lib/pkgconfig, or the platform's lib dir) come from the
# install(CODE) line before this script in CMakeLists.txt.
get_filename_component(FC_PC_PREFIX "${CMAKE_INSTALL_PREFIX}" ABSOLUTE)
set(dir "${FC_PC_PREFIX}/${FC_PC_DIR}")
if(DEFINED ENV{DESTDIR} AND NOT "$ENV{DESTDIR}" STREQUAL "")
  set(dir "$ENV{DESTDIR}${dir}")
endif()
file(READ "${FC_PC_TEMPLATE}" text)
string(CONFIGURE "${text}" text @ONLY)
message(STATUS "Installing: ${dir}/fcast.pc")
file(MAKE_DIRECTORY "${dir}")
file(WRITE "${dir}/fcast.pc" "${text}")
list(APPEND CMAKE_INSTALL_MANIFEST_FILES "${dir}/fcast.pc")
