/* guard_begin, guard_end, loop_begin, loop_next: argument and state
 * checks, then the region captured (cond_capture.c) or run eagerly
 * (cond_eager.c), as sg_cond_route decides. */
#include "cond.h"
#include "entries.h"
#include "entry.h"

/* The checks both opening entries make before any work; *captured says
 * which way the region goes. */
static sg_status open_checks(sg_session *s, sg_stream stream,
                             const int32_t *ptr, const char *ptr_name,
                             const void *out, const char *out_name,
                             bool *captured) {
  sg_status st = sg_cond_check_open(s, stream, ptr, ptr_name, out, out_name);
  if (st == SG_OK) {
    st = sg_require_device(s);
  }
  if (st == SG_OK) {
    st = sg_cond_route(s, stream, captured);
  }
  return st;
}

sg_status sg_guard_begin(sg_session *s, sg_stream stream, const int32_t *flag,
                         uint32_t *run_body_out) {
  sg_call c;
  bool captured = false;
  sg_status st = sg_enter(&c, s, "guard_begin");
  if (st == SG_OK) {
    st = open_checks(s, stream, flag, "flag", run_body_out, "run_body_out",
                     &captured);
  }
  if (st == SG_OK && captured) {
    st = sg_cond_capture_open(s, SG_REGION_GUARD, flag, NULL);
    if (st == SG_OK) {
      *run_body_out = 1; /* recorded now, decided at every replay */
    }
  } else if (st == SG_OK) {
    st = sg_cond_eager_guard(s, stream, flag, run_body_out);
  }
  return sg_leave(&c, st);
}

sg_status sg_guard_end(sg_session *s, sg_stream stream) {
  sg_call c;
  sg_region *r = NULL;
  sg_status st = sg_enter(&c, s, "guard_end");
  if (st == SG_OK) {
    st = sg_cond_require_top(s, stream, SG_REGION_GUARD, &r);
  }
  if (st == SG_OK && r->captured) {
    sg_cond_capture_close(s);
  } else if (st == SG_OK) {
    sg_cond_eager_end(s);
  }
  return sg_leave(&c, st);
}

sg_status sg_loop_begin(sg_session *s, sg_stream stream,
                        const int32_t *trip_count, const uint32_t **index_out,
                        uint32_t *again_out) {
  sg_call c;
  bool captured = false;
  sg_status st = sg_enter(&c, s, "loop_begin");
  if (st == SG_OK && again_out == NULL) {
    st = sg_fail(&s->diag, SG_ERR_INVALID_ARGUMENT, "again_out is NULL");
  }
  if (st == SG_OK) {
    st = open_checks(s, stream, trip_count, "trip_count", index_out,
                     "index_out", &captured);
  }
  if (st == SG_OK && captured) {
    st = sg_cond_capture_open(s, SG_REGION_LOOP, trip_count, index_out);
    if (st == SG_OK) {
      *again_out = 1; /* one iteration is recorded */
    }
  } else if (st == SG_OK) {
    st = sg_cond_eager_loop(s, stream, trip_count, index_out, again_out);
  }
  return sg_leave(&c, st);
}

sg_status sg_loop_next(sg_session *s, sg_stream stream, uint32_t *again_out) {
  sg_call c;
  sg_region *r = NULL;
  sg_status st = sg_enter(&c, s, "loop_next");
  if (st == SG_OK && again_out == NULL) {
    st = sg_fail(&s->diag, SG_ERR_INVALID_ARGUMENT, "again_out is NULL");
  }
  if (st == SG_OK) {
    st = sg_cond_require_top(s, stream, SG_REGION_LOOP, &r);
  }
  if (st == SG_OK && r->captured) {
    sg_cond_capture_close(s);
    *again_out = 0;
  } else if (st == SG_OK) {
    st = sg_cond_eager_next(s, r, again_out);
  }
  return sg_leave(&c, st);
}
