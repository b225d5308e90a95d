/* FP8 parameter registry: storage, the device table, register_fp8_params. */
#include "registry.h"

#include <stdlib.h>

#include "args.h"
#include "cuda_check.h"
#include "entries.h"
#include "registration.h"
#include "session.h"

sg_status sg_registry_open(sg_registry *r, sg_session *s) {
  r->capacity = s->config.param_capacity;
  r->table_bytes = sg_k_refresh_table_bytes(r->capacity);
  r->params = calloc(r->capacity, sizeof *r->params);
  r->image = calloc(1, r->table_bytes);
  if (r->params == NULL || r->image == NULL) {
    return sg_fail(s, SG_ERR_OUT_OF_MEMORY,
                   "cannot allocate the parameter table (%u params)",
                   r->capacity);
  }
  if (s->validation_only) {
    return SG_OK;
  }
  sg_status st = SG_CUDA(s, cudaMalloc(&r->device_table, r->table_bytes));
  if (st == SG_OK) {
    st = sg_registry_upload(r, s, s->aux_stream);
  }
  return st;
}

void sg_registry_close(sg_registry *r, sg_session *s) {
  if (r->device_table != NULL) {
    (void)SG_CUDA(s, cudaFree(r->device_table));
  }
  free(r->image);
  free(r->params);
}

sg_status sg_registry_upload(sg_registry *r, sg_session *s,
                             cudaStream_t stream) {
  /* Pure host code repeating registration's checks: a refusal is a plugin
   * bug, not a CUDA failure (validation-only sessions get here too). */
  sg_status st = SG_OK;
  if (sg_k_refresh_build(r->image, r->capacity, r->params, r->count) !=
      cudaSuccess) {
    st = sg_fail(s, SG_ERR_INTERNAL, "the refresh table build refused "
                 "parameters that passed registration's checks");
  }
  if (st != SG_OK || r->device_table == NULL) {
    return st;
  }
  /* Ordered after `stream` (pre_capture passes the host's, whose refreshes
   * may still read the table) and waited for: the image is reused. */
  st = SG_CUDA(s, cudaMemcpyAsync(r->device_table, r->image, r->table_bytes,
                                  cudaMemcpyHostToDevice, stream));
  if (st == SG_OK) {
    st = SG_CUDA(s, cudaStreamSynchronize(stream));
  }
  return st;
}

static sg_status check_descs(sg_registry *r, sg_session *s,
                             const sg_fp8_param_desc *descs, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    sg_status st = sg_fp8_desc_check(s, &descs[i], i);
    if (st != SG_OK) {
      return st;
    }
    r->params[r->count + i] = sg_fp8_desc_to_param(&descs[i]);
  }
  return sg_fp8_overlap_check(s, r->params, r->count + n, r->count);
}

sg_status sg_registry_add(sg_registry *r, sg_session *s,
                          const sg_fp8_param_desc *descs, uint32_t n) {
  sg_status st = check_descs(r, s, descs, n);
  if (st != SG_OK) {
    return st; /* the tentative copies past count are ignored */
  }
  r->count += n;
  st = sg_registry_upload(r, s, s->aux_stream);
  if (st != SG_OK) {
    r->count -= n; /* all or none; the device table is rebuilt next time */
  }
  return st;
}

static sg_status append_fp8(sg_session *s, const void *descs, uint32_t n) {
  sg_status st = sg_registry_add(&s->fp8, s, descs, n);
  s->stats.fp8_params = s->fp8.count;
  return st;
}

static uint32_t fp8_count(const sg_session *s) { return s->fp8.count; }
static uint32_t fp8_capacity(const sg_session *s) { return s->fp8.capacity; }

sg_status sg_register_fp8_params(sg_session *s,
                                 const sg_fp8_param_desc *params,
                                 uint32_t count, uint32_t *first_index_out) {
  static const sg_registration fp8 = {
      "register_fp8_params", "params", sizeof(sg_fp8_param_desc),
      SG_V1_0_SIZE_sg_fp8_param_desc, append_fp8, fp8_count, fp8_capacity,
      "param_capacity"};
  return sg_register(s, &fp8, params, count, first_index_out);
}
