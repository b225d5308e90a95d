/* The one body of both registration entries: check the capacity, read the
 * host's array under the struct_size rules, let the registry append it all
 * or none, report the first index, and send the session back to OPEN
 * (pre_capture again). */
#ifndef SG_REGISTRATION_H
#define SG_REGISTRATION_H

#include <stddef.h>
#include <stdint.h>

#include "stepgraph.h"

typedef struct sg_registration {
  const char *entry;   /* "register_fp8_params" */
  const char *name;    /* the array argument's name, "params" */
  size_t elem_size;    /* sizeof the plugin's descriptor */
  size_t min_size;     /* its ABI 1.0 size */
  /* Validates descs[0..n) and appends them all, or fails adding none. */
  sg_status (*append)(sg_session *s, const void *descs, uint32_t n);
  /* How many are registered now. */
  uint32_t (*count)(const sg_session *s);
  /* How many fit, and the config field that says so ("param_capacity"). */
  uint32_t (*capacity)(const sg_session *s);
  const char *capacity_field;
} sg_registration;

sg_status sg_register(sg_session *s, const sg_registration *r,
                      const void *array, uint32_t count,
                      uint32_t *first_index_out);

#endif
