/* Parameter sets of bench_refresh; sets.h says how memory is laid out. */
#include "sets.h"

#include <stdlib.h>
#include <string.h>

#include "sg_cuda_check.h"
#include "shape_list.h"

typedef struct set_def {
  const char *name, *about;
  const bench_shape_run *runs;
  size_t nruns;
} set_def;

/* GPT: 24 layers of QKV, output projection, MLP up and down. */
static const bench_shape_run kGpt[] = {{24, {6144, 2048}}, {24, {2048, 2048}},
                                 {24, {8192, 2048}}, {24, {2048, 8192}}};
static const bench_shape_run kSmall[] = {{4096, {64, 128}}};
/* Large, odd, degenerate and many small tensors together. */
static const bench_shape_run kMixed[] = {{8, {4096, 4096}}, {8, {3000, 1000}}, {8, {1024, 4099}},
                                   {8, {1, 50000}},   {8, {50000, 1}},   {8, {513, 257}},
                                   {512, {96, 80}},   {512, {33, 257}}};
/* The zoo: real models' weights as one rank holds them. */
static const bench_shape_run kLlama8b[] = {{1, {6144, 4096}}, {1, {4096, 4096}}, {1, {28672, 4096}},
                                     {1, {4096, 14336}}};
static const bench_shape_run kLlama70bTp8[] = {{1, {1280, 8192}}, {1, {8192, 1024}},
                                         {1, {7168, 8192}}, {1, {8192, 3584}}};
static const bench_shape_run kMoe[] = {{16, {14336, 4096}}, {8, {4096, 14336}}};
static const bench_shape_run kGpt3Tp8[] = {{1, {4608, 12288}}, {1, {12288, 1536}},
                                     {1, {6144, 12288}}, {1, {12288, 6144}}};
static const bench_shape_run kEmbeddings[] = {{1, {128256, 4096}}, {1, {50257, 768}}};

#define RUNS(a) a, sizeof a / sizeof a[0]
static const set_def kSets[] = {
    {"gpt", "24 GPT layers (hidden 2048)", RUNS(kGpt)},
    {"small", "4096 tensors of 64 x 128", RUNS(kSmall)},
    {"mixed", "large, odd, degenerate and many small tensors", RUNS(kMixed)},
    {"zoo-llama3-8b", "Llama-3 8B, one layer: QKV, O, gate+up, down", RUNS(kLlama8b)},
    {"zoo-llama3-70b-tp8", "Llama-3 70B, one layer at tensor parallelism 8", RUNS(kLlama70bTp8)},
    {"zoo-moe", "a Mixtral-style MoE layer: 8 experts' w1, w3, w2 in one group", RUNS(kMoe)},
    {"zoo-gpt3-175b-tp8", "GPT-3 175B, one layer at tensor parallelism 8", RUNS(kGpt3Tp8)},
    {"zoo-embeddings", "Llama-3's [128256, 4096] and GPT-2's odd [50257, 768]",
     RUNS(kEmbeddings)},
};
#undef RUNS

const char *const bench_set_names[] = {"gpt",           "small",
                                       "mixed",         "zoo-llama3-8b",
                                       "zoo-llama3-70b-tp8", "zoo-moe",
                                       "zoo-gpt3-175b-tp8",  "zoo-embeddings"};
const uint32_t bench_set_name_count = sizeof bench_set_names / sizeof bench_set_names[0];

static void fill_shapes(bench_set *set, const bench_shape_run *runs, size_t nruns) {
  for (size_t r = 0; r < nruns; r++) {
    set->count += runs[r].repeat;
  }
  set->shapes = static_cast<bench_shape *>(malloc(set->count * sizeof *set->shapes));
  uint32_t i = 0;
  for (size_t r = 0; r < nruns; r++) {
    for (uint32_t k = 0; k < runs[r].repeat; k++) {
      set->shapes[i++] = runs[r].shape;
    }
  }
}

static size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

/* A --shapes list into set->shapes (shape_list.h); 0 if it is refused. */
static int parse_shapes(bench_set *set, const char *spec) {
  bench_shape_run *runs = NULL;
  uint32_t n = 0;
  if (!bench_parse_shapes(spec, &runs, &n)) {
    return 0;
  }
  set->name = "shapes";
  set->about = spec;
  fill_shapes(set, runs, n);
  free(runs);
  return 1;
}

static int set_shapes(bench_set *set, const char *name) {
  const set_def *def = NULL;
  for (const set_def &d : kSets) {
    def = strcmp(d.name, name) == 0 ? &d : def;
  }
  if (def == NULL) {
    return parse_shapes(set, name);
  }
  set->name = def->name;
  set->about = def->about;
  fill_shapes(set, def->runs, def->nruns);
  return 1;
}

static uint64_t blocks_of(uint64_t n) { return (n + SG_K_BLOCK - 1) / SG_K_BLOCK; }

/* Each tensor starts 256-byte aligned in W and Wt, and 64 elements aligned
 * in the master arena (so 16-byte aligned as BF16 too); its grids are
 * dense, 4 floats aligned. */
static void lay_out(bench_set *set) {
  set->off_w = static_cast<size_t *>(malloc(set->count * sizeof(size_t)));
  set->off_m = static_cast<size_t *>(malloc(set->count * sizeof(size_t)));
  set->off_g = static_cast<size_t *>(malloc(set->count * sizeof(size_t)));
  for (uint32_t i = 0; i < set->count; i++) {
    const bench_shape s = set->shapes[i];
    const uint64_t n = s.rows * s.cols;
    set->off_w[i] = set->w_bytes;
    set->off_m[i] = set->m_elems;
    set->off_g[i] = set->g_floats;
    set->w_bytes = round_up(set->w_bytes + n, 256);
    set->m_elems = round_up(set->m_elems + n, 64);
    set->g_floats = round_up(set->g_floats + blocks_of(s.rows) * blocks_of(s.cols), 4);
    set->elements += n;
  }
}

sg_k_param bench_set_param(const bench_set *set, uint32_t recipe, uint32_t master_dtype,
                           uint32_t copy, uint32_t i) {
  const bench_shape s = set->shapes[i];
  const size_t elem = master_dtype == SG_K_MASTER_FP32 ? 4 : 2;
  char *m = reinterpret_cast<char *>(set->master + copy * set->m_elems);
  float *scalars = set->scalars + 3 * (size_t{copy} * set->count + i);
  const size_t g = copy * set->g_floats + set->off_g[i];
  sg_k_param p;
  memset(&p, 0, sizeof p);
  p.w = set->w + copy * set->w_bytes + set->off_w[i];
  p.ld_w = s.cols;
  p.wt = set->wt + copy * set->w_bytes + set->off_w[i];
  p.ld_wt = s.rows;
  p.master = m + set->off_m[i] * elem;
  p.ld_master = s.cols;
  p.scale = recipe == SG_K_RECIPE_DELAYED ? scalars : NULL;
  p.scale_inv = recipe == SG_K_RECIPE_BLOCK ? NULL : scalars + 1;
  p.amax = recipe == SG_K_RECIPE_BLOCK ? NULL : scalars + 2;
  p.rows = s.rows;
  p.cols = s.cols;
  p.format = i % 2 ? SG_K_FP8_E5M2 : SG_K_FP8_E4M3;
  p.master_dtype = master_dtype;
  p.group = set->one_group ? 0 : i; /* per tensor: the per-tensor baseline launches each */
  p.recipe = recipe;
  if (recipe == SG_K_RECIPE_BLOCK) {
    p.grid = set->grid + g;
    p.ld_grid = blocks_of(s.cols);
    p.grid_t = set->grid_t + g;
    p.ld_grid_t = blocks_of(s.rows);
  }
  return p;
}

const void *bench_set_table(const bench_set *set, uint32_t recipe, uint32_t master_dtype,
                            uint32_t copy, uint32_t group) {
  const char *base =
      static_cast<const char *>(set->tables[recipe][master_dtype == SG_K_MASTER_BF16]);
  const uint32_t merged = group == SG_K_ALL_GROUPS ? set->copies : 0u;
  return base + (merged + copy) * set->table_bytes;
}

sg_k_plan bench_set_plan(const bench_set *set, uint32_t recipe, uint32_t group, int layout) {
  sg_k_plan plan =
      group == SG_K_ALL_GROUPS ? set->plan[recipe] : set->tensor_plans[recipe][group];
  if (layout >= 0) { /* both parts of a split transpose */
    plan.layout = plan.rest_layout = static_cast<uint32_t>(layout);
  }
  return plan;
}

static void build_tables(bench_set *set) {
  set->table_bytes = round_up(sg_k_refresh_table_bytes(set->count), 256);
  void *image = malloc(set->table_bytes);
  sg_k_param *params = static_cast<sg_k_param *>(malloc(set->count * sizeof *params));
  const uint32_t dtypes[2] = {SG_K_MASTER_FP32, SG_K_MASTER_BF16};
  for (uint32_t r = 0; r < BENCH_RECIPES; r++) {
    for (int d = 0; d < 2; d++) {
      SG_CHECK_CUDA(cudaMalloc(&set->tables[r][d], 2 * set->copies * set->table_bytes));
      for (uint32_t c = 0; c < set->copies; c++) {
        for (uint32_t i = 0; i < set->count; i++) {
          params[i] = bench_set_param(set, r, dtypes[d], c, i);
        }
        for (uint32_t group : {0u, uint32_t{SG_K_ALL_GROUPS}}) {
          const bool merged = group == SG_K_ALL_GROUPS;
          SG_CHECK_CUDA((merged ? sg_k_refresh_build_merged : sg_k_refresh_build)(
              image, set->count, params, set->count));
          SG_CHECK_CUDA(cudaMemcpy(const_cast<void *>(bench_set_table(set, r, dtypes[d], c, group)),
                                image, set->table_bytes, cudaMemcpyHostToDevice));
        }
      }
    }
    /* Every copy and dtype of a recipe has the same shapes, alignment and
     * lists: the plans of the last built do for all. */
    set->plan[r] = sg_k_refresh_plan_merged(params, set->count);
    set->tensor_plans[r] = static_cast<sg_k_plan *>(malloc(set->count * sizeof(sg_k_plan)));
    for (uint32_t i = 0; i < set->count; i++) {
      set->tensor_plans[r][i] = sg_k_refresh_plan(&params[i], 1, SG_K_ALL_GROUPS);
    }
  }
  SG_CHECK_CUDA(cudaDeviceSynchronize()); /* pageable copies may still be in flight */
  free(params);
  free(image);
}

__device__ uint32_t bench_hash(uint64_t i) {
  i = (i ^ (i >> 33)) * 0xFF51AFD7ED558CCDull;
  i = (i ^ (i >> 33)) * 0xC4CEB9FE1A85EC53ull;
  return static_cast<uint32_t>(i ^ (i >> 33));
}

/* Finite, nonzero values spread over 2^-8 .. 2^8, both signs. */
__device__ uint32_t bench_value_bits(uint64_t i) {
  const uint32_t h = bench_hash(i);
  return (h & 0x807FFFFFu) | ((119u + (h >> 23) % 17u) << 23);
}

__global__ void fill_master(float *m, size_t n, uint32_t bf16) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x) {
    const uint32_t bits = bench_value_bits(i);
    if (bf16) {
      reinterpret_cast<uint16_t *>(m)[i] = static_cast<uint16_t>(bits >> 16);
    } else {
      m[i] = __uint_as_float(bits);
    }
  }
}

__global__ void fill_bytes(uint8_t *p, size_t n, uint64_t salt) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x) {
    p[i] = static_cast<uint8_t>(bench_hash(i + salt));
  }
}

__global__ void fill_scalars(float *s, size_t count) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < count;
       i += size_t{gridDim.x} * blockDim.x) {
    s[3 * i] = 1.5f;                      /* scale: a real multiply */
    s[3 * i + 1] = s[3 * i + 2] = -1.0f; /* outputs poisoned */
  }
}

void bench_set_fill(bench_set *set, uint32_t master_dtype) {
  const size_t copies = set->copies;
  const int bf16 = master_dtype == SG_K_MASTER_BF16;
  /* BF16 fills the whole arena with BF16 values: each copy's BF16 view starts
   * where its FP32 one does. */
  fill_master<<<1024, 256>>>(set->master, copies * set->m_elems * (bf16 ? 2 : 1), bf16);
  SG_CHECK_CUDA(cudaGetLastError());
  fill_bytes<<<1024, 256>>>(set->w, copies * set->w_bytes, 1);
  SG_CHECK_CUDA(cudaGetLastError());
  fill_bytes<<<1024, 256>>>(set->wt, copies * set->w_bytes, 2);
  SG_CHECK_CUDA(cudaGetLastError());
  fill_scalars<<<64, 256>>>(set->scalars, copies * set->count);
  SG_CHECK_CUDA(cudaGetLastError());
  fill_bytes<<<64, 256>>>(reinterpret_cast<uint8_t *>(set->grid), 4 * copies * set->g_floats, 3);
  SG_CHECK_CUDA(cudaGetLastError());
  fill_bytes<<<64, 256>>>(reinterpret_cast<uint8_t *>(set->grid_t), 4 * copies * set->g_floats, 4);
  SG_CHECK_CUDA(cudaGetLastError());
  SG_CHECK_CUDA(cudaDeviceSynchronize());
}

int bench_set_create(bench_set *set, const char *name, size_t min_bytes, int one_group) {
  memset(set, 0, sizeof *set);
  set->one_group = one_group;
  if (!set_shapes(set, name)) {
    return 0;
  }
  lay_out(set);
  const size_t traffic = 2 * set->elements;
  set->copies = static_cast<uint32_t>(traffic >= min_bytes ? 1 : (min_bytes + traffic - 1) / traffic);
  SG_CHECK_CUDA(cudaMalloc(&set->w, set->copies * set->w_bytes));
  SG_CHECK_CUDA(cudaMalloc(&set->wt, set->copies * set->w_bytes));
  SG_CHECK_CUDA(cudaMalloc(&set->master, set->copies * set->m_elems * sizeof(float)));
  SG_CHECK_CUDA(cudaMalloc(&set->scalars, 3 * sizeof(float) * set->copies * set->count));
  SG_CHECK_CUDA(cudaMalloc(&set->grid, sizeof(float) * set->copies * set->g_floats));
  SG_CHECK_CUDA(cudaMalloc(&set->grid_t, sizeof(float) * set->copies * set->g_floats));
  build_tables(set);
  return 1;
}

void bench_set_destroy(bench_set *set) {
  SG_CHECK_CUDA(cudaFree(set->w));
  SG_CHECK_CUDA(cudaFree(set->wt));
  SG_CHECK_CUDA(cudaFree(set->master));
  SG_CHECK_CUDA(cudaFree(set->scalars));
  SG_CHECK_CUDA(cudaFree(set->grid));
  SG_CHECK_CUDA(cudaFree(set->grid_t));
  for (uint32_t r = 0; r < BENCH_RECIPES; r++) {
    SG_CHECK_CUDA(cudaFree(set->tables[r][0]));
    SG_CHECK_CUDA(cudaFree(set->tables[r][1]));
  }
  free(set->shapes);
  free(set->off_w);
  free(set->off_m);
  free(set->off_g);
  for (uint32_t r = 0; r < BENCH_RECIPES; r++) {
    free(set->tensor_plans[r]);
  }
  memset(set, 0, sizeof *set);
}
