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
    st = SG_CUDA(diag, cudaMalloc(&r->device_table_all, r->table_bytes));
  }
  if (st == SG_OK) {
    st = sg_registry_upload(r, aux);
  }
  return st;
}

void sg_registry_close(sg_registry *r) {
  if (r->device_table != NULL) {
    (void)SG_CUDA(r->diag, cudaFree(r->device_table));
  }
  if (r->device_table_all != NULL) {
    (void)SG_CUDA(r->diag, cudaFree(r->device_table_all));
  }
  free(r->image);
  free(r->group_plans);
  free(r->params);
}

typedef cudaError_t (*table_builder)(void *, uint32_t, const sg_k_param *,
                                     uint32_t);

/* One table: built into the image, copied to `device` after `stream`'s
 * work (pre_capture passes the host's, whose refreshes may still read the
 * table) and waited for, since the image is reused. */
static sg_status upload_one(sg_registry *r, table_builder build,
                            void *device, cudaStream_t stream) {
  /* Pure host code repeating registration's checks: a refusal is a plugin
   * bug, not a CUDA failure (validation-only sessions get here too). */
  if (build(r->image, r->capacity, r->params, r->count) != cudaSuccess) {
    return sg_fail(r->diag, SG_ERR_INTERNAL,
                   "the refresh table build refused parameters that passed "
                   "registration's checks");
  }
  if (device == NULL) {
    return SG_OK;
  }
  sg_status st = SG_CUDA(r->diag,
                         cudaMemcpyAsync(device, r->image, r->table_bytes,
                                         cudaMemcpyHostToDevice, stream));
  if (st == SG_OK) {
    st = SG_CUDA(r->diag, cudaStreamSynchronize(stream));
  }
  return st;
}

sg_status sg_registry_upload(sg_registry *r, cudaStream_t stream) {
  sg_status st = upload_one(r, sg_k_refresh_build, r->device_table, stream);
  if (st == SG_OK) {
    st = upload_one(r, sg_k_refresh_build_merged, r->device_table_all,
                    stream);
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
  r->plan_all = sg_k_refresh_plan_merged(r->params, r->count);
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
    /* All or none: the tables go back to the registered parameters (one
     * of the two may already hold the new ones, and a launch would trust
     * the old plans with it); if that fails too, the failure is kept. */
    r->count -= n;
    (void)sg_registry_upload(r, r->aux);
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

const void *sg_registry_table(const sg_registry *r, uint32_t group) {
  return group == SG_ALL_GROUPS ? r->device_table_all : r->device_table;
}
