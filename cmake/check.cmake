# The Check unit-test framework, linked statically so that test binaries built
# here also run on the GPU machine, which has no Check installed. Where Check
# is missing (that machine) the test programs are not built, unless
# STEPGRAPH_REQUIRE_CHECK is on (scripts/test turns it on).
option(STEPGRAPH_REQUIRE_CHECK "Fail to configure when Check is missing" OFF)
find_library(SG_CHECK_STATIC NAMES libcheck.a)
find_library(SG_SUBUNIT_STATIC NAMES libsubunit.a)
if(NOT SG_CHECK_STATIC)
  if(STEPGRAPH_REQUIRE_CHECK)
    message(FATAL_ERROR "Check (libcheck.a) not found: apt-get install check")
  endif()
  message(WARNING "Check not found: test programs are not built")
  return()
endif()
add_library(sg_check INTERFACE)
target_link_libraries(sg_check INTERFACE ${SG_CHECK_STATIC} m rt Threads::Threads)
if(SG_SUBUNIT_STATIC)
  target_link_libraries(sg_check INTERFACE ${SG_SUBUNIT_STATIC})
endif()
