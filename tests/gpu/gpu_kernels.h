/* Kernels of the GPU test programs behind C launchers (prefix tk_). Each
 * launcher enqueues one kernel on `stream` and returns the launch's error.
 * None synchronises or allocates, so all may be captured. */
#ifndef SG_TEST_GPU_KERNELS_H
#define SG_TEST_GPU_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Blocks of the deterministic sum of squares (tk_sumsq_partials). */
#define TK_PARTIALS 128u

/* out[i] = the first uniform float of Philox4x32-10 with seed *seed,
 * subsequence i, offset *base_offset + offset (curand_init semantics). */
cudaError_t tk_philox_uniform(float *out, uint32_t n, const uint64_t *seed,
                              const uint64_t *base_offset, uint64_t offset,
                              cudaStream_t stream);

/* v[i] = a * v[i] + b * c[i]. */
cudaError_t tk_axpby(float *v, const float *c, float a, float b, uint32_t n,
                     cudaStream_t stream);

/* v[i] += scale * (u[i] - 0.5). */
cudaError_t tk_add_noise(float *v, const float *u, float scale, uint32_t n,
                         cudaStream_t stream);

/* partials[b] = sum of v[i]^2 over block b's fixed share, in a fixed order
 * (no atomics): TK_PARTIALS blocks. */
cudaError_t tk_sumsq_partials(const float *v, uint32_t n, float *partials,
                              cudaStream_t stream);

/* One block: *norm = sum of partials in a fixed tree order; then records
 * history: hist_norm[k] = *norm and hist_u[4k..4k+3] = u[0..3], where
 * k = *counter (ignored past `capacity`), and increments *counter. */
cudaError_t tk_finish_norm(const float *partials, float *norm,
                           float *hist_norm, float *hist_u, const float *u,
                           uint32_t *counter, uint32_t capacity,
                           cudaStream_t stream);

/* v[i] *= 1 / sqrt(*norm / n + 1e-6). */
cudaError_t tk_scale_by_norm(float *v, const float *norm, uint32_t n,
                             cudaStream_t stream);

/* *p = v; *p += v. */
cudaError_t tk_set_int(int *p, int v, cudaStream_t stream);
cudaError_t tk_add_int(int *p, int v, cudaStream_t stream);

/* A trace of what ran, in order: log[*count] = tag * 1000 + (index ? *index
 * : 0), then *count += 1 (ignored past `capacity`). */
cudaError_t tk_log(int *log, int *count, int capacity, int tag,
                   const uint32_t *index, cudaStream_t stream);

/* dst[i] = a * src[i]. */
cudaError_t tk_scale_copy(float *dst, const float *src, float a, size_t n,
                          cudaStream_t stream);

/* p[i] = v for n bytes. */
cudaError_t tk_fill_bytes(uint8_t *p, uint8_t v, size_t n,
                          cudaStream_t stream);

/* p[i] = (uint8_t)(p[i] * 5 + 3) for n bytes (a permutation of byte
 * values, so repeated steps keep changing the bytes). */
cudaError_t tk_mix_bytes(uint8_t *p, size_t n, cudaStream_t stream);

/* Loads every kernel above (lazy loading would otherwise load each at its
 * first launch, maybe inside a capture). */
cudaError_t tk_preload(void);

#ifdef __cplusplus
}
#endif

#endif
