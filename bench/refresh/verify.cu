/* bench_verify: download one tensor's inputs and outputs, run the CPU
 * reference on the inputs and count differing output bytes. The reference
 * runs over row bands on every core (an embedding has 525 M elements):
 * bands of whole 128-row blocks are independent for every recipe once
 * current scaling's scale is known, which the bands' amax give first. */
#include "verify.h"

#include <stdlib.h>
#include <string.h>

#include <thread>
#include <vector>

#include "sg_cuda_check.h"
#include "fp8_reference.h"

typedef struct host_tensor {
  uint8_t *w, *wt, *master;
  float *grid, *grid_t;
  float scalars[3]; /* scale, scale_inv, amax */
} host_tensor;

static uint64_t blocks_of(uint64_t n) { return (n + SG_K_BLOCK - 1) / SG_K_BLOCK; }

static size_t grid_bytes(const sg_k_param *p) {
  return sizeof(float) * blocks_of(p->rows) * blocks_of(p->cols);
}

static void *host_alloc(size_t bytes) {
  void *p = malloc(bytes > 0 ? bytes : 1);
  if (p == NULL) {
    fprintf(stderr, "bench_verify: out of host memory\n");
    exit(1);
  }
  return p;
}

/* The bench's tensors are dense (ld = width) and so are their grids. */
static void download(const sg_k_param *p, size_t master_bytes, host_tensor *h) {
  const size_t n = p->rows * p->cols;
  h->w = static_cast<uint8_t *>(host_alloc(n));
  h->wt = static_cast<uint8_t *>(host_alloc(n));
  h->master = static_cast<uint8_t *>(host_alloc(master_bytes));
  h->grid = static_cast<float *>(host_alloc(grid_bytes(p)));
  h->grid_t = static_cast<float *>(host_alloc(grid_bytes(p)));
  SG_CHECK_CUDA(cudaMemcpy(h->w, p->w, n, cudaMemcpyDeviceToHost));
  SG_CHECK_CUDA(cudaMemcpy(h->wt, p->wt, n, cudaMemcpyDeviceToHost));
  SG_CHECK_CUDA(cudaMemcpy(h->master, p->master, master_bytes, cudaMemcpyDeviceToHost));
  memset(h->scalars, 0, sizeof h->scalars);
  if (p->recipe == SG_K_RECIPE_BLOCK) {
    SG_CHECK_CUDA(cudaMemcpy(h->grid, p->grid, grid_bytes(p), cudaMemcpyDeviceToHost));
    SG_CHECK_CUDA(cudaMemcpy(h->grid_t, p->grid_t, grid_bytes(p), cudaMemcpyDeviceToHost));
  } else {
    /* scale, scale_inv, amax are consecutive (current scaling's scale is
     * not the launch's, but is downloaded along) */
    SG_CHECK_CUDA(cudaMemcpy(h->scalars, p->scale_inv - 1, sizeof h->scalars,
                          cudaMemcpyDeviceToHost));
  }
}

static void release(host_tensor *h) {
  free(h->w);
  free(h->wt);
  free(h->master);
  free(h->grid);
  free(h->grid_t);
}

/* The parameter `p` with its pointers moved to host copy h. */
static sg_k_param on_host(const sg_k_param *p, host_tensor *h) {
  sg_k_param q = *p;
  q.w = h->w;
  q.wt = h->wt;
  q.master = h->master;
  q.scale = &h->scalars[0];
  q.scale_inv = &h->scalars[1];
  q.amax = &h->scalars[2];
  q.grid = h->grid;
  q.grid_t = h->grid_t;
  return q;
}

/* Rows [r0, r0 + rows) of q as a parameter of their own: W's rows, Wt's
 * columns, the master's rows, the grids' block rows (r0 is a multiple of
 * 128), amax and scale_inv into `scalars` (2 floats). */
static sg_k_param band(const sg_k_param *q, uint64_t r0, uint64_t rows, float *scalars) {
  sg_k_param b = *q;
  const uint64_t elem = q->master_dtype == SG_K_MASTER_FP32 ? 4 : 2;
  b.rows = rows;
  b.w = q->w + r0 * q->ld_w;
  b.wt = q->wt + r0;
  b.master = static_cast<const char *>(q->master) + r0 * q->ld_master * elem;
  b.scale_inv = scalars;
  b.amax = scalars + 1;
  if (q->recipe == SG_K_RECIPE_BLOCK) {
    b.grid = q->grid + r0 / SG_K_BLOCK * q->ld_grid;
    b.grid_t = q->grid_t + r0 / SG_K_BLOCK;
  }
  return b;
}

/* Runs f(band index, first row, rows) over bands of whole 128-row blocks,
 * one thread per band. */
template <class F>
static uint32_t for_bands(uint64_t rows, F f) {
  const uint64_t threads = std::thread::hardware_concurrency() > 0
                               ? std::thread::hardware_concurrency()
                               : 1;
  const uint64_t per = (blocks_of(rows) + threads - 1) / threads * SG_K_BLOCK;
  std::vector<std::thread> pool;
  uint32_t k = 0;
  for (uint64_t r0 = 0; r0 < rows; r0 += per, k++) {
    pool.emplace_back(f, k, r0, rows - r0 < per ? rows - r0 : per);
  }
  for (std::thread &t : pool) {
    t.join();
  }
  return k;
}

/* sg_ref_refresh(q, mode), band by band. Current scaling first takes the
 * bands' amax for its scale, then casts them as delayed scaling at that
 * scale, which is what the reference's whole-tensor cast computes. */
static void reference(const sg_k_param *q, uint32_t mode) {
  const uint64_t max_bands = blocks_of(q->rows);
  std::vector<float> scalars(2 * max_bands);
  std::vector<uint32_t> amax(max_bands);
  sg_k_param whole = *q;
  float scale = 0.0f;
  if (q->recipe == SG_K_RECIPE_CURRENT && mode != SG_K_MODE_TRANSPOSE) {
    const uint32_t n = for_bands(q->rows, [&](uint32_t k, uint64_t r0, uint64_t rows) {
      const sg_k_param b = band(q, r0, rows, &scalars[2 * k]);
      amax[k] = sg_ref_amax_bits(&b);
    });
    uint32_t all = 0;
    for (uint32_t k = 0; k < n; k++) {
      all = amax[k] > all ? amax[k] : all;
    }
    scale = sg_ref_scale_of(all, q->format, (q->recipe_flags & SG_K_POW2_SCALES) != 0);
    whole.recipe = SG_K_RECIPE_DELAYED;
    whole.recipe_flags = 0;
    whole.scale = &scale;
  }
  const uint32_t n = for_bands(q->rows, [&](uint32_t k, uint64_t r0, uint64_t rows) {
    const sg_k_param b = band(&whole, r0, rows, &scalars[2 * k]);
    sg_ref_refresh(&b, mode);
    uint32_t bits;
    memcpy(&bits, &scalars[2 * k + 1], sizeof bits);
    amax[k] = bits;
  });
  if (mode != SG_K_MODE_TRANSPOSE && q->recipe != SG_K_RECIPE_BLOCK) {
    uint32_t all = 0;
    for (uint32_t k = 0; k < n; k++) {
      all = amax[k] > all ? amax[k] : all;
    }
    *q->scale_inv = scalars[0];
    memcpy(q->amax, &all, sizeof all);
  }
}

static uint64_t count_diffs(const void *a, const void *b, size_t n) {
  const uint8_t *x = static_cast<const uint8_t *>(a);
  const uint8_t *y = static_cast<const uint8_t *>(b);
  uint64_t d = 0;
  for (size_t i = 0; i < n; i++) {
    d += x[i] != y[i];
  }
  return d;
}

/* Every output of the mode and recipe: W and Wt (in transpose mode W is an
 * input, compared all the same), amax and scale_inv of per-tensor scaling,
 * the grids of block scaling (W's is an input of the transpose). */
static uint64_t verify_tensor(const sg_k_param *p, uint32_t mode) {
  const size_t n = p->rows * p->cols;
  const size_t master_bytes = n * (p->master_dtype == SG_K_MASTER_FP32 ? 4 : 2);
  host_tensor got, want;
  download(p, master_bytes, &got);
  download(p, master_bytes, &want);
  const sg_k_param q = on_host(p, &want);
  reference(&q, mode);
  uint64_t diffs = count_diffs(got.w, want.w, n) + count_diffs(got.wt, want.wt, n);
  if (p->recipe == SG_K_RECIPE_BLOCK) {
    diffs += count_diffs(got.grid, want.grid, grid_bytes(p)) +
             count_diffs(got.grid_t, want.grid_t, grid_bytes(p));
  } else if (mode != SG_K_MODE_TRANSPOSE) {
    diffs += count_diffs(got.scalars + 1, want.scalars + 1, 8);
  }
  release(&got);
  release(&want);
  return diffs;
}

uint64_t bench_verify(const bench_set *set, uint32_t mode, uint32_t recipe,
                      uint32_t master_dtype) {
  const uint32_t sample[3] = {0, set->count / 2, set->count - 1};
  uint64_t diffs = 0;
  for (int k = 0; k < 3; k++) {
    if (k > 0 && sample[k] == sample[k - 1]) {
      continue;
    }
    const sg_k_param p = bench_set_param(set, recipe, master_dtype, 0, sample[k]);
    diffs += verify_tensor(&p, mode);
  }
  return diffs;
}
