/* The smallest host: load libstepgraph.so.1, negotiate the ABI, create a
 * session, print what each step returned, destroy it.
 *
 *   minimal_host [path/to/libstepgraph.so.1]
 *
 * Without an argument it loads $STEPGRAPH_PLUGIN, else the plugin of the
 * build it came from (found relative to this executable, so a copied build
 * tree works), else libstepgraph.so.1 from the loader's search path (an
 * installed library).
 *
 * On a GPU it also captures a one-node step (a memset) under key 1, replays
 * it and checks what it wrote. Without a usable GPU the session cannot be
 * created: the program says so, shows that a validation-only session still
 * works, and exits 2. */
#define _POSIX_C_SOURCE 200112L /* readlink */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stepgraph.h"

#define EXIT_NO_GPU 2

/* The build's plugin: MH_PLUGIN_RELATIVE (from CMake) joined to this
 * executable's folder, if that file exists. */
static int build_plugin(char *out, size_t size) {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) {
    return 0;
  }
  exe[n] = '\0';
  char *slash = strrchr(exe, '/');
  if (slash == NULL) {
    return 0;
  }
  *slash = '\0';
  int len = snprintf(out, size, "%s/%s", exe, MH_PLUGIN_RELATIVE);
  return len > 0 && (size_t)len < size && access(out, F_OK) == 0;
}

static const char *plugin_path(int argc, char **argv, char *buf, size_t size) {
  const char *env = getenv("STEPGRAPH_PLUGIN");
  if (argc > 1) {
    return argv[1];
  }
  if (env != NULL && env[0] != '\0') {
    return env;
  }
  return build_plugin(buf, size) ? buf : "libstepgraph.so.1";
}

static const sg_api *load(const char *path) {
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "cannot load the plugin: %s\n", dlerror());
    return NULL;
  }
  sg_get_api_v1_fn get_api = (sg_get_api_v1_fn)dlsym(lib, SG_GET_API_SYMBOL);
  if (get_api == NULL) {
    fprintf(stderr, "%s is not a stepgraph plugin: %s\n", path, dlerror());
    return NULL;
  }
  sg_get_api_args args;
  memset(&args, 0, sizeof args);
  args.struct_size = sizeof args;
  args.host_abi_version = SG_ABI_VERSION;
  sg_status st = get_api(&args);
  printf("host ABI %u.%u, plugin ABI %u.%u, library %s: %s\n", SG_ABI_MAJOR,
         SG_ABI_MINOR, SG_ABI_VERSION_MAJOR(args.plugin_abi_version),
         SG_ABI_VERSION_MINOR(args.plugin_abi_version),
         args.library_version ? args.library_version : "?",
         st == SG_OK ? "negotiated" : args.error);
  return st == SG_OK ? args.api : NULL;
}

static sg_status create(const sg_api *api, uint32_t flags, sg_session **s) {
  sg_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.struct_size = sizeof cfg;
  cfg.flags = flags;
  cfg.rng_seed = 1234;
  sg_status st = api->session_create(&cfg, s);
  char detail[512] = "";
  if (st != SG_OK) {
    api->last_error(NULL, detail, sizeof detail, NULL);
  }
  printf("session_create(%s): %s%s%s\n",
         flags ? "validation-only" : "device 0", api->status_string(st),
         st != SG_OK ? " — " : "", detail);
  return st;
}

static void report(const sg_api *api, sg_session *s, const char *what,
                   sg_status st) {
  char detail[512] = "";
  if (st != SG_OK) {
    api->last_error(s, detail, sizeof detail, NULL);
  }
  printf("%s: %s%s%s\n", what, api->status_string(st),
         st != SG_OK ? " — " : "", detail);
}

/* capture -> replay -> check, printing each step's status. */
static int capture_and_replay(const sg_api *api, sg_session *s) {
  cudaStream_t stream;
  unsigned char *buf = NULL, host[64];
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess ||
      cudaMalloc((void **)&buf, sizeof host) != cudaSuccess) {
    printf("cannot create a stream and a buffer\n");
    return 1;
  }
  sg_capture_args cap = {sizeof cap, 1, (sg_stream)stream, SG_CAPTURE_THREAD_LOCAL, 0};
  sg_replay_args rep = {sizeof rep, 1, (sg_stream)stream, NULL, 0, 0};
  sg_status st = api->pre_capture(s, (sg_stream)stream);
  report(api, s, "pre_capture", st);
  if (st == SG_OK && (st = api->capture_begin(s, &cap)) == SG_OK) {
    if (cudaMemsetAsync(buf, 0x5a, sizeof host, stream) != cudaSuccess) {
      printf("cudaMemsetAsync failed during capture\n"); /* capture_end says why */
    }
    st = api->capture_end(s, &cap);
  }
  report(api, s, "capture key 1", st);
  if (st == SG_OK) {
    st = api->replay(s, &rep);
    report(api, s, "replay key 1", st);
  }
  int ok = st == SG_OK && cudaMemcpy(host, buf, sizeof host,
                                     cudaMemcpyDeviceToHost) == cudaSuccess;
  for (size_t i = 0; ok && i < sizeof host; i++) {
    ok = host[i] == 0x5a;
  }
  printf("replayed step wrote its bytes: %s\n", ok ? "yes" : "NO");
  cudaFree(buf);
  cudaStreamDestroy(stream);
  return ok ? 0 : 1;
}

int main(int argc, char **argv) {
  char buf[4096];
  const sg_api *api = load(plugin_path(argc, argv, buf, sizeof buf));
  if (api == NULL) {
    return 1;
  }
  sg_session *s = NULL;
  sg_status st = create(api, 0, &s);
  int rc = 0;
  if (st != SG_OK) {
    printf("no usable GPU: stepgraph needs an NVIDIA GPU with driver >= 580 "
           "to run a step; checking the configuration only\n");
    st = create(api, SG_SESSION_VALIDATION_ONLY, &s);
    rc = EXIT_NO_GPU;
  }
  if (st != SG_OK) {
    return 1;
  }
  if (rc == 0) {
    rc = capture_and_replay(api, s);
  }
  sg_stats stats;
  memset(&stats, 0, sizeof stats);
  stats.struct_size = sizeof stats;
  report(api, s, "get_stats", api->get_stats(s, &stats));
  printf("stats: %llu capture(s), %llu replay(s), %llu graph node(s)\n",
         (unsigned long long)stats.captures, (unsigned long long)stats.replays,
         (unsigned long long)stats.graph_nodes);
  api->session_destroy(s);
  printf("session destroyed\n");
  return rc;
}
