/* fp8_trainer: a sample host program that trains an FP8 MLP and hands its
 * step to stepgraph, loaded with dlopen through abi/stepgraph.h alone.
 *
 *   fp8_trainer [--mode eager|graph|driver|stale] [--steps N] ... (--help)
 *
 * Every mode runs the same step code (step.c) from the same seed, so the
 * eager, graph and driver modes produce bit-identical losses and weights;
 * stale mode shows what happens when W^T is not refreshed. */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "checks.h"
#include "cond_step.h"
#include "options.h"
#include "plugin_host.h"
#include "report.h"
#include "run.h"
#include "trainer.h"

/* FP8 tensor-core GEMMs need compute capability 8.9 (Ada) or newer. */
static bool gpu_usable(void) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    fprintf(stderr,
            "fp8_trainer: no usable GPU (%s): the trainer needs an NVIDIA GPU "
            "with FP8 tensor cores and driver >= 580\n",
            err != cudaSuccess ? cudaGetErrorName(err) : "0 devices");
    return false;
  }
  struct cudaDeviceProp prop;
  SG_CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  if (prop.major * 10 + prop.minor < 89) {
    fprintf(stderr,
            "fp8_trainer: GPU 0 (%s, sm_%d%d) has no FP8 tensor cores; "
            "cuBLASLt's FP8 GEMMs need sm_89 or newer\n",
            prop.name, prop.major, prop.minor);
    return false;
  }
  printf("GPU 0: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  return true;
}

static int train(const tr_plugin *p, const tr_options *o) {
  printf("fp8_trainer: mode %s, recipe %s, %u layers, hidden %u, batch %u, "
         "%u steps, seed %llu, plugin %s\n",
         tr_mode_name(o->mode), tr_recipe_name(o->recipe), o->layers,
         o->hidden, o->batch, o->steps,
         (unsigned long long)o->seed, p->path);
  const tr_config cfg = tr_config_for(o, o->mode);
  tr_trainer t;
  tr_trainer_create(&t, p, &cfg);
  tr_run_result r;
  tr_run(&t, o->mode, o, &r);
  tr_print_losses(&r, o->print_every);
  const bool pass = tr_print_table(&r);
  if (o->dump_losses != NULL) {
    tr_dump_losses(o->dump_losses, &r);
  }
  if (o->dump_weights != NULL) {
    tr_dump_weights(o->dump_weights, &t);
  }
  tr_cond_report(&t);
  tr_run_free(&r);
  tr_trainer_destroy(&t);
  /* Stale mode exists to show the failure: its failed check is expected. */
  return pass || o->mode == TR_MODE_STALE ? 0 : TR_EXIT_LOSS;
}

int main(int argc, char **argv) {
  tr_options o;
  if (!tr_parse_options(argc, argv, &o)) {
    return TR_EXIT_USAGE;
  }
  tr_plugin p;
  if (!tr_plugin_load(&p, o.plugin)) {
    return TR_EXIT_FAILURE;
  }
  if (!gpu_usable()) {
    return TR_EXIT_NO_GPU;
  }
  return o.bench ? tr_bench(&p, &o) : train(&p, &o);
}
