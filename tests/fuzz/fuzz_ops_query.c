/* RNG entries, statistics and graph queries on validation-only sessions,
 * with out structs at random struct_size behind canaries. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

/* An out struct, or NULL now and then. */
typedef struct out_arg {
  fz_out o;
  bool null;
  fz_set errors; /* what NULL or a too small struct_size must give */
} out_arg;

static out_arg decode_out(fz_in *in, size_t known, size_t min) {
  out_arg a;
  a.null = fz_u8(in) % 16 == 0;
  a.o = fz_out_alloc(fz_struct_size(in, known), known);
  a.errors = fz_struct_errors(a.null, a.o.declared, min);
  return a;
}

static void *out_ptr(out_arg *a) { return a->null ? NULL : a->o.p; }

void fz_op_rng_reserve(fz_in *in) {
  fz_model *m = fz_pick_session(in, NULL);
  const uint64_t count = fz_number(in);
  const bool null_out = fz_u8(in) % 8 == 0;
  const uint64_t at = m ? m->rng_offset : 0;
  const bool refused = null_out || count == 0 || at + count < at;
  uint64_t offset = UINT64_MAX;
  fz_call c;
  fz_begin(&c, "rng_reserve", m, fz_needs(m, refused ? FZ_IA : FZ_ONE(SG_OK)));
  sg_status st = fz_api->rng_reserve(fz_handle(m), count,
                                     null_out ? NULL : &offset);
  fz_end(&c, st);
  if (st == SG_OK) {
    if (offset != at) {
      fz_fail("rng_reserve(%llu) gave offset %llu, expected %llu",
              (unsigned long long)count, (unsigned long long)offset,
              (unsigned long long)at);
    }
    m->rng_offset += count;
  }
}

/* Validation-only (ABI 1.1): enqueues nothing, restarts the step's
 * offsets. */
void fz_op_rng_end_step(fz_in *in) {
  fz_model *m = fz_pick_session(in, NULL);
  const sg_stream stream = fz_stream(in); /* any: capture-safe, unchecked */
  fz_call c;
  fz_begin(&c, "rng_end_step", m, fz_needs(m, FZ_ONE(SG_OK)));
  fz_end(&c, fz_api->rng_end_step(fz_handle(m), stream));
  if (m != NULL) {
    m->rng_offset = 0;
  }
}

void fz_op_rng_device_state(fz_in *in) {
  fz_model *m = fz_pick_session(in, NULL);
  out_arg a = decode_out(in, sizeof(sg_rng_device_state),
                         SG_V1_0_SIZE_sg_rng_device_state);
  fz_call c;
  fz_begin(&c, "rng_device_state", m,
           fz_needs(m, a.errors ? a.errors : FZ_ONE(SG_OK)));
  fz_end(&c, fz_api->rng_device_state(fz_handle(m), out_ptr(&a)));
  fz_out_check_free(&a.o, "rng_device_state");
}

void fz_op_rng_get_state(fz_in *in) {
  fz_model *m = fz_pick_session(in, NULL);
  const sg_stream stream = fz_stream(in);
  out_arg a = decode_out(in, sizeof(sg_rng_state), SG_V1_0_SIZE_sg_rng_state);
  const fz_set e = a.errors | (fz_bad_stream(stream) ? FZ_IA : 0);
  fz_call c;
  fz_begin(&c, "rng_get_state", m, fz_needs(m, e ? e : FZ_ONE(SG_OK)));
  fz_end(&c, fz_api->rng_get_state(fz_handle(m), stream, out_ptr(&a)));
  fz_out_check_free(&a.o, "rng_get_state");
}

void fz_op_rng_set_state(fz_in *in) {
  fz_model *m = fz_pick_session(in, NULL);
  const sg_stream stream = fz_stream(in);
  const bool null_state = fz_u8(in) % 16 == 0;
  sg_rng_state s;
  s.struct_size = fz_struct_size(in, sizeof s);
  s.seed = fz_number(in);
  s.offset = fz_number(in);
  sg_rng_state *host = fz_struct_in(&s, sizeof s, s.struct_size);
  const fz_set e = fz_struct_errors(null_state, s.struct_size,
                                    SG_V1_0_SIZE_sg_rng_state) |
                   (fz_bad_stream(stream) ? FZ_IA : 0);
  fz_call c;
  fz_begin(&c, "rng_set_state", m, fz_needs(m, e ? e : FZ_ONE(SG_OK)));
  fz_end(&c, fz_api->rng_set_state(fz_handle(m), stream,
                                   null_state ? NULL : host));
  free(host);
}

/* What a validation-only session's counters must be: nothing captured or
 * launched, the model's registrations. */
/* Compares the fields the host's struct_size covers (`n` bytes). */
static void check_stats(const fz_model *m, const sg_stats *got, size_t n) {
  sg_stats want;
  memset(&want, 0, sizeof want);
  want.struct_size = got->struct_size;
  want.fp8_params = m->fp8_count;
  want.static_buffers = m->static_count;
  /* ABI 1.1: no stale parameter found (the detector is off). */
  want.first_stale_check = UINT64_MAX;
  want.first_stale_param = UINT32_MAX;
  want.first_stale_group = UINT32_MAX;
  if (memcmp(&want, got, n) != 0) {
    fz_fail("get_stats: fp8_params %llu (model %u), static_buffers %llu "
            "(model %u), or a graph counter not 0",
            (unsigned long long)got->fp8_params, m->fp8_count,
            (unsigned long long)got->static_buffers, m->static_count);
  }
}

void fz_op_get_stats(fz_in *in) {
  fz_model *m = fz_pick_session(in, NULL);
  out_arg a = decode_out(in, sizeof(sg_stats), SG_V1_0_SIZE_sg_stats);
  fz_call c;
  fz_begin(&c, "get_stats", m,
           fz_needs(m, a.errors ? a.errors : FZ_ONE(SG_OK)));
  sg_status st = fz_api->get_stats(fz_handle(m), out_ptr(&a));
  fz_end(&c, st);
  if (st == SG_OK) {
    /* It succeeded, so declared >= the 1.0 size; a 1.0 host's struct ends
     * before the 1.1 fields. */
    sg_stats got;
    const size_t n = a.o.declared < sizeof got ? a.o.declared : sizeof got;
    memset(&got, 0, sizeof got);
    memcpy(&got, a.o.p, n);
    check_stats(m, &got, n);
  }
  fz_out_check_free(&a.o, "get_stats");
}

void fz_op_graph_info(fz_in *in) {
  fz_model *m = fz_pick_session(in, NULL);
  const uint64_t key = fz_number(in);
  out_arg a = decode_out(in, sizeof(sg_graph_info), SG_V1_0_SIZE_sg_graph_info);
  fz_call c;
  fz_begin(&c, "graph_info", m,
           fz_needs(m, a.errors ? a.errors : FZ_ONE(SG_ERR_NOT_FOUND)));
  fz_end(&c, fz_api->graph_info(fz_handle(m), key, out_ptr(&a)));
  fz_out_check_free(&a.o, "graph_info");
}

void fz_op_dump_graph(fz_in *in) {
  static const char *const paths[] = {NULL, "",
                                      "/nonexistent-stepgraph-fuzz/g.dot",
                                      "/dev/null"};
  fz_model *m = fz_pick_session(in, NULL);
  const uint64_t key = fz_number(in);
  const char *path = paths[fz_u8(in) % 4];
  const bool bad_path = path == NULL || path[0] == '\0';
  fz_call c;
  fz_begin(&c, "dump_graph", m,
           fz_needs(m, bad_path ? FZ_IA : FZ_ONE(SG_ERR_NOT_FOUND)));
  fz_end(&c, fz_api->dump_graph(fz_handle(m), key, path));
}
