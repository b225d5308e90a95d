#define _GNU_SOURCE /* readlink */
#include "plugin_host.h"

#include <dlfcn.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks.h"

/* The build's plugin, relative to this executable's folder (CMake passes
 * TR_PLUGIN_RELATIVE): found wherever the build tree is copied to. */
static void default_path(char *out, size_t size) {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    snprintf(out, size, "%s/%s", dirname(exe), TR_PLUGIN_RELATIVE);
    if (access(out, F_OK) == 0) {
      return;
    }
  }
  snprintf(out, size, "libstepgraph.so.1"); /* the loader's search path */
}

static void resolve(tr_plugin *p, const char *explicit_path) {
  const char *env = getenv("STEPGRAPH_PLUGIN");
  const char *chosen = explicit_path != NULL ? explicit_path
                       : env != NULL && env[0] != '\0' ? env
                                                       : NULL;
  if (chosen != NULL) {
    snprintf(p->path, sizeof p->path, "%s", chosen);
  } else {
    default_path(p->path, sizeof p->path);
  }
}

static bool negotiate(tr_plugin *p, sg_get_api_v1_fn get_api) {
  sg_get_api_args args;
  memset(&args, 0, sizeof args);
  args.struct_size = sizeof args;
  args.host_abi_version = SG_ABI_VERSION;
  if (get_api(&args) != SG_OK) {
    fprintf(stderr, "fp8_trainer: %s refused ABI %u.%u: %s\n", p->path,
            SG_ABI_MAJOR, SG_ABI_MINOR, args.error ? args.error : "?");
    return false;
  }
  /* The learning rate reaches the step as a host static source (1.1). */
  if (SG_ABI_VERSION_MINOR(args.plugin_abi_version) < 1) {
    fprintf(stderr, "fp8_trainer: %s implements ABI %u.%u; the trainer "
            "needs 1.1 (host static sources)\n", p->path,
            SG_ABI_VERSION_MAJOR(args.plugin_abi_version),
            SG_ABI_VERSION_MINOR(args.plugin_abi_version));
    return false;
  }
  p->api = args.api;
  return true;
}

bool tr_plugin_load(tr_plugin *p, const char *explicit_path) {
  memset(p, 0, sizeof *p);
  resolve(p, explicit_path);
  p->lib = dlopen(p->path, RTLD_NOW | RTLD_LOCAL);
  if (p->lib == NULL) {
    fprintf(stderr,
            "fp8_trainer: cannot load the stepgraph plugin '%s': %s\n"
            "  pass --plugin PATH/libstepgraph.so.1 or set STEPGRAPH_PLUGIN\n",
            p->path, dlerror());
    return false;
  }
  sg_get_api_v1_fn get_api = (sg_get_api_v1_fn)dlsym(p->lib, SG_GET_API_SYMBOL);
  if (get_api == NULL) {
    fprintf(stderr, "fp8_trainer: '%s' is not a stepgraph plugin (no %s)\n",
            p->path, SG_GET_API_SYMBOL);
    return false;
  }
  return negotiate(p, get_api);
}

/* The agreement after a capture waits at most this long for the other
 * ranks (the config's default is 10 minutes). */
#define TR_AGREEMENT_TIMEOUT_MS 120000u

sg_session *tr_session_create(const tr_plugin *p, uint64_t seed,
                              uint32_t warmup, uint32_t flags,
                              const tr_dist *dist) {
  sg_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.struct_size = sizeof cfg;
  cfg.device = 0;
  cfg.flags = flags;
  cfg.warmup_steps = warmup;
  cfg.rng_seed = seed;
  cfg.log_level = SG_LOG_WARN;
  if (dist != NULL) {
    cfg.device = dist->device;
    cfg.rng_seed = seed + dist->rank * 0x9E3779B97F4A7C15ull;
    cfg.nccl_comm = dist->comm;
    cfg.nccl = &dist->nccl->plugin;
    cfg.nccl_timeout_ms = TR_AGREEMENT_TIMEOUT_MS;
  }
  sg_session *s = NULL;
  CK_SG(p->api, NULL, p->api->session_create(&cfg, &s));
  return s;
}
