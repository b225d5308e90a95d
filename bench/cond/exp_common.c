/* cond_experiments' helpers (experiments.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "experiments.h"
#include "sg_load.h"

char xp_log[8192];
int xp_answer_fd = -1;

_Noreturn void xp_done(xp *x) {
  fflush(stdout);
  const ssize_t n = write(xp_answer_fd, x->answer, strlen(x->answer));
  _exit(n < 0 ? 3 : 0);
}

void xp_cuda(xp *x, cudaError_t err, const char *call, int line) {
  if (err == cudaSuccess) {
    return;
  }
  snprintf(x->answer, XP_ANSWER, "could not run: line %d: %s failed: %s",
           line, call, cudaGetErrorName(err));
  printf("%s\n", x->answer);
  xp_done(x); /* an answer, if not the one asked for */
}

void xp_sg(xp *x, sg_status st, const char *call, int line) {
  if (st == SG_OK) {
    return;
  }
  snprintf(x->answer, XP_ANSWER, "could not run: line %d: %s: %s: %s", line,
           call, x->api->status_string(st), sg_test_detail(x->api, x->s));
  printf("%s\n", x->answer);
  xp_done(x);
}

static void collect(void *user, int32_t level, const char *message) {
  (void)user, (void)level;
  printf("  [plugin] %s\n", message);
  strncat(xp_log, message, sizeof xp_log - strlen(xp_log) - 2);
  strcat(xp_log, "\n");
}

void xp_open(xp *x, int32_t level) {
  sg_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.struct_size = sizeof cfg;
  cfg.log_level = level;
  cfg.log_fn = collect;
  XP_SG(x, x->api->session_create(&cfg, &x->s));
  XP_CUDA(x, cudaStreamCreateWithFlags(&x->st, cudaStreamNonBlocking));
  XP_SG(x, x->api->pre_capture(x->s, (sg_stream)x->st));
}

sg_capture_args xp_capture_args(const xp *x, uint64_t key) {
  sg_capture_args ca;
  memset(&ca, 0, sizeof ca);
  ca.struct_size = sizeof ca;
  ca.key = key;
  ca.stream = (sg_stream)x->st;
  return ca;
}

sg_status xp_replay(xp *x, uint64_t key) {
  sg_replay_args ra;
  memset(&ra, 0, sizeof ra);
  ra.struct_size = sizeof ra;
  ra.key = key;
  ra.stream = (sg_stream)x->st;
  sg_status st = x->api->replay(x->s, &ra);
  if (st == SG_OK) {
    st = x->api->sync(x->s, (sg_stream)x->st, 20000);
  }
  return st;
}

int xp_read_int(xp *x, const int *dev) {
  int v = 0;
  XP_CUDA(x, cudaStreamSynchronize(x->st));
  XP_CUDA(x, cudaMemcpy(&v, dev, sizeof v, cudaMemcpyDeviceToHost));
  return v;
}
