#include "statics.h"

#include <stdlib.h>

#include "regions.h"

sg_status sg_statics_open(sg_statics *t, sg_diag *diag, uint32_t capacity) {
  t->diag = diag;
  t->capacity = capacity;
  t->buffers = calloc(t->capacity, sizeof *t->buffers);
  t->readable = calloc(t->capacity, sizeof *t->readable);
  if (t->buffers == NULL || t->readable == NULL) {
    return sg_fail(diag, SG_ERR_OUT_OF_MEMORY,
                   "cannot allocate the static buffer table");
  }
  return SG_OK;
}

void sg_statics_close(sg_statics *t) {
  free(t->buffers);
  free(t->readable);
}

static sg_status check_buffer(sg_diag *diag, const sg_static_buffer_desc *d,
                              uint32_t i) {
  uintptr_t end;
  if (d->data == NULL) {
    return sg_fail(diag, SG_ERR_INVALID_ARGUMENT, "buffers[%u].data is NULL", i);
  }
  if (d->bytes == 0) {
    return sg_fail(diag, SG_ERR_INVALID_ARGUMENT, "buffers[%u].bytes is 0", i);
  }
  if (__builtin_add_overflow((uintptr_t)d->data, d->bytes, &end)) {
    return sg_fail(diag, SG_ERR_INVALID_ARGUMENT,
                   "buffers[%u].bytes (%llu) runs past the address space", i,
                   (unsigned long long)d->bytes);
  }
  return SG_OK;
}

static sg_status check_overlaps(const sg_statics *t, uint32_t n) {
  uint32_t total = t->count + n;
  sg_region *regions = malloc((size_t)total * sizeof *regions);
  if (regions == NULL) {
    return sg_fail(t->diag, SG_ERR_OUT_OF_MEMORY,
                   "no memory for the overlap check");
  }
  for (uint32_t i = 0; i < total; i++) {
    uintptr_t b = (uintptr_t)t->buffers[i].data;
    regions[i] = (sg_region){b, sg_region_end(b, t->buffers[i].bytes), i,
                             "data"};
  }
  sg_region a, b;
  sg_status st = SG_OK;
  if (sg_regions_overlap(regions, total, t->count, &a, &b)) {
    st = sg_fail(t->diag, SG_ERR_INVALID_ARGUMENT,
                 "buffer %u overlaps buffer %u (indices in registration "
                 "order; this call's start at %u)",
                 a.owner, b.owner, t->count);
  }
  free(regions);
  return st;
}

sg_status sg_statics_add(sg_statics *t, const sg_static_buffer_desc *descs,
                         uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    sg_status st = check_buffer(t->diag, &descs[i], i);
    if (st != SG_OK) {
      return st;
    }
    t->buffers[t->count + i] =
        (sg_static_buffer){descs[i].data, descs[i].bytes};
  }
  sg_status st = check_overlaps(t, n);
  if (st == SG_OK) {
    t->count += n;
  }
  return st;
}

sg_status sg_statics_read_sources(const sg_statics *t,
                                  const void *const *ptrs, uint32_t count,
                                  uint32_t flags, uint32_t host_flag,
                                  const char *flag_name, sg_sources *out) {
  if ((flags & ~host_flag) != 0) {
    return sg_fail(t->diag, SG_ERR_INVALID_ARGUMENT,
                   "args->flags is 0x%x; known bits: 0x%x (%s)",
                   (unsigned)flags, (unsigned)host_flag, flag_name);
  }
  if (count > t->count) {
    return sg_fail(t->diag, SG_ERR_INVALID_ARGUMENT,
                   "args->static_source_count is %u but %u static buffers "
                   "are registered",
                   (unsigned)count, t->count);
  }
  if (count > 0 && ptrs == NULL) {
    return sg_fail(t->diag, SG_ERR_INVALID_ARGUMENT,
                   "args->static_sources is NULL but static_source_count "
                   "is %u",
                   (unsigned)count);
  }
  *out = (sg_sources){ptrs, count, (flags & host_flag) != 0};
  return SG_OK;
}
