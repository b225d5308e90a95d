#include "gemm.h"

#include <stdio.h>
#include <string.h>

#include "checks.h"

/* Heuristic candidates tried at planning time. */
#define TR_GEMM_CANDIDATES 8

void tr_blas_create(tr_blas *b, size_t workspace_bytes) {
  memset(b, 0, sizeof *b);
  CK_BLAS(cublasLtCreate(&b->lt));
  b->workspace_bytes = workspace_bytes;
  SG_CHECK_CUDA(cudaMalloc(&b->workspace, workspace_bytes));
}

void tr_blas_destroy(tr_blas *b) {
  SG_CHECK_CUDA(cudaFree(b->workspace));
  CK_BLAS(cublasLtDestroy(b->lt));
}

static bool is_fp8(cudaDataType_t t) {
  return t == CUDA_R_8F_E4M3 || t == CUDA_R_8F_E5M2;
}

static size_t type_bytes(cudaDataType_t t) {
  return is_fp8(t) ? 1 : t == CUDA_R_16BF ? 2 : 4;
}

tr_gemm_desc tr_gemm_xwt(const char *name, uint64_t rows, uint64_t out,
                         uint64_t in, cudaDataType_t x_type,
                         cudaDataType_t w_type) {
  /* Column-major view: Y^T (out x rows) = W (out x in) X^T; W row-major is
   * "in x out" column-major, hence op T; X row-major is X^T column-major. */
  const cudaDataType_t y_type = is_fp8(w_type) ? CUDA_R_16BF : CUDA_R_32F;
  tr_gemm_desc d = {name, out, rows, in, w_type, x_type, y_type,
                    CUBLAS_OP_T, CUBLAS_OP_N, in, in, out, 1, 0, 0, 0};
  return d;
}

tr_gemm_desc tr_gemm_wgrad(const char *name, uint64_t rows, uint64_t out,
                           uint64_t in, uint32_t layers) {
  /* dW^T (in x out, column-major) = X^T (in x rows) G (rows x out). */
  tr_gemm_desc d = {name, in, out, rows, CUDA_R_16BF, CUDA_R_16BF,
                    CUDA_R_32F, CUBLAS_OP_N, CUBLAS_OP_T, in, out, in,
                    (int32_t)layers, (int64_t)(rows * in),
                    (int64_t)(rows * out), (int64_t)(out * in)};
  return d;
}

static void set_attr(cublasLtMatmulDesc_t op, cublasLtMatmulDescAttributes_t a,
                     const void *value, size_t size) {
  CK_BLAS(cublasLtMatmulDescSetAttribute(op, a, value, size));
}

/* The stored (pre-op) shape of an operand whose op(X) is rows x cols. */
static void stored_shape(cublasOperation_t op, uint64_t rows, uint64_t cols,
                         uint64_t *stored_rows, uint64_t *stored_cols) {
  const int transposed = op == CUBLAS_OP_T;
  *stored_rows = transposed ? cols : rows;
  *stored_cols = transposed ? rows : cols;
}

static void layout(cublasLtMatrixLayout_t *l, cudaDataType_t type,
                   cublasOperation_t op, uint64_t rows, uint64_t cols,
                   uint64_t ld, int32_t batch, int64_t stride) {
  uint64_t r, c;
  stored_shape(op, rows, cols, &r, &c);
  CK_BLAS(cublasLtMatrixLayoutCreate(l, type, r, c, (int64_t)ld));
  if (batch > 1) {
    CK_BLAS(cublasLtMatrixLayoutSetAttribute(
        *l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch));
    CK_BLAS(cublasLtMatrixLayoutSetAttribute(
        *l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
        sizeof stride));
  }
}

static void create_descriptors(tr_gemm *g, const float *a_scale,
                               const float *b_scale) {
  const tr_gemm_desc *d = &g->d;
  CK_BLAS(cublasLtMatmulDescCreate(&g->op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  set_attr(g->op, CUBLASLT_MATMUL_DESC_TRANSA, &d->op_a, sizeof d->op_a);
  set_attr(g->op, CUBLASLT_MATMUL_DESC_TRANSB, &d->op_b, sizeof d->op_b);
  if (is_fp8(d->a_type)) {
    set_attr(g->op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &a_scale,
             sizeof a_scale);
    set_attr(g->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &b_scale,
             sizeof b_scale);
  }
  layout(&g->a, d->a_type, d->op_a, d->m, d->k, d->lda, d->batch,
         d->stride_a);
  layout(&g->b, d->b_type, d->op_b, d->k, d->n, d->ldb, d->batch,
         d->stride_b);
  layout(&g->c, d->d_type, CUBLAS_OP_N, d->m, d->n, d->ldd, d->batch,
         d->stride_d);
}

static cublasStatus_t matmul(const tr_gemm *g, const tr_blas *b,
                             const cublasLtMatmulAlgo_t *algo, const void *A,
                             const void *B, void *D, cudaStream_t stream) {
  static const float alpha = 1.0f, beta = 0.0f;
  return cublasLtMatmul(b->lt, g->op, &alpha, A, g->a, B, g->b, &beta, D,
                        g->c, D, g->c, algo, b->workspace, b->workspace_bytes,
                        stream);
}

/* Device scratch for one operand of the plan (every batch entry), zeroed. */
static void *scratch(cudaDataType_t type, cublasOperation_t op, uint64_t rows,
                     uint64_t cols, uint64_t ld, int32_t batch,
                     int64_t stride) {
  uint64_t r, c;
  stored_shape(op, rows, cols, &r, &c);
  const size_t one = (size_t)ld * c;
  const size_t elements =
      batch > 1 ? (size_t)stride * (size_t)(batch - 1) + one : one;
  const size_t bytes = elements * type_bytes(type);
  void *p = NULL;
  SG_CHECK_CUDA(cudaMalloc(&p, bytes));
  SG_CHECK_CUDA(cudaMemset(p, 0, bytes));
  return p;
}

/* Whether `algo` runs this plan: one call on scratch operands, waited for. */
static bool trial(const tr_gemm *g, const tr_blas *b,
                  const cublasLtMatmulAlgo_t *algo, int index) {
  const tr_gemm_desc *d = &g->d;
  void *A = scratch(d->a_type, d->op_a, d->m, d->k, d->lda, d->batch,
                    d->stride_a);
  void *B = scratch(d->b_type, d->op_b, d->k, d->n, d->ldb, d->batch,
                    d->stride_b);
  void *D = scratch(d->d_type, CUBLAS_OP_N, d->m, d->n, d->ldd, d->batch,
                    d->stride_d);
  const cublasStatus_t st = matmul(g, b, algo, A, B, D, NULL);
  const cudaError_t err = cudaDeviceSynchronize();
  SG_CHECK_CUDA(cudaFree(D));
  SG_CHECK_CUDA(cudaFree(B));
  SG_CHECK_CUDA(cudaFree(A));
  if (st != CUBLAS_STATUS_SUCCESS || err != cudaSuccess) {
    printf("gemm %-9s candidate %d refused: %s / %s\n", d->name, index,
           cublasLtGetStatusName(st), cudaGetErrorName(err));
    (void)cudaGetLastError(); /* a launch error is not sticky: clear it */
    return false;
  }
  return true;
}

void tr_gemm_print(const tr_gemm *g) {
  printf("gemm %-9s m=%llu n=%llu k=%llu batch %d: candidate %d, algorithm "
         "%d, %zu B workspace\n",
         g->d.name, (unsigned long long)g->d.m, (unsigned long long)g->d.n,
         (unsigned long long)g->d.k, (int)g->d.batch, g->candidate,
         (int)g->algo_id, g->workspace);
}

static void choose_algorithm(tr_gemm *g, const tr_blas *b) {
  cublasLtMatmulPreference_t pref;
  CK_BLAS(cublasLtMatmulPreferenceCreate(&pref));
  CK_BLAS(cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &b->workspace_bytes,
      sizeof b->workspace_bytes));
  cublasLtMatmulHeuristicResult_t results[TR_GEMM_CANDIDATES];
  memset(results, 0, sizeof results);
  int found = 0;
  tr_check_blas(cublasLtMatmulAlgoGetHeuristic(b->lt, g->op, g->a, g->b, g->c,
                                               g->c, pref, TR_GEMM_CANDIDATES,
                                               results, &found),
                g->d.name, __FILE__, __LINE__);
  CK_BLAS(cublasLtMatmulPreferenceDestroy(pref));
  for (int i = 0; i < found; i++) {
    if (trial(g, b, &results[i].algo, i)) {
      g->algo = results[i].algo;
      g->candidate = i;
      g->workspace = results[i].workspaceSize;
      CK_BLAS(cublasLtMatmulAlgoConfigGetAttribute(
          &g->algo, CUBLASLT_ALGO_CONFIG_ID, &g->algo_id, sizeof g->algo_id,
          NULL));
      return;
    }
  }
  tr_die(__FILE__, __LINE__, g->d.name, "CUBLAS_STATUS_NOT_SUPPORTED",
         "no heuristic candidate runs this GEMM (CUBLASLT_LOG_LEVEL=1 "
         "says why)");
}

void tr_gemm_plan(tr_gemm *g, const tr_blas *b, const tr_gemm_desc *d,
                  const float *a_scale, const float *b_scale) {
  memset(g, 0, sizeof *g);
  g->d = *d;
  create_descriptors(g, a_scale, b_scale);
  choose_algorithm(g, b);
}

void tr_gemm_run(const tr_gemm *g, const tr_blas *b, const void *A,
                 const void *B, void *D, cudaStream_t stream) {
  tr_check_blas(matmul(g, b, &g->algo, A, B, D, stream), g->d.name, __FILE__,
                __LINE__);
}

void tr_gemm_destroy(tr_gemm *g) {
  CK_BLAS(cublasLtMatrixLayoutDestroy(g->c));
  CK_BLAS(cublasLtMatrixLayoutDestroy(g->b));
  CK_BLAS(cublasLtMatrixLayoutDestroy(g->a));
  CK_BLAS(cublasLtMatmulDescDestroy(g->op));
}
