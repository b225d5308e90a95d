/* The FP8 parameter registry: the host's descriptors, validated, kept in
 * registration order, and mirrored into the refresh kernel's device table,
 * which stays at one address for the session's life. */
#ifndef SG_REGISTRY_H
#define SG_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "refresh.h" /* kernels/: sg_k_param and the table launcher */
#include "stepgraph.h"

typedef struct sg_session sg_session;

typedef struct sg_registry {
  sg_k_param *params; /* [capacity], the first `count` registered */
  uint32_t count;
  uint32_t capacity;
  void *image;        /* host image of the device table */
  void *device_table; /* NULL in validation-only sessions */
  size_t table_bytes;
} sg_registry;

sg_status sg_registry_open(sg_registry *r, sg_session *s);
void sg_registry_close(sg_registry *r, sg_session *s);

/* Validates descs[0..n) against each other and the registered ones, then
 * appends them all and uploads the table; on any error adds none. n must
 * fit the capacity (registration.c checks that first). */
sg_status sg_registry_add(sg_registry *r, sg_session *s,
                          const sg_fp8_param_desc *descs, uint32_t n);

/* Rebuilds the table image and copies it to the device table, ordered
 * after `stream`'s work and waited for (not capture-safe). */
sg_status sg_registry_upload(sg_registry *r, sg_session *s,
                             cudaStream_t stream);

/* Checks one descriptor on its own; `i` names it in messages. */
sg_status sg_fp8_desc_check(sg_session *s, const sg_fp8_param_desc *d,
                            uint32_t i);

/* The kernel's view of a checked descriptor. */
sg_k_param sg_fp8_desc_to_param(const sg_fp8_param_desc *d);

/* Fails naming two overlapping memory regions among params[0..total):
 * those before first_new are registered ("registered param 4"), the rest
 * are the call's ("params[2]"). */
sg_status sg_fp8_overlap_check(sg_session *s, const sg_k_param *params,
                               uint32_t total, uint32_t first_new);

#endif
