/* Where the copy kernel reads a static source that may be host memory
 * (SG_REPLAY_HOST_SOURCES): a leaf, it knows no session.
 *
 * Page-locked host memory is device-accessible: CUDA maps every
 * cudaMallocHost/cudaHostAlloc allocation, and (with unified addressing)
 * every cudaHostRegister range, into the device's address space, and
 * cudaPointerGetAttributes gives the address a kernel on the current
 * device reads it through (devicePointer; the host pointer itself wherever
 * the device can use host pointers for registered memory). So the one
 * batched copy kernel reads host sources over the bus in the same launch
 * as device ones. Pageable memory has no such address (type
 * cudaMemoryTypeUnregistered) and is refused. */
#ifndef SG_SOURCE_ADDRESS_H
#define SG_SOURCE_ADDRESS_H

#include <stdint.h>

#include "error.h"

/* *out: the address through which a kernel on `device` (the current
 * device) reads src, the call's args->static_sources[index]. Refused,
 * naming it, unless src is page-locked host memory mapped for the device,
 * device memory of `device`, or managed memory. Formats nothing unless it
 * fails (replay's path). */
sg_status sg_source_address(sg_diag *d, int device, const void *src,
                            uint32_t index, const void **out);

#endif
