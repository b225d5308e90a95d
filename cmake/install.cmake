# What `cmake --install` lays out, and the targets a consumer sees:
#   include/stepgraph/stepgraph.h            the public header      (dev)
#   include/stepgraph/stepgraph_rng.cuh      device-side RNG helpers (dev)
#   lib/libstepgraph.so.<library version>    the library            (runtime)
#   lib/libstepgraph.so.<ABI major> -> it    its SONAME link        (runtime)
#   lib/libstepgraph.so -> the SONAME link   the link-time name     (dev)
#   lib/cmake/stepgraph/                     find_package(stepgraph) (dev)
#   lib/pkgconfig/stepgraph.pc               pkg-config stepgraph   (dev)
# Targets, the same in this build (aliases, for add_subdirectory users) and
# installed (imported): stepgraph::headers, the header alone, which is all a
# host that dlopens the library needs; stepgraph::stepgraph, the library,
# for a host that links it.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

get_target_property(sg_soversion stepgraph SOVERSION)
if(NOT sg_soversion STREQUAL SG_ABI_MAJOR)
  message(FATAL_ERROR "libstepgraph's SOVERSION (${sg_soversion}) must be "
    "the ABI major (${SG_ABI_MAJOR}): docs/ABI.md, Versions")
endif()

add_library(stepgraph_headers INTERFACE)
set_target_properties(stepgraph_headers PROPERTIES EXPORT_NAME headers)
target_include_directories(stepgraph_headers INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/abi>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/stepgraph>)
target_link_libraries(stepgraph INTERFACE stepgraph_headers)
add_library(stepgraph::headers ALIAS stepgraph_headers)
add_library(stepgraph::stepgraph ALIAS stepgraph)

set(sg_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/stepgraph)
install(TARGETS stepgraph stepgraph_headers EXPORT stepgraphTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    COMPONENT runtime NAMELINK_COMPONENT dev)
install(FILES ${PROJECT_SOURCE_DIR}/abi/stepgraph.h
  ${PROJECT_SOURCE_DIR}/abi/stepgraph_rng.cuh
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/stepgraph COMPONENT dev)
install(EXPORT stepgraphTargets NAMESPACE stepgraph::
  DESTINATION ${sg_cmake_dir} COMPONENT dev)

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/stepgraphConfig.cmake.in
  ${PROJECT_BINARY_DIR}/stepgraphConfig.cmake INSTALL_DESTINATION ${sg_cmake_dir})
# SameMajorVersion is the ABI's rule: any 1.x at least as new as the one
# asked for serves a host built against 1.y; 2.x never does.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/stepgraphConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/stepgraphConfig.cmake
              ${PROJECT_BINARY_DIR}/stepgraphConfigVersion.cmake
  DESTINATION ${sg_cmake_dir} COMPONENT dev)

# pkg-config finds the prefix from the .pc file's own folder, so an
# unpacked (not installed) package works too.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  message(FATAL_ERROR "stepgraph.pc needs CMAKE_INSTALL_LIBDIR and "
    "CMAKE_INSTALL_INCLUDEDIR relative to the prefix")
endif()
file(RELATIVE_PATH sg_pc_to_prefix /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
string(REGEX REPLACE "/$" "" sg_pc_to_prefix "${sg_pc_to_prefix}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/stepgraph.pc.in
  ${PROJECT_BINARY_DIR}/stepgraph.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/stepgraph.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

# The Python binding (python/) will install here once it exists, as its
# own component.
