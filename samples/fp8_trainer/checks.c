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
