/* Without a usable GPU, creating a normal session fails cleanly: the
 * documented status, a detail naming the CUDA error, no session, and (run
 * under valgrind by CTest) nothing leaked. With a GPU it skips (exit 77):
 * the GPU suites cover that machine. Plain C: Check's fork would hide leaks
 * from valgrind, and there is one promise here. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "sg_load.h"

#define SKIP 77

/* What the detail must say: with no driver at all, that none was found
 * (not "driver version is insufficient", which suggests an update). */
static const char *expected_reason(void) {
  void *libcuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (libcuda == NULL) {
    return "no NVIDIA driver found";
  }
  dlclose(libcuda);
  return "cudaError";
}

int main(void) {
  sg_loaded l = sg_test_load();
  const char *reason = expected_reason();
  sg_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.struct_size = sizeof cfg;
  for (int attempt = 0; attempt < 3; attempt++) {
    sg_session *s = NULL;
    sg_status st = l.api->session_create(&cfg, &s);
    if (st == SG_OK) {
      l.api->session_destroy(s);
      printf("no_gpu: SKIP: a GPU is present; this case needs a machine "
             "without one\n");
      return SKIP;
    }
    char detail[512];
    l.api->last_error(NULL, detail, sizeof detail, NULL);
    if (st != SG_ERR_CUDA || s != NULL || strstr(detail, "session_create:") == NULL ||
        strstr(detail, "cudaError") == NULL || strstr(detail, reason) == NULL) {
      fprintf(stderr,
              "no_gpu: FAIL: status %d (%s), session %p, detail: %s (expected "
              "it to say \"%s\")\n",
              (int)st, l.api->status_string(st), (void *)s, detail, reason);
      return 1;
    }
    printf("no_gpu: attempt %d: %s — %s\n", attempt, l.api->status_string(st),
           detail);
  }
  return 0;
}
