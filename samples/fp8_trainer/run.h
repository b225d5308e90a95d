/* Running a trainer for the options' steps in one mode, and what came of
 * it: losses, step times, launches, graph nodes, memory. */
#ifndef TR_RUN_H
#define TR_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "options.h"
#include "trainer.h"

typedef struct tr_run_result {
  tr_mode mode;
  uint32_t steps;
  float *losses;          /* host copy, [steps]; free with tr_run_free */
  double eager_ms;        /* median eager step time; < 0: none measured */
  double graph_ms;        /* median replayed step time; < 0: none */
  uint32_t eager_samples, graph_samples;
  uint32_t launches;      /* kernel launches of one eager step */
  uint64_t graph_nodes;   /* of the step's graph; 0: none */
  size_t mem_eager;       /* device bytes in use after the eager steps */
  size_t mem_graph;       /* after the replays; 0: none */
  char fallback[512];     /* why graphs were not used; "" if they were */
} tr_run_result;

/* Runs o->steps steps of t in `mode` (warm-up o->warmup in graph modes).
 * Never waits for the GPU inside the loop; copies the losses after it. */
void tr_run(tr_trainer *t, tr_mode mode, const tr_options *o,
            tr_run_result *r);
void tr_run_free(tr_run_result *r);

/* Bytes per MiB, for the memory columns. */
#define TR_MIB (1024.0 * 1024.0)

/* total - free device memory now. */
size_t tr_device_bytes_in_use(void);

/* Median of ms[0..n) (sorts it); < 0 for n == 0. */
double tr_median(double *ms, uint32_t n);

#endif
