#include "registration.h"

#include <stdlib.h>

#include "args.h"
#include "session.h"

/* Before anything is sized from `count`: the host's count is unchecked. */
static sg_status check_room(sg_session *s, const sg_registration *r,
                            uint32_t count) {
  const uint32_t have = r->count(s), capacity = r->capacity(s);
  if (count > capacity - have) {
    return sg_fail(s, SG_ERR_CAPACITY,
                   "%u registered + %u new exceeds config->%s %u", have,
                   count, r->capacity_field, capacity);
  }
  return SG_OK;
}

static sg_status read_and_append(sg_session *s, const sg_registration *r,
                                 const void *array, uint32_t count) {
  void *descs = NULL;
  if (array != NULL && count > 0) {
    sg_status st = check_room(s, r, count);
    if (st != SG_OK) {
      return st;
    }
    descs = malloc((size_t)count * r->elem_size);
    if (descs == NULL) {
      return sg_fail(s, SG_ERR_OUT_OF_MEMORY, "no memory for %u descriptors",
                     count);
    }
  }
  sg_status st = sg_read_array(s, array, count, descs, r->elem_size,
                               r->min_size, r->name);
  if (st == SG_OK) {
    st = r->append(s, descs, count);
  }
  free(descs);
  return st;
}

sg_status sg_register(sg_session *s, const sg_registration *r,
                      const void *array, uint32_t count,
                      uint32_t *first_index_out) {
  sg_call c;
  sg_status st = sg_enter(&c, s, r->entry);
  uint32_t first = 0;
  if (st == SG_OK) {
    st = sg_require_open_registry(s);
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
