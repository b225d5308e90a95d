# The one version scheme (docs/ABI.md, "Versions"): the library's version is
# <ABI major>.<ABI minor>.<patch>, written once, as SG_LIBRARY_VERSION in the
# public header; project() takes it from there. Included before project().
function(sg_header_define header name out)
  file(STRINGS ${header} line REGEX "^#define ${name} ")
  if(NOT line MATCHES "^#define ${name} \"?([0-9.]+)\"?$")
    message(FATAL_ERROR "${header}: no '#define ${name}' with a version number")
  endif()
  set(${out} ${CMAKE_MATCH_1} PARENT_SCOPE)
endfunction()

set(sg_header ${CMAKE_CURRENT_LIST_DIR}/../abi/stepgraph.h)
sg_header_define(${sg_header} SG_LIBRARY_VERSION SG_LIBRARY_VERSION)
sg_header_define(${sg_header} SG_ABI_MAJOR SG_ABI_MAJOR)
sg_header_define(${sg_header} SG_ABI_MINOR SG_ABI_MINOR)
if(NOT SG_LIBRARY_VERSION MATCHES "^${SG_ABI_MAJOR}\\.${SG_ABI_MINOR}\\.[0-9]+$")
  message(FATAL_ERROR "SG_LIBRARY_VERSION ${SG_LIBRARY_VERSION} must be "
    "<ABI major>.<ABI minor>.<patch>: ${SG_ABI_MAJOR}.${SG_ABI_MINOR}.N")
endif()
