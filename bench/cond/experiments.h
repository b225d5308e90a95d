/* cond_experiments: questions about conditional graphs that only a GPU can
 * answer, each run in a child process (so that a hang or crash is an
 * answer too, not the end of the run). An experiment prints what it saw
 * and returns its one-line answer. */
#ifndef SG_COND_EXPERIMENTS_H
#define SG_COND_EXPERIMENTS_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "stepgraph.h"

#define XP_ANSWER 2048

typedef struct xp {
  const sg_api *api;
  sg_session *s;
  cudaStream_t st;
  char *answer; /* XP_ANSWER bytes */
} xp;

/* Where the child writes its answer (the parent's pipe). */
extern int xp_answer_fd;

/* Sends x->answer to the parent and ends the child. */
_Noreturn void xp_done(xp *x);

/* Puts "<call> failed: ..." into the answer and ends the child. */
#define XP_CUDA(x, call) xp_cuda((x), (call), #call, __LINE__)
void xp_cuda(xp *x, cudaError_t err, const char *call, int line);
#define XP_SG(x, call) xp_sg((x), (call), #call, __LINE__)
void xp_sg(xp *x, sg_status st, const char *call, int line);

/* A fresh session on device 0 (log messages at `level` collected into
 * xp_log), pre_capture done on x->st. */
void xp_open(xp *x, int32_t level);
extern char xp_log[8192];

sg_capture_args xp_capture_args(const xp *x, uint64_t key);
/* Replays key, then waits (at most 20 s: a hang is reported, not waited
 * for). */
sg_status xp_replay(xp *x, uint64_t key);
int xp_read_int(xp *x, const int *dev);

/* The experiments (exp_nccl.c, exp_graphs.c). */
void xp_nccl_guard(xp *x);
void xp_nccl_loop(xp *x);
void xp_exec_update(xp *x);
void xp_nesting(xp *x);
void xp_invalidated_graph(xp *x);
void xp_empty_body(xp *x);

#endif
