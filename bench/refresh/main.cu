/* bench_refresh: the FP8 refresh kernels on the GPT, many-small and mixed
 * parameter sets, against a device-to-device copy of the same byte count and
 * against one launch per tensor. Prints a table and writes CSV.
 *
 *   bench_refresh [--set gpt|small|mixed|all] [--layout auto|narrow|wide]
 *                 [--csv PATH] [--reps N >= 20]
 *
 * The tile modes run in the layout sg_k_refresh_layout picks for the set
 * (auto, as the plugin does), or in the one forced, to compare the two.
 *
 * Bytes count reads plus writes: 2 per element for transpose, 6 (FP32 master)
 * or 4 (BF16) for cast-transpose, 5 or 3 for cast. The copy moves half the
 * byte count (it reads and writes each byte). Sets whose traffic is under 4x
 * the L2 are repeated and the timed runs rotate over the copies. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sg_cuda_check.h"
#include "measure.h"
#include "refresh.h"
#include "sets.h"
#include "verify.h"

typedef struct config {
  uint32_t mode, master_dtype;
  const char *mode_name, *master_name;
  uint64_t bytes_per_elem;
} config;

static const config kConfigs[] = {
    {SG_K_MODE_TRANSPOSE, SG_K_MASTER_FP32, "transpose", "-", 2},
    {SG_K_MODE_CAST, SG_K_MASTER_FP32, "cast", "fp32", 5},
    {SG_K_MODE_CAST, SG_K_MASTER_BF16, "cast", "bf16", 3},
    {SG_K_MODE_CAST_TRANSPOSE, SG_K_MASTER_FP32, "cast-transpose", "fp32", 6},
    {SG_K_MODE_CAST_TRANSPOSE, SG_K_MASTER_BF16, "cast-transpose", "bf16", 4},
};

typedef struct options {
  const char *set; /* NULL: all */
  int layout;      /* SG_K_LAYOUT_*, or -1: the set's own choice */
  const char *csv;
  int reps;
} options;

typedef struct context {
  int sm_count;
  size_t l2_bytes;
  cudaStream_t stream;
  int reps;
  int layout;
  FILE *csv;
} context;

typedef struct row {
  double fused_us, copy_us, per_tensor_us;
  uint64_t bytes, diffs;
} row;

static void usage(void) {
  fprintf(stderr, "usage: bench_refresh [--set gpt|small|mixed|all] [--layout auto|narrow|wide]"
                  " [--csv PATH] [--reps N>=20]\n");
  exit(2);
}

static int parse_layout(const char *name) {
  if (strcmp(name, "wide") == 0) {
    return SG_K_LAYOUT_WIDE;
  }
  if (strcmp(name, "narrow") == 0) {
    return SG_K_LAYOUT_NARROW;
  }
  if (strcmp(name, "auto") != 0) {
    usage();
  }
  return -1;
}

static options parse(int argc, char **argv) {
  options o = {NULL, -1, NULL, 30};
  for (int i = 1; i < argc; i++) {
    if (i + 1 >= argc) {
      usage();
    }
    if (strcmp(argv[i], "--set") == 0) {
      o.set = strcmp(argv[i + 1], "all") == 0 ? NULL : argv[i + 1];
    } else if (strcmp(argv[i], "--layout") == 0) {
      o.layout = parse_layout(argv[i + 1]);
    } else if (strcmp(argv[i], "--csv") == 0) {
      o.csv = argv[i + 1];
    } else if (strcmp(argv[i], "--reps") == 0) {
      o.reps = atoi(argv[i + 1]);
    } else {
      usage();
    }
    i++;
  }
  const int known_set = o.set == NULL || strcmp(o.set, "gpt") == 0 ||
                        strcmp(o.set, "small") == 0 || strcmp(o.set, "mixed") == 0;
  if (o.reps < 20 || !known_set) {
    usage();
  }
  return o;
}

static uint32_t layout_of(const context *cx, const bench_set *set) {
  return cx->layout < 0 ? set->layout : static_cast<uint32_t>(cx->layout);
}

static void launch(const context *cx, const bench_set *set, const void *table, uint32_t mode,
                   uint32_t group) {
  SG_CHECK_CUDA(
      sg_k_refresh_launch(table, mode, group, layout_of(cx, set), NULL, cx->sm_count, cx->stream));
}

static row measure(const context *cx, bench_set *set, const config *cf, uint8_t *copy_dst) {
  row r;
  r.bytes = cf->bytes_per_elem * set->elements;
  const uint32_t copies = set->copies;
  launch(cx, set, bench_set_table(set, cf->master_dtype, 0), cf->mode, SG_K_ALL_GROUPS);
  SG_CHECK_CUDA(cudaStreamSynchronize(cx->stream));
  r.diffs = bench_verify(set, cf->mode, cf->master_dtype);
  r.fused_us = median_us(cx->stream, cx->reps, [&](int k) {
    launch(cx, set, bench_set_table(set, cf->master_dtype, k % copies), cf->mode,
           SG_K_ALL_GROUPS);
  });
  r.per_tensor_us = median_us(cx->stream, cx->reps, [&](int k) {
    for (uint32_t i = 0; i < set->count; i++) {
      launch(cx, set, bench_set_table(set, cf->master_dtype, k % copies), cf->mode, i);
    }
  });
  const size_t copy_bytes = r.bytes / 2;
  r.copy_us = median_us(cx->stream, cx->reps, [&](int k) {
    const size_t c = static_cast<size_t>(k % copies);
    const char *src = reinterpret_cast<const char *>(set->master + c * set->m_elems);
    SG_CHECK_CUDA(cudaMemcpyAsync(copy_dst + c * copy_bytes, src, copy_bytes,
                                  cudaMemcpyDeviceToDevice, cx->stream));
  });
  return r;
}

/* The issue's targets: on the GPT set transpose >= 90% and the cast modes
 * >= 85% of the copy; on the small set within 1.3x the copy time (the byte
 * floor) plus 5 us. */
static const char *verdict(const char *set, const config *cf, const row *r, char *target,
                           size_t n) {
  const double pct = 100.0 * r->copy_us / r->fused_us;
  if (strcmp(set, "gpt") == 0) {
    const double need = cf->mode == SG_K_MODE_TRANSPOSE ? 90.0 : 85.0;
    snprintf(target, n, ">=%.0f%%", need);
    return pct >= need ? "met" : "MISSED";
  }
  if (strcmp(set, "small") == 0) {
    const double limit = 1.3 * r->copy_us + 5.0;
    snprintf(target, n, "<=%.1fus", limit);
    return r->fused_us <= limit ? "met" : "MISSED";
  }
  snprintf(target, n, "-");
  return "-";
}

static void report(const context *cx, const bench_set *set, const config *cf, const row *r) {
  const double gbs = r->bytes / (1e3 * r->fused_us);
  const double copy_gbs = r->bytes / (1e3 * r->copy_us);
  const double pct = 100.0 * gbs / copy_gbs;
  char target[32];
  const char *v = verdict(set->name, cf, r, target, sizeof target);
  const char *layout = cf->mode == SG_K_MODE_CAST                     ? "-"
                       : layout_of(cx, set) == SG_K_LAYOUT_WIDE ? "wide"
                                                                : "narrow";
  printf("%-6s %-15s %-5s %-6s %6u %11llu %9.1f %10.1f %8.0f %10.1f %8.0f %6.1f%% %12.1f %8.1fx %-10s %-7s %s\n",
         set->name, cf->mode_name, cf->master_name, layout, set->count,
         (unsigned long long)set->elements, r->bytes / 1e6, r->fused_us, gbs, r->copy_us,
         copy_gbs, pct, r->per_tensor_us, r->per_tensor_us / r->fused_us, target, v,
         r->diffs == 0 ? "ok" : "MISMATCH");
  if (cx->csv != NULL) {
    fprintf(cx->csv, "%s,%s,%s,%s,%u,%llu,%llu,%u,%.2f,%.1f,%.2f,%.1f,%.2f,%.2f,%s,%s,%llu\n",
            set->name, cf->mode_name, cf->master_name, layout, set->count,
            (unsigned long long)set->elements, (unsigned long long)r->bytes, set->copies,
            r->fused_us, gbs, r->copy_us, copy_gbs, pct, r->per_tensor_us, target, v,
            (unsigned long long)r->diffs);
  }
}

static void run_set(const context *cx, const char *name) {
  bench_set set;
  if (!bench_set_create(&set, name, 4 * cx->l2_bytes)) {
    usage();
  }
  uint8_t *copy_dst = NULL;
  SG_CHECK_CUDA(cudaMalloc(&copy_dst, set.copies * 3 * set.elements));
  uint32_t filled = SG_K_MASTER_NONE;
  for (const config &cf : kConfigs) {
    if (cf.master_dtype != filled) {
      bench_set_fill(&set, cf.master_dtype);
      filled = cf.master_dtype;
    }
    const row r = measure(cx, &set, &cf, copy_dst);
    report(cx, &set, &cf, &r);
  }
  SG_CHECK_CUDA(cudaFree(copy_dst));
  bench_set_destroy(&set);
}

int main(int argc, char **argv) {
  const options o = parse(argc, argv);
  context cx;
  memset(&cx, 0, sizeof cx);
  cx.reps = o.reps;
  cx.layout = o.layout;
  int device = 0, l2 = 0;
  cudaDeviceProp prop;
  SG_CHECK_CUDA(cudaGetDevice(&device));
  SG_CHECK_CUDA(cudaGetDeviceProperties(&prop, device));
  SG_CHECK_CUDA(cudaDeviceGetAttribute(&cx.sm_count, cudaDevAttrMultiProcessorCount, device));
  SG_CHECK_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  cx.l2_bytes = static_cast<size_t>(l2);
  SG_CHECK_CUDA(cudaStreamCreateWithFlags(&cx.stream, cudaStreamNonBlocking));
  if (o.csv != NULL && (cx.csv = fopen(o.csv, "w")) == NULL) {
    perror(o.csv);
    return 1;
  }
  if (cx.csv != NULL) {
    fprintf(cx.csv, "set,mode,master,layout,tensors,elements,bytes,copies,fused_us,fused_gbs,copy_us,"
                    "copy_gbs,pct_of_copy,per_tensor_us,target,verdict,verify_diffs\n");
  }
  printf("bench_refresh: %s, %d SMs, L2 %d MB, median of %d runs after %d warm-up\n", prop.name,
         cx.sm_count, l2 >> 20, cx.reps, kWarmup);
  printf("%-6s %-15s %-5s %-6s %6s %11s %9s %10s %8s %10s %8s %7s %12s %9s %-10s %-7s %s\n",
         "set", "mode", "mast", "layout", "tens", "elements", "MB", "fused_us", "GB/s", "copy_us", "copy_GB/s",
         "%copy", "per-tens_us", "speedup", "target", "verdict", "verify");
  const char *sets[] = {"gpt", "small", "mixed"};
  for (const char *name : sets) {
    if (o.set == NULL || strcmp(o.set, name) == 0) {
      run_set(&cx, name);
    }
  }
  if (cx.csv != NULL) {
    fclose(cx.csv);
  }
  SG_CHECK_CUDA(cudaStreamDestroy(cx.stream));
  return 0;
}
