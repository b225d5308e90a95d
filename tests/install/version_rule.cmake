# cmake -P version_rule.cmake: asks an installed stepgraphConfigVersion.cmake
# (VERSION_FILE) whether it serves a request for version WANT, as
# find_package(stepgraph WANT) would, and exits with an error unless the
# answer is EXPECT (TRUE or FALSE). Faster than configuring a project per
# version.
set(PACKAGE_FIND_VERSION ${WANT})
string(REPLACE "." ";" parts ${WANT})
list(GET parts 0 PACKAGE_FIND_VERSION_MAJOR)
list(GET parts 1 PACKAGE_FIND_VERSION_MINOR)
set(PACKAGE_FIND_VERSION_COUNT 2)
set(CMAKE_SIZEOF_VOID_P 8)
include(${VERSION_FILE})
if(PACKAGE_VERSION_COMPATIBLE)
  set(got TRUE)
else()
  set(got FALSE)
endif()
if(NOT got STREQUAL EXPECT)
  message(FATAL_ERROR "find_package(stepgraph ${WANT}) against ${PACKAGE_VERSION}: "
    "compatible=${got}, expected ${EXPECT}")
endif()
