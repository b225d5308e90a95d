/* The trainer's GEMMs through cuBLASLt. Row-major tensors throughout; the
 * plans translate them to cuBLASLt's column-major view.
 *
 * Hopper's FP8 GEMMs take only the "TN" layout: both operands must have the
 * reduction dimension contiguous. Y = X W^T (forward) is TN as it stands.
 * dX = dY W is not — its reduction runs over W's rows — so it is computed
 * as dX = dY (W^T)^T from the FP8 transpose W^T, which the plugin's
 * post-optimizer-step refresh rewrites after every optimizer step. FP8
 * GEMMs write BF16, the configuration Transformer Engine and PyTorch's
 * _scaled_mm use (on the H200 with CUDA 13.0, cuBLASLt offered an algorithm
 * for an FP32 output but cublasLtMatmul then refused it with
 * CUBLAS_STATUS_NOT_SUPPORTED). The weight gradient dW = dY^T X (reduction
 * over the batch) runs in BF16 with an FP32 result.
 *
 * Each plan picks its algorithm once, with the fixed workspace, before any
 * step runs, and every mode reuses it: a per-call heuristic could choose
 * differently between runs and break bit-identical results. A plan is
 * immutable once made: an FP8 plan has its scale pointers built in, so the
 * FP8 GEMMs of different layers are different plans (of one shape). */
#ifndef TR_GEMM_H
#define TR_GEMM_H

#include <stdbool.h>
#include <stdint.h>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

typedef struct tr_blas {
  cublasLtHandle_t lt;
  void *workspace; /* device, shared by every GEMM: one stream orders them */
  size_t workspace_bytes;
} tr_blas;

/* A GEMM in cuBLASLt's terms: D (m x n, column-major, d_type) =
 * op(A) op(B), `batch` times over operands `stride_*` elements apart. */
typedef struct tr_gemm_desc {
  const char *name;
  uint64_t m, n, k;
  cudaDataType_t a_type, b_type, d_type;
  cublasOperation_t op_a, op_b;
  uint64_t lda, ldb, ldd;
  int32_t batch;
  int64_t stride_a, stride_b, stride_d;
} tr_gemm_desc;

typedef struct tr_gemm {
  tr_gemm_desc d;
  cublasLtMatmulDesc_t op;
  cublasLtMatrixLayout_t a, b, c;
  cublasLtMatmulAlgo_t algo;
  int candidate;    /* which heuristic candidate it is */
  int32_t algo_id;  /* its CUBLASLT_ALGO_CONFIG_ID */
  size_t workspace; /* bytes of workspace it uses */
} tr_gemm;

void tr_blas_create(tr_blas *b, size_t workspace_bytes);
void tr_blas_destroy(tr_blas *b);

/* Y[rows][out] = X[rows][in] W[out][in]^T, with X of x_type and W of w_type;
 * Y is BF16 when the inputs are FP8, else FP32: forward, data gradient
 * (W := W^T) and the teacher. Run it with A = W and B = X. */
tr_gemm_desc tr_gemm_xwt(const char *name, uint64_t rows, uint64_t out,
                         uint64_t in, cudaDataType_t x_type,
                         cudaDataType_t w_type);

/* dW_l[out][in] (FP32) = G_l[rows][out]^T X_l[rows][in], both BF16, for
 * the `layers` layers at once (X_l, G_l and dW_l each contiguous, one after
 * the other): the weight gradients do not depend on each other, so one
 * strided-batched GEMM after the backward pass does them all. Run it with
 * A = X_0 and B = G_0. */
tr_gemm_desc tr_gemm_wgrad(const char *name, uint64_t rows, uint64_t out,
                           uint64_t in, uint32_t layers);

/* Builds the descriptors (FP8 plans: with the per-tensor scales a_scale and
 * b_scale, device pointers the GEMM multiplies by; NULL for the others) and
 * takes the first of cuBLASLt's heuristic candidates, in the heuristic's
 * order, that fits the workspace and runs on zeroed scratch operands of the
 * plan's shape: a deterministic choice, and one that a later cublasLtMatmul
 * will not refuse. Prints each refusal; exits naming the GEMM when no
 * candidate runs. */
void tr_gemm_plan(tr_gemm *g, const tr_blas *b, const tr_gemm_desc *d,
                  const float *a_scale, const float *b_scale);

/* Enqueues D = op(A) op(B) (times the scales) on `stream`. */
void tr_gemm_run(const tr_gemm *g, const tr_blas *b, const void *A,
                 const void *B, void *D, cudaStream_t stream);

/* "gemm NAME m=.. n=.. k=.. batch ..: candidate .., algorithm .." */
void tr_gemm_print(const tr_gemm *g);

void tr_gemm_destroy(tr_gemm *g);

#endif
