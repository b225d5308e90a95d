#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "recipe.h"

/* The default configuration is launch-bound and fixed so that results
 * compare across runs (issue 5): 16 layers, hidden 256, batch 128. */
#define TR_DEFAULT_STEPS 500u
#define TR_DEFAULT_WARMUP 10u
#define TR_DEFAULT_PRINT_EVERY 50u
#define TR_DEFAULT_LAYERS 16u
#define TR_DEFAULT_HIDDEN 256u
#define TR_DEFAULT_BATCH 128u
#define TR_DEFAULT_SEED 1u
#define TR_DEFAULT_BUCKETS 4u
#define TR_MAX_RANKS 64u
/* cuBLASLt's FP8 GEMMs want every dimension a multiple of 16. */
#define TR_DIM_MULTIPLE 16u

static const char *const mode_names[] = {"eager", "graph", "driver", "stale"};

const char *tr_mode_name(tr_mode mode) { return mode_names[mode]; }

static void usage(FILE *to) {
  fprintf(to,
    "usage: fp8_trainer [options]\n"
    "  --mode eager|graph|driver|stale  how steps run (default graph)\n"
    "  --recipe delayed|current|block  how the plugin scales the FP8 weights:\n"
    "                     from earlier steps' amax (default), from this\n"
    "                     step's, or per 128x128 block (then the GEMMs run in\n"
    "                     BF16 on the weights dequantized from the blocks)\n"
    "  --steps N          training steps, warm-up included (default %u)\n"
    "  --warmup N         eager steps before capture (default %u)\n"
    "  --lr-warmup N      learning-rate warm-up steps, 0: constant (default 0)\n"
    "  --print-every K    print the loss every K steps, 0: never (default %u)\n"
    "  --layers L         linear layers, >= 2 (default %u)\n"
    "  --hidden H         width, a multiple of 16 (default %u)\n"
    "  --batch B          rows per step, a multiple of 16 (default %u)\n"
    "  --seed S           seed of weights, teacher and the plugin RNG (default %u)\n"
    "  --plugin PATH      libstepgraph.so.1 to load (default: $STEPGRAPH_PLUGIN,\n"
    "                     else the one in this build's plugin folder)\n"
    "  --dump-losses F    write every step's loss (float32, raw) to F\n"
    "  --dump-weights F   write the final FP32 master weights (raw) to F\n"
    "  --bench            eager and graph runs plus the empty-kernel ceiling\n"
    "  --ranks N          N data-parallel processes, one GPU each (NCCL);\n"
    "                     without it, RANK, WORLD_SIZE and LOCAL_RANK in the\n"
    "                     environment make this process one rank of a job\n"
    "  --rendezvous F     with RANK/WORLD_SIZE: the file (on a path every\n"
    "                     rank sees) where rank 0 leaves NCCL's unique id\n"
    "  --shard-optimizer  each rank owns 1/N of every master weight\n"
    "  --buckets K        parameter groups of the W all-gather (default %u)\n",
    TR_DEFAULT_STEPS, TR_DEFAULT_WARMUP, TR_DEFAULT_PRINT_EVERY,
    TR_DEFAULT_LAYERS, TR_DEFAULT_HIDDEN, TR_DEFAULT_BATCH, TR_DEFAULT_SEED,
    TR_DEFAULT_BUCKETS);
  tr_cond_usage(to);
  fprintf(to,
    "exit status: 0 ok, 1 a call failed, 2 no usable GPU, 3 loss check\n"
    "failed, 64 bad command line\n");
}

/* Says what was wrong, then how to call the program. */
static bool fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static bool fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "fp8_trainer: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  usage(stderr);
  return false;
}

/* A whole decimal number in [lo, hi]. */
static bool parse_u64(const char *name, const char *text, uint64_t lo,
                      uint64_t hi, uint64_t *out) {
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  if (text[0] < '0' || text[0] > '9' || *end != '\0' || errno != 0 ||
      v < lo || v > hi) {
    return fail("--%s '%s' is not a whole number in %llu..%llu", name, text,
                (unsigned long long)lo, (unsigned long long)hi);
  }
  *out = v;
  return true;
}

static bool parse_u32(const char *name, const char *text, uint32_t lo,
                      uint32_t hi, uint32_t *out) {
  uint64_t v = 0;
  if (!parse_u64(name, text, lo, hi, &v)) {
    return false;
  }
  *out = (uint32_t)v;
  return true;
}

static bool parse_mode(const char *text, tr_mode *out) {
  for (size_t i = 0; i < sizeof mode_names / sizeof mode_names[0]; i++) {
    if (strcmp(text, mode_names[i]) == 0) {
      *out = (tr_mode)i;
      return true;
    }
  }
  return fail("--mode '%s' is not one of eager, graph, driver, stale", text);
}

static bool parse_dim(const char *name, const char *text, uint32_t hi,
                      uint32_t *out) {
  if (!parse_u32(name, text, TR_DIM_MULTIPLE, hi, out)) {
    return false;
  }
  if (*out % TR_DIM_MULTIPLE != 0) {
    return fail("--%s %s is not a multiple of 16 (cuBLASLt's FP8 rule)", name,
                text);
  }
  return true;
}

enum { OPT_WARMUP = 256, OPT_PRINT, OPT_LAYERS, OPT_HIDDEN, OPT_BATCH,
       OPT_SEED, OPT_PLUGIN, OPT_LOSSES, OPT_WEIGHTS, OPT_BENCH, OPT_HELP,
       OPT_LR_WARMUP, OPT_RECIPE, OPT_RANKS, OPT_RENDEZVOUS, OPT_SHARD,
       OPT_BUCKETS };

static const struct option long_options[] = {
  {"mode", required_argument, NULL, 'm'},
  {"steps", required_argument, NULL, 's'},
  {"warmup", required_argument, NULL, OPT_WARMUP},
  {"lr-warmup", required_argument, NULL, OPT_LR_WARMUP},
  {"print-every", required_argument, NULL, OPT_PRINT},
  {"layers", required_argument, NULL, OPT_LAYERS},
  {"hidden", required_argument, NULL, OPT_HIDDEN},
  {"batch", required_argument, NULL, OPT_BATCH},
  {"seed", required_argument, NULL, OPT_SEED},
  {"plugin", required_argument, NULL, OPT_PLUGIN},
  {"dump-losses", required_argument, NULL, OPT_LOSSES},
  {"dump-weights", required_argument, NULL, OPT_WEIGHTS},
  {"bench", no_argument, NULL, OPT_BENCH},
  TR_COND_LONG_OPTIONS,
  {"help", no_argument, NULL, OPT_HELP},
  {"recipe", required_argument, NULL, OPT_RECIPE},
  {"ranks", required_argument, NULL, OPT_RANKS},
  {"rendezvous", required_argument, NULL, OPT_RENDEZVOUS},
  {"shard-optimizer", no_argument, NULL, OPT_SHARD},
  {"buckets", required_argument, NULL, OPT_BUCKETS},
  {NULL, 0, NULL, 0}};

/* One option's value into *o; false on a bad value. */
static bool apply(int opt, const char *arg, tr_options *o) {
  switch (opt) {
    case 'm': return parse_mode(arg, &o->mode);
    case 's': return parse_u32("steps", arg, 1, 10000000, &o->steps);
    case OPT_WARMUP: return parse_u32("warmup", arg, 0, 1000000, &o->warmup);
    case OPT_LR_WARMUP:
      return parse_u32("lr-warmup", arg, 0, 10000000, &o->lr_warmup);
    case OPT_PRINT:
      return parse_u32("print-every", arg, 0, UINT32_MAX, &o->print_every);
    case OPT_LAYERS: return parse_u32("layers", arg, 2, 1024, &o->layers);
    case OPT_HIDDEN: return parse_dim("hidden", arg, 16384, &o->hidden);
    case OPT_BATCH: return parse_dim("batch", arg, 65536, &o->batch);
    case OPT_SEED: return parse_u64("seed", arg, 0, UINT64_MAX, &o->seed);
    case OPT_PLUGIN: o->plugin = arg; return true;
    case OPT_LOSSES: o->dump_losses = arg; return true;
    case OPT_WEIGHTS: o->dump_weights = arg; return true;
    case OPT_BENCH: o->bench = true; return true;
    case OPT_RECIPE:
      return tr_parse_recipe(arg, &o->recipe) ||
             fail("--recipe '%s' is not one of delayed, current, block", arg);
    case OPT_RANKS: return parse_u32("ranks", arg, 1, TR_MAX_RANKS, &o->ranks);
    case OPT_RENDEZVOUS: o->rendezvous = arg; return true;
    case OPT_SHARD: o->shard_optimizer = true; return true;
    case OPT_BUCKETS: return parse_u32("buckets", arg, 1, 1024, &o->buckets);
    default:
      if (opt >= TR_OPT_ACCUMULATE && tr_cond_apply(opt, arg, &o->cond)) {
        return true;
      }
      usage(stderr); /* getopt or tr_cond_apply printed why */
      return false;
  }
}

static void set_defaults(tr_options *o) {
  memset(o, 0, sizeof *o);
  o->mode = TR_MODE_GRAPH;
  o->steps = TR_DEFAULT_STEPS;
  o->warmup = TR_DEFAULT_WARMUP;
  o->print_every = TR_DEFAULT_PRINT_EVERY;
  o->layers = TR_DEFAULT_LAYERS;
  o->hidden = TR_DEFAULT_HIDDEN;
  o->batch = TR_DEFAULT_BATCH;
  o->seed = TR_DEFAULT_SEED;
  o->buckets = TR_DEFAULT_BUCKETS;
}

/* The multi-rank options against each other and the environment. */
static bool check_ranks(const tr_options *o) {
  const bool from_env = getenv("RANK") != NULL && getenv("WORLD_SIZE") != NULL;
  if (o->ranks > 0 && from_env) {
    return fail("--ranks N and RANK/WORLD_SIZE in the environment: choose "
                "one way to start the ranks");
  }
  if (from_env && o->rendezvous == NULL) {
    return fail("RANK/WORLD_SIZE are set: pass --rendezvous FILE, a path "
                "every rank can read, for NCCL's unique id");
  }
  if (o->rendezvous != NULL && !from_env) {
    return fail("--rendezvous needs RANK and WORLD_SIZE in the environment");
  }
  if (o->shard_optimizer && o->ranks == 0 && !from_env) {
    return fail("--shard-optimizer needs ranks: --ranks N, or RANK and "
                "WORLD_SIZE");
  }
  if (o->shard_optimizer && o->recipe != SG_RECIPE_DELAYED) {
    return fail("--shard-optimizer casts each rank's range of W, which only "
                "--recipe delayed scales from the reduced amax");
  }
  if (o->shard_optimizer && o->mode == TR_MODE_STALE) {
    return fail("--shard-optimizer always casts W alone: --mode stale "
                "would not differ");
  }
  if ((o->ranks > 0 || from_env) && o->cond.skip_nonfinite) {
    return fail("--skip-nonfinite with ranks would guard the gradient "
                "collectives inside a conditional node, on a finite check "
                "each rank makes alone: not supported");
  }
  if ((o->ranks > 0 || from_env) && o->mode != TR_MODE_EAGER &&
      o->warmup == 0) {
    return fail("with ranks, --warmup must be at least 1: NCCL collectives "
                "must run eagerly before they are captured");
  }
  return true;
}

bool tr_parse_options(int argc, char **argv, tr_options *o) {
  set_defaults(o);
  optind = 1;
  int opt;
  while ((opt = getopt_long(argc, argv, "", long_options, NULL)) != -1) {
    if (opt == OPT_HELP) {
      usage(stdout);
      exit(0);
    }
    if (!apply(opt, optarg, o)) {
      return false;
    }
  }
  if (optind < argc) {
    return fail("unexpected argument '%s'", argv[optind]);
  }
  if (o->mode != TR_MODE_EAGER && o->steps <= o->warmup) {
    return fail("--steps must exceed --warmup in %s mode",
                tr_mode_name(o->mode));
  }
  if (!tr_cond_check(&o->cond)) {
    usage(stderr);
    return false;
  }
  return check_ranks(o);
}
