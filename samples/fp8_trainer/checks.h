/* The one place every return code of the trainer goes through: CUDA runtime
 * (SG_CHECK_CUDA, from the small header the samples, benchmarks and tests
 * share), cuBLASLt and the plugin's entries. A sample program has nothing
 * sensible to do after a failed call, so each check reports the call, where
 * it was made and the library's own name and text for the code, and exits. */
#ifndef TR_CHECKS_H
#define TR_CHECKS_H

#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stddef.h>

#include "sg_cuda_check.h"
#include "stepgraph.h"

/* Exit statuses, documented in the usage text. */
enum {
  TR_EXIT_FAILURE = 1, /* a call failed (the message says which) */
  TR_EXIT_NO_GPU = 2,  /* no usable GPU (as minimal_host) */
  TR_EXIT_LOSS = 3,    /* trained, but the loss check failed */
  TR_EXIT_USAGE = 64   /* bad command line (sysexits' EX_USAGE) */
};

/* Reports "<file>:<line>: <call> failed: <name> (<text>)" and exits with
 * TR_EXIT_FAILURE. */
_Noreturn void tr_die(const char *file, int line, const char *call,
                      const char *name, const char *text);

void tr_check_blas(cublasStatus_t st, const char *call, const char *file,
                   int line);
/* The plugin's status string and its session detail message. */
void tr_check_sg(const sg_api *api, sg_session *s, sg_status st,
                 const char *call, const char *file, int line);

/* calloc(n, size), or "<file>:<line>: calloc failed: ENOMEM (<what>)" and
 * exit: host buffers the trainer cannot run without. */
void *tr_calloc(size_t n, size_t size, const char *what, const char *file,
                int line);

/* Whether GPU `device` exists and has FP8 tensor cores (printing it), or
 * why not (stderr). */
bool tr_gpu_usable(int device);

#define CK_BLAS(call) tr_check_blas((call), #call, __FILE__, __LINE__)
#define CK_SG(api, s, call) \
  tr_check_sg((api), (s), (call), #call, __FILE__, __LINE__)
#define TR_CALLOC(n, size, what) tr_calloc((n), (size), (what), __FILE__, __LINE__)

#endif
