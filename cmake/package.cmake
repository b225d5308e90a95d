# `cpack -G DEB` (or `cpack --config build/CPackConfig.cmake`): two Debian
# packages from the install rules (cmake/install.cmake):
#   libstepgraph1     the runtime component: the library and its SONAME link
#   libstepgraph-dev  the dev component: header, link-time name, CMake
#                     package, pkg-config file
# The CUDA runtime is linked into the library, so no CUDA package is a
# dependency. What the library needs is an NVIDIA driver >= 580 (libcuda,
# which the runtime loads at run time); drivers come from NVIDIA's packages,
# the distribution's or a .run installer under different names, so that is
# stated in the description, not as a dependency.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME stepgraph)
set(CPACK_PACKAGE_VENDOR "stepgraph")
set(CPACK_PACKAGE_CONTACT "stepgraph developers")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)

set(sg_driver_note
  "The CUDA 13.0 runtime is linked in statically: it needs an NVIDIA GPU of\ncompute capability 8.0 or newer and an NVIDIA driver >= 580, and no CUDA\ntoolkit or runtime package.")

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME libstepgraph${SG_ABI_MAJOR})
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
# The library's NEEDED entries, each with the oldest version whose symbols
# it uses (tests/install checks these against the built library).
set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS "libc6 (>= 2.34), libgcc-s1, libstdc++6")
# A shlibs file and ldconfig in postinst/postrm, as Debian's library
# packages have (only the runtime package holds a shared object).
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION
  "CUDA graphs for a training step through a stable C ABI\nlibstepgraph.so.${SG_ABI_MAJOR} hands a training framework's step over to CUDA graphs:\na host dlopens it and calls one versioned entry point, sg_get_api_v1, for\na table of hooks (pre-capture, capture, replay, step driver, the FP8\nweight transpose refresh after the optimizer step, graph-safe RNG,\nstatistics).\n${sg_driver_note}")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libstepgraph-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
  "libstepgraph${SG_ABI_MAJOR} (= ${PROJECT_VERSION})")
set(CPACK_COMPONENT_DEV_DESCRIPTION
  "stepgraph: header, CMake package and pkg-config file\nThe public header stepgraph/stepgraph.h (all a host that dlopens\nlibstepgraph.so.${SG_ABI_MAJOR} needs), the link-time name libstepgraph.so, the\nCMake package (find_package(stepgraph): stepgraph::headers,\nstepgraph::stepgraph) and stepgraph.pc.\n${sg_driver_note}")

include(CPack)
