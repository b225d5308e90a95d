/* Static buffer registry and register_static_buffers. */
#include "statics.h"

#include <stdio.h>
#include <stdlib.h>

#include "args.h"
#include "entries.h"
#include "regions.h"
#include "registration.h"
#include "session.h"

sg_status sg_statics_open(sg_statics *t, sg_session *s) {
  t->capacity = s->config.static_capacity;
  t->buffers = calloc(t->capacity, sizeof *t->buffers);
  if (t->buffers == NULL) {
    return sg_fail(s, SG_ERR_OUT_OF_MEMORY,
                   "cannot allocate the static buffer table");
  }
  return SG_OK;
}

void sg_statics_close(sg_statics *t) { free(t->buffers); }

static sg_status check_buffer(sg_session *s, const sg_static_buffer_desc *d,
                              uint32_t i) {
  uintptr_t end;
  if (d->data == NULL) {
    return sg_fail(s, SG_ERR_INVALID_ARGUMENT, "buffers[%u].data is NULL", i);
  }
  if (d->bytes == 0) {
    return sg_fail(s, SG_ERR_INVALID_ARGUMENT, "buffers[%u].bytes is 0", i);
  }
  if (__builtin_add_overflow((uintptr_t)d->data, d->bytes, &end)) {
    return sg_fail(s, SG_ERR_INVALID_ARGUMENT,
                   "buffers[%u].bytes (%llu) runs past the address space", i,
                   (unsigned long long)d->bytes);
  }
  return SG_OK;
}

static sg_status check_overlaps(sg_session *s, const sg_statics *t,
                                uint32_t n) {
  uint32_t total = t->count + n;
  sg_region *regions = malloc((size_t)total * sizeof *regions);
  if (regions == NULL) {
    return sg_fail(s, SG_ERR_OUT_OF_MEMORY, "no memory for the overlap check");
  }
  for (uint32_t i = 0; i < total; i++) {
    uintptr_t b = (uintptr_t)t->buffers[i].data;
    regions[i] = (sg_region){b, sg_region_end(b, t->buffers[i].bytes), i,
                             "data"};
  }
  sg_region a, b;
  sg_status st = SG_OK;
  if (sg_regions_overlap(regions, total, t->count, &a, &b)) {
    st = sg_fail(s, SG_ERR_INVALID_ARGUMENT,
                 "buffer %u overlaps buffer %u (indices in registration "
                 "order; this call's start at %u)",
                 a.owner, b.owner, t->count);
  }
  free(regions);
  return st;
}

static sg_status add_buffers(sg_session *s, sg_statics *t,
                             const sg_static_buffer_desc *descs, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    sg_status st = check_buffer(s, &descs[i], i);
    if (st != SG_OK) {
      return st;
    }
    t->buffers[t->count + i] = (sg_static_buffer){descs[i].data, descs[i].bytes};
  }
  sg_status st = check_overlaps(s, t, n);
  if (st == SG_OK) {
    t->count += n;
  }
  return st;
}

static sg_status append_statics(sg_session *s, const void *descs,
                                uint32_t n) {
  sg_status st = add_buffers(s, &s->statics, descs, n);
  s->stats.static_buffers = s->statics.count;
  return st;
}

static uint32_t statics_count(const sg_session *s) { return s->statics.count; }
static uint32_t statics_capacity(const sg_session *s) {
  return s->statics.capacity;
}

sg_status sg_register_static_buffers(sg_session *s,
                                     const sg_static_buffer_desc *buffers,
                                     uint32_t count,
                                     uint32_t *first_index_out) {
  static const sg_registration statics = {
      "register_static_buffers", "buffers", sizeof(sg_static_buffer_desc),
      SG_V1_0_SIZE_sg_static_buffer_desc, append_statics, statics_count,
      statics_capacity, "static_capacity"};
  return sg_register(s, &statics, buffers, count, first_index_out);
}
