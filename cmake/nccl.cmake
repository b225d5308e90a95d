# NCCL for the programs that call it directly: test_nccl_real and
# bench_multi (hosts, as a framework is). The plugin never needs it (it
# takes the host's functions or dlopens NCCL), nor does the trainer (which
# dlopens it too). Defines the target sg_nccl when NCCL is found.
find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS}
  ${CUDAToolkit_LIBRARY_ROOT}/include)
find_library(NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_ROOT}/lib
  ${CUDAToolkit_LIBRARY_DIR})
if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
  add_library(sg_nccl INTERFACE)
  target_include_directories(sg_nccl INTERFACE ${NCCL_INCLUDE_DIR})
  target_link_libraries(sg_nccl INTERFACE ${NCCL_LIBRARY})
else()
  message(STATUS "NCCL not found (NCCL_INCLUDE_DIR, NCCL_LIBRARY): "
                 "test_nccl_real and bench_multi are not built")
endif()
