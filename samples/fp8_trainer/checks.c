#include "checks.h"

#include <stdio.h>
#include <stdlib.h>

_Noreturn void tr_die(const char *file, int line, const char *call,
                      const char *name, const char *text) {
  fprintf(stderr, "fp8_trainer: %s:%d: %s failed: %s (%s)\n", file, line, call,
          name, text);
  exit(TR_EXIT_FAILURE);
}

void *tr_calloc(size_t n, size_t size, const char *what, const char *file,
                int line) {
  void *p = calloc(n, size);
  if (p == NULL) {
    tr_die(file, line, "calloc", "ENOMEM", what);
  }
  return p;
}

void tr_check_blas(cublasStatus_t st, const char *call, const char *file,
                   int line) {
  if (st != CUBLAS_STATUS_SUCCESS) {
    tr_die(file, line, call, cublasLtGetStatusName(st),
           cublasLtGetStatusString(st));
  }
}

void tr_check_sg(const sg_api *api, sg_session *s, sg_status st,
                 const char *call, const char *file, int line) {
  if (st != SG_OK) {
    char detail[1024] = "";
    api->last_error(s, detail, sizeof detail, NULL);
    tr_die(file, line, call, api->status_string(st), detail);
  }
}

/* FP8 tensor-core GEMMs need compute capability 8.9 (Ada) or newer. */
bool tr_gpu_usable(int device) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    fprintf(stderr,
            "fp8_trainer: no usable GPU (%s): the trainer needs an NVIDIA GPU "
            "with FP8 tensor cores and driver >= 580\n",
            err != cudaSuccess ? cudaGetErrorName(err) : "0 devices");
    return false;
  }
  if (device >= count) {
    fprintf(stderr, "fp8_trainer: no GPU %d: the machine has %d\n", device,
            count);
    return false;
  }
  struct cudaDeviceProp prop;
  SG_CHECK_CUDA(cudaGetDeviceProperties(&prop, device));
  if (prop.major * 10 + prop.minor < 89) {
    fprintf(stderr,
            "fp8_trainer: GPU %d (%s, sm_%d%d) has no FP8 tensor cores; "
            "cuBLASLt's FP8 GEMMs need sm_89 or newer\n",
            device, prop.name, prop.major, prop.minor);
    return false;
  }
  printf("GPU %d: %s, %d SMs\n", device, prop.name, prop.multiProcessorCount);
  return true;
}
