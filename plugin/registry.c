#include "registry.h"

#include <stdlib.h>

#include "cuda_check.h"
#include "fp8_validate.h"

sg_status sg_registry_open(sg_registry *r, sg_diag *diag, uint32_t capacity,
                           bool with_device, cudaStream_t aux) {
  r->diag = diag;
  r->aux = aux;
  r->capacity = capacity;
  r->table_bytes = sg_k_refresh_table_bytes(r->capacity);
  r->params = calloc(r->capacity, sizeof *r->params);
  r->group_plans = calloc(r->capacity, sizeof *r->group_plans);
  r->image = calloc(1, r->table_bytes);
  r->plan_all = sg_k_refresh_plan(NULL, 0, SG_ALL_GROUPS);
  if (r->params == NULL || r->group_plans == NULL || r->image == NULL) {
    return sg_fail(diag, SG_ERR_OUT_OF_MEMORY,
                   "cannot allocate the parameter table (%u params)",
                   r->capacity);
  }
  if (!with_device) {
    return SG_OK;
  }
  sg_status st = SG_CUDA(diag, cudaMalloc(&r->device_table, r->table_bytes));
  if (st == SG_OK) {
    st = sg_registry_upload(r, aux);
  }
  return st;
}

void sg_registry_close(sg_registry *r) {
  if (r->device_table != NULL) {
    (void)SG_CUDA(r->diag, cudaFree(r->device_table));
  }
  free(r->image);
  free(r->group_plans);
  free(r->params);
}

sg_status sg_registry_upload(sg_registry *r, cudaStream_t stream) {
  /* Pure host code repeating registration's checks: a refusal is a plugin
   * bug, not a CUDA failure (validation-only sessions get here too). */
  sg_status st = SG_OK;
  if (sg_k_refresh_build(r->image, r->capacity, r->params, r->count) !=
      cudaSuccess) {
    st = sg_fail(r->diag, SG_ERR_INTERNAL,
                 "the refresh table build refused parameters that passed "
                 "registration's checks");
  }
  if (st != SG_OK || r->device_table == NULL) {
    return st;
  }
  /* Ordered after `stream` (pre_capture passes the host's, whose refreshes
   * may still read the table) and waited for: the image is reused. */
  st = SG_CUDA(r->diag,
               cudaMemcpyAsync(r->device_table, r->image, r->table_bytes,
                               cudaMemcpyHostToDevice, stream));
  if (st == SG_OK) {
    st = SG_CUDA(r->diag, cudaStreamSynchronize(stream));
  }
  return st;
}

static sg_status check_descs(sg_registry *r, const sg_fp8_param_desc *descs,
                             uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    sg_status st = sg_fp8_desc_check(r->diag, &descs[i], i);
    if (st != SG_OK) {
      return st;
    }
    r->params[r->count + i] = sg_fp8_desc_to_param(&descs[i]);
  }
  return sg_fp8_overlap_check(r->diag, r->params, r->count + n, r->count);
}

/* The plans of the registered parameters. */
static void update_plans(sg_registry *r) {
  r->plan_all = sg_k_refresh_plan(r->params, r->count, SG_ALL_GROUPS);
  r->plan_groups = sg_k_refresh_group_plans(r->params, r->count, r->group_plans);
}

sg_status sg_registry_add(sg_registry *r, const sg_fp8_param_desc *descs,
                          uint32_t n) {
  sg_status st = check_descs(r, descs, n);
  if (st != SG_OK) {
    return st; /* the tentative copies past count are ignored */
  }
  r->count += n;
  st = sg_registry_upload(r, r->aux);
  if (st != SG_OK) {
    r->count -= n; /* all or none; the device table is rebuilt next time */
  }
  update_plans(r);
  return st;
}

uint32_t sg_registry_group(const sg_registry *r, uint32_t index) {
  return index < r->count ? r->params[index].group : UINT32_MAX;
}

const sg_k_plan *sg_registry_plan(const sg_registry *r, uint32_t group) {
  if (group == SG_ALL_GROUPS) {
    return &r->plan_all;
  }
  return sg_k_refresh_find_plan(r->group_plans, r->plan_groups, group);
}
