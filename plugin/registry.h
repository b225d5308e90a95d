/* The FP8 parameter registry: the host's descriptors, validated, kept in
 * registration order, and mirrored into the refresh kernel's device
 * tables, which stay at one address each for the session's life: grouped
 * (for a group's launches, the stale-transpose check and the amax
 * reduction) and merged (for launches of all groups, whose transpose can
 * then split into whole-tile parameters and the rest across groups). */
#ifndef SG_REGISTRY_H
#define SG_REGISTRY_H

#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "refresh.h" /* kernels/: sg_k_param and the table launcher */

typedef struct sg_registry {
  sg_diag *diag;      /* the session's, for failures */
  cudaStream_t aux;   /* the session's own stream, for uploads */
  sg_k_param *params; /* [capacity], the first `count` registered */
  uint32_t count;
  uint32_t capacity;
  void *image;        /* host image of a device table */
  void *device_table; /* grouped; NULL in validation-only sessions */
  void *device_table_all; /* merged (sg_k_refresh_build_merged); NULL likewise */
  size_t table_bytes;
  /* What a launch for all groups, and for each group, needs (refresh.h,
   * sg_k_plan), kept up to date with the parameters so that a launch
   * searches instead of passing over all of them. */
  sg_k_plan plan_all;
  sg_k_group_plan *group_plans; /* [capacity], the first plan_groups */
  uint32_t plan_groups;
} sg_registry;

/* Allocates room for `capacity` parameters; with_device also allocates the
 * device table and uploads its empty image on `aux` (the device is
 * current). */
sg_status sg_registry_open(sg_registry *r, sg_diag *diag, uint32_t capacity,
                           bool with_device, cudaStream_t aux);
void sg_registry_close(sg_registry *r);

/* Validates descs[0..n) against each other and the registered ones, then
 * appends them all and uploads the table; on any error adds none. The
 * caller has checked that n fits. */
sg_status sg_registry_add(sg_registry *r, const sg_fp8_param_desc *descs,
                          uint32_t n);

/* Parameter `index`'s group; UINT32_MAX for UINT32_MAX (none). */
uint32_t sg_registry_group(const sg_registry *r, uint32_t index);

/* Rebuilds the table image and copies it to the device table, ordered
 * after `stream`'s work and waited for (not capture-safe). */
sg_status sg_registry_upload(sg_registry *r, cudaStream_t stream);

/* The plan of a launch for `group` (SG_ALL_GROUPS: every group, for the
 * merged table), or NULL when no registered parameter has that group. Host
 * memory only: capture-safe. */
const sg_k_plan *sg_registry_plan(const sg_registry *r, uint32_t group);

/* The device table a refresh launch for `group` takes. */
const void *sg_registry_table(const sg_registry *r, uint32_t group);

#endif
