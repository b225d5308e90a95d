/* Static buffers: device memory a graph reads at a fixed address, which
 * replay may fill from host-chosen sources before launching. */
#ifndef SG_STATICS_H
#define SG_STATICS_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"

typedef struct sg_static_buffer {
  void *data;
  uint64_t bytes;
} sg_static_buffer;

typedef struct sg_statics {
  sg_diag *diag;             /* the session's, for failures */
  sg_static_buffer *buffers; /* [capacity], the first `count` registered */
  const void **readable;     /* [capacity]: a call's sources as the copy
                                kernel reads them (host ones translated) */
  uint32_t count;
  uint32_t capacity;
} sg_statics;

/* The static sources a replay or driver step names: ptrs[i] (NULL: none)
 * for buffer i. */
typedef struct sg_sources {
  const void *const *ptrs;
  uint32_t count;
  bool host; /* may be host memory (SG_REPLAY/STEP_HOST_SOURCES) */
} sg_sources;

sg_status sg_statics_open(sg_statics *t, sg_diag *diag, uint32_t capacity);
void sg_statics_close(sg_statics *t);

/* Validates descs[0..n) (each on its own, then against each other and the
 * registered ones) and appends them all; on any error adds none. The caller
 * has checked that n fits. */
sg_status sg_statics_add(sg_statics *t, const sg_static_buffer_desc *descs,
                         uint32_t n);

/* Reads the sources of a replay or a driver step (the fields
 * static_sources, static_source_count and flags of its args): flags may
 * hold host_flag only (named flag_name in the message), and the count and
 * array must fit what is registered. */
sg_status sg_statics_read_sources(const sg_statics *t,
                                  const void *const *ptrs, uint32_t count,
                                  uint32_t flags, uint32_t host_flag,
                                  const char *flag_name, sg_sources *out);

#endif
