/* Loads the plugin the way a host framework does: dlopen the path in
 * STEPGRAPH_PLUGIN (CTest sets it to the built library), dlsym the one entry
 * point, negotiate ABI 1.x. Header-only for C and CUDA test programs. */
#ifndef SG_LOAD_H
#define SG_LOAD_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stepgraph.h"

typedef struct sg_loaded {
  void *handle;
  sg_get_api_v1_fn get_api;
  const sg_api *api;
} sg_loaded;

static inline const char *sg_test_plugin_path(void) {
  const char *p = getenv("STEPGRAPH_PLUGIN");
  return p != NULL ? p : "libstepgraph.so.1";
}

/* Exits the test (status 1) with the reason when the plugin cannot be
 * loaded or negotiated: every later assertion would be meaningless. */
static inline sg_loaded sg_test_load(void) {
  sg_loaded l = {NULL, NULL, NULL}; /* C and C++ */
  l.handle = dlopen(sg_test_plugin_path(), RTLD_NOW | RTLD_LOCAL);
  if (l.handle == NULL) {
    fprintf(stderr, "dlopen(%s): %s\n", sg_test_plugin_path(), dlerror());
    exit(1);
  }
  l.get_api = (sg_get_api_v1_fn)dlsym(l.handle, SG_GET_API_SYMBOL);
  if (l.get_api == NULL) {
    fprintf(stderr, "dlsym(%s): %s\n", SG_GET_API_SYMBOL, dlerror());
    exit(1);
  }
  sg_get_api_args args = {sizeof args, SG_ABI_VERSION, 0, NULL, NULL, NULL};
  sg_status st = l.get_api(&args);
  if (st != SG_OK) {
    fprintf(stderr, "sg_get_api_v1: %d: %s\n", (int)st,
            args.error ? args.error : "");
    exit(1);
  }
  l.api = args.api;
  return l;
}

/* The session's detail message, in a static buffer (tests are
 * single-threaded where they use it). */
static inline const char *sg_test_detail(const sg_api *api, sg_session *s) {
  static char buf[1024];
  api->last_error(s, buf, sizeof buf, NULL);
  return buf;
}

#endif /* SG_LOAD_H */
