#include "args.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

static sg_status check_size(sg_diag *d, size_t got, size_t min_size,
                            const char *name) {
  if (got < min_size) {
    return sg_fail(d, SG_ERR_STRUCT_SIZE,
                   "%s->struct_size is %zu, smaller than the %zu of its first ABI "
                   "version", name,
                   got, min_size);
  }
  return SG_OK;
}

sg_status sg_read_struct(sg_diag *d, const void *src, void *dst,
                         size_t dst_size, size_t min_size, const char *name) {
  if (src == NULL) {
    return sg_fail(d, SG_ERR_INVALID_ARGUMENT, "%s is NULL", name);
  }
  size_t got;
  memcpy(&got, src, sizeof got);
  sg_status st = check_size(d, got, min_size, name);
  if (st != SG_OK) {
    return st;
  }
  size_t n = got < dst_size ? got : dst_size;
  memset(dst, 0, dst_size);
  memcpy(dst, src, n);
  return SG_OK;
}

sg_status sg_check_out(sg_diag *d, const void *dst, size_t min_size,
                       const char *name) {
  if (dst == NULL) {
    return sg_fail(d, SG_ERR_INVALID_ARGUMENT, "%s is NULL", name);
  }
  size_t got;
  memcpy(&got, dst, sizeof got);
  return check_size(d, got, min_size, name);
}

sg_status sg_write_struct(sg_diag *d, void *dst, const void *src,
                          size_t src_size, size_t min_size, const char *name) {
  sg_status st = sg_check_out(d, dst, min_size, name);
  if (st != SG_OK) {
    return st;
  }
  size_t got;
  memcpy(&got, dst, sizeof got);
  size_t n = got < src_size ? got : src_size;
  memcpy((char *)dst + sizeof got, (const char *)src + sizeof got,
         n - sizeof got);
  return SG_OK;
}

sg_status sg_read_array(sg_diag *d, const void *array, uint32_t count,
                        void *dst, size_t dst_size, size_t min_size,
                        const char *name) {
  if (array == NULL) {
    return sg_fail(d, SG_ERR_INVALID_ARGUMENT, "%s is NULL", name);
  }
  if (count == 0) {
    return sg_fail(d, SG_ERR_INVALID_ARGUMENT, "count is 0");
  }
  size_t stride;
  memcpy(&stride, array, sizeof stride);
  char label[64];
  for (uint32_t i = 0; i < count; i++) {
    const char *elem = (const char *)array + (size_t)i * stride;
    size_t got;
    memcpy(&got, elem, sizeof got);
    snprintf(label, sizeof label, "%s[%u]", name, i);
    if (got != stride) {
      return sg_fail(d, SG_ERR_STRUCT_SIZE,
                     "%s->struct_size is %zu but %s[0]'s is %zu; all elements "
                     "must have the same size",
                     label, got, name, stride);
    }
    sg_status st = sg_read_struct(d, elem, (char *)dst + (size_t)i * dst_size,
                                  dst_size, min_size, label);
    if (st != SG_OK) {
      return st;
    }
  }
  return SG_OK;
}

sg_status sg_check_stream_arg(sg_diag *d, sg_stream stream,
                              const char *name) {
  /* CUDA cannot capture the legacy stream. cudaStreamPerThread can be: it
   * names the calling thread's per-thread stream of the current device. */
  if (stream == NULL || stream == (sg_stream)cudaStreamLegacy) {
    return sg_fail(d, SG_ERR_INVALID_ARGUMENT,
                   "%s is the legacy default stream (%s), which cannot be "
                   "captured; use a stream created with cudaStreamCreate, or "
                   "cudaStreamPerThread (a host built with --default-stream "
                   "per-thread passes cudaStreamPerThread, not 0)",
                   name, stream == NULL ? "NULL" : "cudaStreamLegacy");
  }
  return SG_OK;
}
