/* bench_loop_cost's kernels (loop_cost.h says what each does). */
#include <cstring>

#include "loop_cost.h"

namespace {

constexpr unsigned kThreads = 256;

__global__ void touch(float *v, size_t n, uint32_t *hist,
                      const uint32_t *index) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x) {
    v[i] += 1.0f;
  }
  if (hist != nullptr && blockIdx.x == 0 && threadIdx.x == 0) {
    const uint32_t k = *index;
    hist[k < LC_HIST ? k : LC_HIST] += 1u;
  }
}

__global__ void start(cudaGraphConditionalHandle h, uint32_t *index,
                      uint32_t *it, const int32_t *trip, uint32_t index0) {
  *index = index0;
  *it = 0u;
  cudaGraphSetConditional(h, *trip > 0 ? 1u : 0u);
}

__device__ unsigned below(uint32_t count, const int32_t *trip) {
  return static_cast<int64_t>(count) < static_cast<int64_t>(*trip) ? 1u : 0u;
}

/* *count += 1, condition *count < *trip. */
__device__ void advance(cudaGraphConditionalHandle h, uint32_t *count,
                        const int32_t *trip) {
  const uint32_t next = *count + 1u;
  *count = next;
  cudaGraphSetConditional(h, below(next, trip));
}

__global__ void step(cudaGraphConditionalHandle h, uint32_t *index,
                     const int32_t *trip) {
  advance(h, index, trip);
}

__global__ void step_after(cudaGraphConditionalHandle h, uint32_t *index,
                           const int32_t *trip) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
  advance(h, index, trip);
}

__global__ void cond(cudaGraphConditionalHandle h, uint32_t *it,
                     const int32_t *trip) {
  advance(h, it, trip);
}

__global__ void bump(uint32_t *word) { *word += 1u; }

__global__ void fused(cudaGraphConditionalHandle h, uint32_t *index,
                      const int32_t *trip) {
  const uint32_t now = *index + 1u; /* UINT32_MAX + 1 = 0 */
  *index = now;
  cudaGraphSetConditional(h, below(now + 1u, trip));
}

template <typename T>
void put(lc_op *op, int i, T value) {
  static_assert(sizeof(T) <= sizeof(uint64_t), "8-byte arguments");
  op->store[i] = 0;
  std::memcpy(&op->store[i], &value, sizeof value);
}

lc_op one_thread(const void *fn) {
  lc_op op;
  std::memset(&op, 0, sizeof op);
  op.fn = fn;
  op.grid = 1;
  op.block = 1;
  return op;
}

}  // namespace

extern "C" void **lc_op_args(lc_op *op) {
  for (int i = 0; i < LC_ARGS; i++) {
    op->args[i] = &op->store[i];
  }
  return op->args;
}

extern "C" lc_op lc_touch(float *v, size_t n, uint32_t *hist,
                          const uint32_t *index) {
  lc_op op = one_thread(reinterpret_cast<const void *>(&touch));
  const size_t blocks = (n + kThreads - 1) / kThreads;
  op.grid = static_cast<unsigned>(blocks < 1024 ? blocks : 1024);
  op.block = kThreads;
  put(&op, 0, v);
  put(&op, 1, n);
  put(&op, 2, hist);
  put(&op, 3, index);
  return op;
}

extern "C" lc_op lc_start(cudaGraphConditionalHandle h, uint32_t *index,
                          uint32_t *it, const int32_t *trip,
                          uint32_t index0) {
  lc_op op = one_thread(reinterpret_cast<const void *>(&start));
  put(&op, 0, h);
  put(&op, 1, index);
  put(&op, 2, it);
  put(&op, 3, trip);
  put(&op, 4, index0);
  return op;
}

/* The condition kernels take the same arguments. */
static lc_op conditional(const void *fn, cudaGraphConditionalHandle h,
                         uint32_t *word, const int32_t *trip) {
  lc_op op = one_thread(fn);
  put(&op, 0, h);
  put(&op, 1, word);
  put(&op, 2, trip);
  return op;
}

extern "C" lc_op lc_step(cudaGraphConditionalHandle h, uint32_t *index,
                         const int32_t *trip) {
  return conditional(reinterpret_cast<const void *>(&step), h, index, trip);
}

extern "C" lc_op lc_step_after(cudaGraphConditionalHandle h,
                               uint32_t *index, const int32_t *trip) {
  return conditional(reinterpret_cast<const void *>(&step_after), h, index,
                     trip);
}

extern "C" lc_op lc_cond(cudaGraphConditionalHandle h, uint32_t *it,
                         const int32_t *trip) {
  return conditional(reinterpret_cast<const void *>(&cond), h, it, trip);
}

extern "C" lc_op lc_bump(uint32_t *word) {
  lc_op op = one_thread(reinterpret_cast<const void *>(&bump));
  put(&op, 0, word);
  return op;
}

extern "C" lc_op lc_fused(cudaGraphConditionalHandle h, uint32_t *index,
                          const int32_t *trip) {
  return conditional(reinterpret_cast<const void *>(&fused), h, index, trip);
}
