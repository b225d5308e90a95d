/* Static buffers: device memory a graph reads at a fixed address, which
 * replay may fill from host-chosen sources before launching. */
#ifndef SG_STATICS_H
#define SG_STATICS_H

#include <stdint.h>

#include "stepgraph.h"

typedef struct sg_session sg_session;

typedef struct sg_static_buffer {
  void *data;
  uint64_t bytes;
} sg_static_buffer;

typedef struct sg_statics {
  sg_static_buffer *buffers; /* [capacity], the first `count` registered */
  uint32_t count;
  uint32_t capacity;
} sg_statics;

sg_status sg_statics_open(sg_statics *t, sg_session *s);
void sg_statics_close(sg_statics *t);

#endif
