/* An out-of-tree host built only against an installed stepgraph (header,
 * CMake package or pkg-config file), as a framework would be. It gets the
 * function table — by dlopen of argv[1], or, built with CONSUMER_LINKED, from
 * the library it was linked with — and runs a validation-only session:
 * create, register one FP8 parameter, pre_capture, destroy. That needs no
 * GPU, so the install test runs it everywhere.
 *
 *   consumer path/to/libstepgraph.so.1     (dlopen build)
 *   consumer                               (CONSUMER_LINKED build)
 *
 * Prints "consumer: ok, library <version>" and exits 0, or names the step
 * that failed and exits 1. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "stepgraph.h"

#ifdef CONSUMER_LINKED
static sg_get_api_v1_fn entry_point(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return sg_get_api_v1;
}
#else
#include <dlfcn.h>

static sg_get_api_v1_fn entry_point(int argc, char **argv) {
  void *lib = argc > 1 ? dlopen(argv[1], RTLD_NOW | RTLD_LOCAL) : NULL;
  if (lib == NULL) {
    fprintf(stderr, "consumer: cannot load %s: %s\n",
            argc > 1 ? argv[1] : "(no path given)", argc > 1 ? dlerror() : "");
    return NULL;
  }
  return (sg_get_api_v1_fn)dlsym(lib, SG_GET_API_SYMBOL);
}
#endif

static int failed(const sg_api *api, sg_session *s, const char *step,
                  sg_status st) {
  char detail[512] = "";
  api->last_error(s, detail, sizeof detail, NULL);
  fprintf(stderr, "consumer: %s: %s: %s\n", step, api->status_string(st),
          detail);
  return 1;
}

/* Validation-only sessions never touch these: any distinct addresses do. */
static uint8_t w[64 * 32], wt[32 * 64], stream_stand_in;

static int run(const sg_api *api) {
  sg_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.struct_size = sizeof cfg;
  cfg.flags = SG_SESSION_VALIDATION_ONLY;
  sg_session *s = NULL;
  sg_status st = api->session_create(&cfg, &s);
  if (st != SG_OK) {
    return failed(api, NULL, "session_create", st);
  }
  sg_fp8_param_desc p;
  memset(&p, 0, sizeof p);
  p.struct_size = sizeof p;
  p.format = SG_FP8_E4M3;
  p.rows = 64;
  p.cols = 32;
  p.data = w;
  p.ld_data = 32;
  p.transpose = wt;
  p.ld_transpose = 64;
  int rc = 0;
  if ((st = api->register_fp8_params(s, &p, 1, NULL)) != SG_OK) {
    rc = failed(api, s, "register_fp8_params", st);
  } else if ((st = api->pre_capture(s, (sg_stream)&stream_stand_in)) != SG_OK) {
    rc = failed(api, s, "pre_capture", st);
  }
  api->session_destroy(s);
  return rc;
}

int main(int argc, char **argv) {
  sg_get_api_v1_fn get_api = entry_point(argc, argv);
  if (get_api == NULL) {
    return 1;
  }
  sg_get_api_args args;
  memset(&args, 0, sizeof args);
  args.struct_size = sizeof args;
  args.host_abi_version = SG_ABI_VERSION;
  if (get_api(&args) != SG_OK) {
    fprintf(stderr, "consumer: sg_get_api_v1: %s\n", args.error);
    return 1;
  }
  if (run(args.api) != 0) {
    return 1;
  }
  printf("consumer: ok, library %s\n", args.library_version);
  return 0;
}
