/* Q3-Q6: exec update of graphs with conditional nodes, nested regions,
 * the ownership of an invalidated capture-to-graph, an empty IF body. */
#include <stdio.h>
#include <string.h>

#include "cond_program.h"
#include "experiments.h"
#include "gpu_kernels.h"
#include "sg_load.h"

static sg_stats stats(xp *x) {
  sg_stats st;
  memset(&st, 0, sizeof st);
  st.struct_size = sizeof st;
  XP_SG(x, x->api->get_stats(x->s, &st));
  return st;
}

/* guard(flag) { *g += c }; loop(trip) { *l += c } */
static void capture_update_program(xp *x, int *dev, int c) {
  sg_capture_args ca = xp_capture_args(x, 3);
  const uint32_t *index = NULL;
  uint32_t flag_run = 0, again = 0;
  XP_SG(x, x->api->capture_begin(x->s, &ca));
  XP_SG(x, x->api->guard_begin(x->s, (sg_stream)x->st, dev + 2, &flag_run));
  XP_CUDA(x, tk_add_int(dev, c, x->st));
  XP_SG(x, x->api->guard_end(x->s, (sg_stream)x->st));
  XP_SG(x, x->api->loop_begin(x->s, (sg_stream)x->st, dev + 3, &index, &again));
  XP_CUDA(x, tk_add_int(dev + 1, c, x->st));
  XP_SG(x, x->api->loop_next(x->s, (sg_stream)x->st, &again));
  XP_SG(x, x->api->capture_end(x->s, &ca));
}

/* One replay from g = l = 0 with the flag and trip given; right when
 * g == flag * c and l == trip * c. */
static int replays_right(xp *x, int *dev, int c) {
  int ok = 1;
  const int cases[][2] = {{1, 3}, {0, 5}, {1, 0}};
  for (int k = 0; k < 3; k++) {
    XP_CUDA(x, tk_set_int(dev, 0, x->st));
    XP_CUDA(x, tk_set_int(dev + 1, 0, x->st));
    XP_CUDA(x, tk_set_int(dev + 2, cases[k][0], x->st));
    XP_CUDA(x, tk_set_int(dev + 3, cases[k][1], x->st));
    XP_SG(x, xp_replay(x, 3));
    const int g = xp_read_int(x, dev), l = xp_read_int(x, dev + 1);
    printf("  flag %d, trip %d: guard added %d (expected %d), loop added %d "
           "(expected %d)\n", cases[k][0], cases[k][1], g, cases[k][0] * c, l,
           cases[k][1] * c);
    ok &= g == cases[k][0] * c && l == cases[k][1] * c;
  }
  return ok;
}

void xp_exec_update(xp *x) {
  xp_open(x, SG_LOG_DEBUG);
  int *dev = NULL;
  XP_CUDA(x, cudaMalloc((void **)&dev, 4 * sizeof(int)));
  capture_update_program(x, dev, 1);
  const int first_ok = replays_right(x, dev, 1);
  const sg_stats before = stats(x);
  xp_log[0] = '\0';
  capture_update_program(x, dev, 2);
  const sg_stats after = stats(x);
  const int updated = after.exec_updates > before.exec_updates;
  const char *refusal = strstr(xp_log, "cudaGraphExecUpdate refused");
  if (refusal != NULL) {
    printf("  %.*s\n", (int)strcspn(refusal, "\n"), refusal);
  }
  const int second_ok = replays_right(x, dev, 2);
  snprintf(x->answer, XP_ANSWER, "%s; replays %s the first capture and %s "
           "after the re-capture",
           updated ? "ACCEPTED: the executable was updated in place"
                   : "REFUSED: the plugin re-instantiated (see the refusal "
                     "above)",
           first_ok ? "right after" : "WRONG after",
           second_ok ? "right" : "WRONG");
}

static const cp_values nest_values[] = {
    {{1, 1, 3, 2}}, {{0, 1, 2, 3}}, {{1, 0, 4, 0}}, {{1, 1, 0, 1}}};

/* One shape: capture, then replays against the host's simulation. */
static const char *try_nesting(xp *x, cp_run *r, cp_shape shape,
                               uint64_t key) {
  sg_capture_args ca = xp_capture_args(x, key);
  cp_enqueue_values(r, &nest_values[0]);
  XP_SG(x, x->api->capture_begin(x->s, &ca));
  XP_SG(x, cp_enqueue_program(r, shape));
  const sg_status st = x->api->capture_end(x->s, &ca);
  if (st != SG_OK) {
    printf("  %s: refused: %s\n", cp_names[shape],
           sg_test_detail(x->api, x->s));
    return "refused (the key runs eagerly)";
  }
  for (size_t k = 0; k < sizeof nest_values / sizeof nest_values[0]; k++) {
    cp_trace got, want;
    cp_enqueue_values(r, &nest_values[k]);
    XP_SG(x, xp_replay(x, key));
    cp_read(r, &got);
    cp_simulate(shape, &nest_values[k], &want);
    if (cp_diff(&got, &want) >= 0) {
      printf("  %s: WRONG trace for values %zu\n", cp_names[shape], k);
      return "WRONG";
    }
  }
  printf("  %s: captured, replays right\n", cp_names[shape]);
  return "supported";
}

void xp_nesting(xp *x) {
  xp_open(x, SG_LOG_WARN);
  XP_CUDA(x, tk_preload());
  cp_run r;
  cp_open(&r, x->api, x->s, x->st);
  const cp_shape nested[] = {CP_GUARD_IN_LOOP, CP_LOOP_IN_GUARD,
                             CP_LOOP_IN_LOOP, CP_GUARD_IN_GUARD};
  size_t used = 0;
  x->answer[0] = '\0';
  for (size_t k = 0; k < 4; k++) {
    const char *a = try_nesting(x, &r, nested[k], 10 + k);
    used += (size_t)snprintf(x->answer + used, XP_ANSWER - used, "%s%s: %s",
                             k > 0 ? "; " : "", cp_names[nested[k]], a);
  }
  cp_close(&r);
}

void xp_invalidated_graph(xp *x) {
  int *dev = NULL;
  cudaStream_t st;
  XP_CUDA(x, cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  XP_CUDA(x, cudaMalloc((void **)&dev, sizeof(int)));
  cudaGraph_t g = NULL;
  XP_CUDA(x, cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
  XP_CUDA(x, tk_add_int(dev, 1, st));
  XP_CUDA(x, cudaStreamEndCapture(st, &g));
  XP_CUDA(x, cudaStreamBeginCaptureToGraph(st, g, NULL, NULL, 0,
                                           cudaStreamCaptureModeThreadLocal));
  XP_CUDA(x, tk_add_int(dev, 1, st));
  const cudaError_t query = cudaStreamQuery(st); /* illegal: invalidates */
  cudaGraph_t ended = NULL;
  const cudaError_t end = cudaStreamEndCapture(st, &ended);
  (void)cudaGetLastError();
  size_t n = 0;
  const cudaError_t nodes = cudaGraphGetNodes(g, NULL, &n);
  const cudaError_t destroyed = cudaGraphDestroy(g);
  printf("  cudaStreamQuery while capturing: %s; cudaStreamEndCapture: %s "
         "(graph %p); cudaGraphGetNodes: %s (%zu nodes); cudaGraphDestroy: "
         "%s\n", cudaGetErrorName(query), cudaGetErrorName(end),
         (void *)ended, cudaGetErrorName(nodes), n,
         cudaGetErrorName(destroyed));
  snprintf(x->answer, XP_ANSWER, "%s (GetNodes %s, %zu nodes; Destroy %s)",
           nodes == cudaSuccess && destroyed == cudaSuccess
               ? "yes: the graph survives and is the caller's to destroy "
                 "(as the plugin assumes)"
               : "NO: the graph was not usable afterwards (the plugin's "
                 "failure path must not destroy it)",
           cudaGetErrorName(nodes), n, cudaGetErrorName(destroyed));
}

void xp_empty_body(xp *x) {
  cudaGraph_t g = NULL;
  cudaGraphConditionalHandle h = 0;
  XP_CUDA(x, cudaGraphCreate(&g, 0));
  XP_CUDA(x, cudaGraphConditionalHandleCreate(&h, g, 1,
                                              cudaGraphCondAssignDefault));
  struct cudaGraphNodeParams p;
  memset(&p, 0, sizeof p);
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = h;
  p.conditional.type = cudaGraphCondTypeIf;
  p.conditional.size = 1;
  cudaGraphNode_t node = NULL;
  XP_CUDA(x, cudaGraphAddNode(&node, g, NULL, NULL, 0, &p));
  cudaGraphExec_t exec = NULL;
  const cudaError_t inst = cudaGraphInstantiate(&exec, g, 0);
  cudaError_t launch = cudaErrorUnknown;
  if (inst == cudaSuccess) {
    launch = cudaGraphLaunch(exec, 0);
    if (launch == cudaSuccess) {
      launch = cudaDeviceSynchronize();
    }
    (void)cudaGraphExecDestroy(exec);
  }
  (void)cudaGetLastError();
  (void)cudaGraphDestroy(g);
  snprintf(x->answer, XP_ANSWER, "instantiate %s, launch %s%s",
           cudaGetErrorName(inst),
           inst == cudaSuccess ? cudaGetErrorName(launch) : "not tried",
           inst == cudaSuccess ? "" : " (the plugin's empty node in empty "
                                      "bodies is needed)");
}
