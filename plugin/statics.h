/* Static buffers: device memory a graph reads at a fixed address, which
 * replay may fill from host-chosen sources before launching. */
#ifndef SG_STATICS_H
#define SG_STATICS_H

#include <stdint.h>

#include "error.h"

typedef struct sg_static_buffer {
  void *data;
  uint64_t bytes;
} sg_static_buffer;

typedef struct sg_statics {
  sg_diag *diag;             /* the session's, for failures */
  sg_static_buffer *buffers; /* [capacity], the first `count` registered */
  uint32_t count;
  uint32_t capacity;
} sg_statics;

sg_status sg_statics_open(sg_statics *t, sg_diag *diag, uint32_t capacity);
void sg_statics_close(sg_statics *t);

/* Validates descs[0..n) (each on its own, then against each other and the
 * registered ones) and appends them all; on any error adds none. The caller
 * has checked that n fits. */
sg_status sg_statics_add(sg_statics *t, const sg_static_buffer_desc *descs,
                         uint32_t n);

#endif
