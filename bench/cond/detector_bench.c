/* Section 3: the stale-transpose detector's cost on the GPT parameter set
 * (bench/refresh's "gpt": 96 E4M3/E5M2 weights, 1.21e9 elements): one
 * check (reads W and Wt once) against one transpose refresh of the same
 * parameters, eagerly and as the first node of a captured graph. */
#include <string.h>

#include "bench_cond.h"
#include "sets.h"

typedef struct detect {
  sg_session *s;
  bench_set set;
} detect;

static void register_set(const bc *b, detect *d) {
  sg_fp8_param_desc *descs = calloc(d->set.count, sizeof *descs);
  for (uint32_t i = 0; i < d->set.count; i++) {
    const sg_k_param p = bench_set_param(&d->set, SG_K_RECIPE_DELAYED, SG_K_MASTER_FP32, 0, i);
    sg_fp8_param_desc *x = &descs[i];
    x->struct_size = sizeof *x;
    x->format = p.format;
    x->master_dtype = SG_DTYPE_NONE; /* transpose only */
    x->rows = p.rows;
    x->cols = p.cols;
    x->data = p.w;
    x->ld_data = p.ld_w;
    x->transpose = p.wt;
    x->ld_transpose = p.ld_wt;
    x->group = p.group;
  }
  BC_SG(b, b->api->register_fp8_params(d->s, descs, d->set.count, NULL));
  free(descs);
}

static void check(const bc *b, void *ctx) {
  const detect *d = ctx;
  BC_SG(b, b->api->check_transposes(d->s, (sg_stream)b->stream));
}

static void refresh(const bc *b, void *ctx) {
  const detect *d = ctx;
  sg_refresh_args r;
  memset(&r, 0, sizeof r);
  r.struct_size = sizeof r;
  r.mode = SG_REFRESH_TRANSPOSE;
  r.group = SG_ALL_GROUPS;
  BC_SG(b, b->api->post_optimizer_step(d->s, (sg_stream)b->stream, &r));
}

static void nothing(const bc *b, void *ctx) { (void)b, (void)ctx; }

static void row(const char *variant, double us, double bytes, double ref) {
  bc_record("detector", variant, 96, "time", us, "us");
  bc_record("detector", variant, 96, "bandwidth", bytes / us / 1e3, "GB/s");
  printf("| %-34s | %10.1f | %10.1f | %8.1f%% |\n", variant, us,
         bytes / us / 1e3, 100.0 * us / ref);
}

void bc_detector_section(bc *b) {
  detect d;
  memset(&d, 0, sizeof d);
  if (!bench_set_create(&d.set, "gpt", 0, 0)) {
    fprintf(stderr, "bench_cond: no \"gpt\" parameter set\n");
    exit(1);
  }
  bench_set_fill(&d.set, SG_K_MASTER_FP32);
  bc own = *b;
  d.s = own.s = bc_session(b, SG_SESSION_CHECK_TRANSPOSES);
  register_set(&own, &d);
  BC_SG(&own, own.api->pre_capture(d.s, (sg_stream)b->stream));
  refresh(&own, &d); /* Wt = transpose(W): the check finds nothing */
  const double bytes = 2.0 * (double)d.set.elements; /* W and Wt read */
  const double t_refresh = bc_step_us(&own, refresh, &d);
  const double t_check = bc_step_us(&own, check, &d);
  uint64_t key = 1;
  (void)bc_capture(&own, key, nothing, NULL); /* the check alone */
  const double t_graph = bc_step_us(&own, bc_replay, &key);
  printf("\nStale-transpose detector, GPT set (%u params, %.3g elements); "
         "median of %d\n", d.set.count, (double)d.set.elements, b->reps);
  printf("| %-34s | %10s | %10s | %9s |\n", "what", "us", "GB/s",
         "vs refresh");
  printf("|------------------------------------|------------|------------|"
         "-----------|\n");
  row("transpose refresh (reference)", t_refresh, 2.0 * d.set.elements,
      t_refresh);
  row("check, eager (check_transposes)", t_check, bytes, t_refresh);
  row("check, first node of a graph", t_graph, bytes, t_refresh);
  sg_transpose_report r;
  memset(&r, 0, sizeof r);
  r.struct_size = sizeof r;
  BC_SG(&own, own.api->transpose_report(d.s, (sg_stream)b->stream, &r));
  printf("detector after %llu checks: %u stale parameter(s) (expected 0)\n",
         (unsigned long long)r.checks, r.stale_params);
  own.api->session_destroy(d.s);
  bench_set_destroy(&d.set);
}
