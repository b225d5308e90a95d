/* register_fp8_params and register_static_buffers: one body for both. It
 * reads the host's array under the struct_size rules, lets the part's
 * storage (registry.c, statics.c) append it all or none, reports the first
 * index, and sends the session back to OPEN (pre_capture again). */
#include <stdlib.h>

#include "args.h"
#include "entries.h"
#include "entry.h"

typedef struct sg_registration {
  const char *entry;   /* "register_fp8_params" */
  const char *name;    /* the array argument's name, "params" */
  const char *config;  /* the config field sizing the table */
  size_t elem_size;    /* sizeof the plugin's descriptor */
  size_t min_size;     /* its ABI 1.0 size */
  /* Validates descs[0..n) and appends them all, or fails adding none. */
  sg_status (*append)(sg_session *s, const void *descs, uint32_t n);
  /* How many are registered now, and how many fit. */
  uint32_t (*count)(const sg_session *s);
  uint32_t (*capacity)(const sg_session *s);
} sg_registration;

/* Before anything is allocated for them: no count may size an allocation
 * unless the table can hold that many. */
static sg_status check_room(sg_session *s, const sg_registration *r,
                            uint32_t count) {
  const uint32_t used = r->count(s), cap = r->capacity(s);
  if (count <= cap - used) {
    return SG_OK;
  }
  return sg_fail(&s->diag, SG_ERR_CAPACITY,
                 "%u registered + %u new exceeds config->%s %u", used, count,
                 r->config, cap);
}

static sg_status read_and_append(sg_session *s, const sg_registration *r,
                                 const void *array, uint32_t count) {
  void *descs = NULL;
  if (array != NULL && count > 0) {
    descs = malloc((size_t)count * r->elem_size);
    if (descs == NULL) {
      return sg_fail(&s->diag, SG_ERR_OUT_OF_MEMORY,
                     "no memory for %u descriptors", count);
    }
  }
  sg_status st = sg_read_array(&s->diag, array, count, descs, r->elem_size,
                               r->min_size, r->name);
  if (st == SG_OK) {
    st = r->append(s, descs, count);
  }
  free(descs);
  return st;
}

static sg_status do_register(sg_session *s, const sg_registration *r,
                             const void *array, uint32_t count,
                             uint32_t *first_index_out) {
  sg_call c;
  sg_status st = sg_enter(&c, s, r->entry);
  uint32_t first = 0;
  if (st == SG_OK) {
    st = sg_require_open_registry(s);
  }
  if (st == SG_OK) {
    st = check_room(s, r, count);
  }
  if (st == SG_OK) {
    first = r->count(s);
    st = read_and_append(s, r, array, count);
  }
  if (st == SG_OK) {
    s->state = SG_STATE_OPEN; /* the tables changed: pre_capture again */
    if (first_index_out != NULL) {
      *first_index_out = first;
    }
  }
  return sg_leave(&c, st);
}

/* --- FP8 parameters ------------------------------------------------------ */

static sg_status append_fp8(sg_session *s, const void *descs, uint32_t n) {
  sg_status st = sg_registry_add(&s->fp8, descs, n);
  s->stats.fp8_params = s->fp8.count;
  return st;
}

static uint32_t fp8_count(const sg_session *s) { return s->fp8.count; }
static uint32_t fp8_capacity(const sg_session *s) { return s->fp8.capacity; }

sg_status sg_register_fp8_params(sg_session *s,
                                 const sg_fp8_param_desc *params,
                                 uint32_t count, uint32_t *first_index_out) {
  static const sg_registration fp8 = {
      "register_fp8_params", "params", "param_capacity",
      sizeof(sg_fp8_param_desc), SG_V1_0_SIZE_sg_fp8_param_desc,
      append_fp8, fp8_count, fp8_capacity};
  return do_register(s, &fp8, params, count, first_index_out);
}

/* --- Static buffers ------------------------------------------------------ */

static sg_status append_statics(sg_session *s, const void *descs,
                                uint32_t n) {
  sg_status st = sg_statics_add(&s->statics, descs, n);
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
      "register_static_buffers", "buffers", "static_capacity",
      sizeof(sg_static_buffer_desc), SG_V1_0_SIZE_sg_static_buffer_desc,
      append_statics, statics_count, statics_capacity};
  return do_register(s, &statics, buffers, count, first_index_out);
}
