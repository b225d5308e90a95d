/* Building and releasing a session: the config's checks and defaults, the
 * device, and each part in dependency order. */
#include "session.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "conditional.h"
#include "cuda_check.h"
#include "env.h"
#include "refresh.h"
#include "rng_advance.h"
#include "static_copy.h"
#include "transpose_check.h"

#define DEFAULT_PARAM_CAPACITY 4096u
#define MAX_PARAM_CAPACITY (1u << 20)
#define DEFAULT_STATIC_CAPACITY 256u
#define MAX_STATIC_CAPACITY (1u << 16)
#define KNOWN_FLAGS (SG_SESSION_VALIDATION_ONLY | SG_SESSION_CHECK_TRANSPOSES)

static sg_status check_capacity(uint32_t *value, uint32_t def, uint32_t max,
                                const char *name) {
  if (*value == 0) {
    *value = def;
  }
  if (*value > max) {
    return sg_fail(NULL, SG_ERR_INVALID_ARGUMENT,
                   "config->%s is %u, more than the maximum %u", name, *value,
                   max);
  }
  return SG_OK;
}

/* ABI 1.1's fields that a host's struct_size covers only in part are not
 * read: their bytes would make a different number. */
static void drop_cut_fields(sg_session_config *cfg) {
  if (cfg->struct_size <
      SG_STRUCT_SIZE_THROUGH(sg_session_config, nccl_timeout_ms)) {
    cfg->nccl_timeout_ms = 0;
  }
  if (cfg->struct_size < SG_V1_1_SIZE_sg_session_config) {
    cfg->nccl_on_timeout = 0;
  }
}

/* Everything that can be wrong with a config, found before anything is
 * allocated; fills in defaults. */
static sg_status check_config(sg_session_config *cfg) {
  drop_cut_fields(cfg);
  if (cfg->device < 0) {
    return sg_fail(NULL, SG_ERR_INVALID_ARGUMENT, "config->device is %d",
                   (int)cfg->device);
  }
  if (cfg->flags & ~(uint32_t)KNOWN_FLAGS) {
    return sg_fail(NULL, SG_ERR_INVALID_ARGUMENT,
                   "config->flags has unknown bits 0x%x",
                   (unsigned)(cfg->flags & ~(uint32_t)KNOWN_FLAGS));
  }
  if (cfg->capture_mode > SG_CAPTURE_RELAXED) {
    return sg_fail(NULL, SG_ERR_INVALID_ARGUMENT,
                   "config->capture_mode is %u (known: 0..2)",
                   (unsigned)cfg->capture_mode);
  }
  if (cfg->log_level < SG_LOG_OFF) {
    return sg_fail(NULL, SG_ERR_INVALID_ARGUMENT, "config->log_level is %d",
                   (int)cfg->log_level);
  }
  if (cfg->reserved0 != 0) {
    return sg_fail(NULL, SG_ERR_INVALID_ARGUMENT,
                   "config->reserved0 is %u, must be 0",
                   (unsigned)cfg->reserved0);
  }
  if (cfg->nccl_on_timeout > SG_NCCL_TIMEOUT_ABORT) {
    return sg_fail(NULL, SG_ERR_INVALID_ARGUMENT,
                   "config->nccl_on_timeout is %u (known: 0 "
                   "SG_NCCL_TIMEOUT_RETURN, 1 SG_NCCL_TIMEOUT_ABORT)",
                   (unsigned)cfg->nccl_on_timeout);
  }
  sg_status st = check_capacity(&cfg->param_capacity, DEFAULT_PARAM_CAPACITY,
                                MAX_PARAM_CAPACITY, "param_capacity");
  if (st == SG_OK) {
    st = check_capacity(&cfg->static_capacity, DEFAULT_STATIC_CAPACITY,
                        MAX_STATIC_CAPACITY, "static_capacity");
  }
  return st;
}

/* cudaGetDeviceCount failed: say whether there is no driver at all, or one
 * too old for the CUDA 13.0 runtime linked in (which reads the same). */
static sg_status no_usable_driver(sg_diag *d, cudaError_t err) {
  (void)cudaGetLastError();
  void *libcuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (libcuda == NULL) {
    return sg_fail(d, SG_ERR_CUDA,
                   "cudaGetDeviceCount failed: %s: no NVIDIA driver found "
                   "(libcuda.so.1 cannot be loaded); stepgraph needs an "
                   "NVIDIA GPU and driver >= 580",
                   cudaGetErrorName(err));
  }
  dlclose(libcuda);
  int version = 0;
  (void)cudaDriverGetVersion(&version);
  return sg_fail(d, SG_ERR_CUDA,
                 "cudaGetDeviceCount failed: %s: the NVIDIA driver supports "
                 "CUDA %d.%d; this plugin's CUDA 13.0 runtime needs driver "
                 ">= 580",
                 cudaGetErrorName(err), version / 1000, version % 1000 / 10);
}

/* Before touching the device: is there one with this ordinal? */
static sg_status find_device(sg_session *s) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err == cudaErrorInsufficientDriver) {
    return no_usable_driver(&s->diag, err);
  }
  sg_status st = SG_CUDA(&s->diag, err);
  if (st == SG_OK && s->device >= count) {
    st = sg_fail(&s->diag, SG_ERR_INVALID_ARGUMENT,
                 "config->device is %d but the machine has %d device(s)",
                 s->device, count);
  }
  return st;
}

/* The device's facts, the plugin's stream, and the plugin's kernel modules:
 * they may first launch inside a capture (ours or the host's), and with
 * lazy loading that is where they would load. The device is current. */
static sg_status open_device(sg_session *s) {
  sg_diag *d = &s->diag;
  sg_status st = SG_CUDA(d, cudaDeviceGetAttribute(
                                &s->sm_count, cudaDevAttrMultiProcessorCount,
                                s->device));
  if (st == SG_OK) {
    st = SG_CUDA(d, cudaStreamCreateWithFlags(&s->aux_stream,
                                              cudaStreamNonBlocking));
  }
  if (st == SG_OK) {
    st = SG_CUDA(d, sg_k_rng_load());
  }
  if (st == SG_OK) {
    st = SG_CUDA(d, sg_k_copy_load());
  }
  if (st == SG_OK) {
    st = SG_CUDA(d, sg_k_refresh_load(&s->refresh_device));
  }
  if (st == SG_OK) {
    st = SG_CUDA(d, sg_k_cond_load());
  }
  if (st == SG_OK) {
    st = SG_CUDA(d, sg_k_check_load());
  }
  return st;
}

/* Allocates what the session needs; on failure leaves a partial session
 * that close_parts releases. The device is current. */
static sg_status open_parts(sg_session *s) {
  const bool dev = !s->validation_only;
  sg_status st = dev ? open_device(s) : SG_OK;
  if (st == SG_OK) {
    st = sg_registry_open(&s->fp8, &s->diag, s->config.param_capacity, dev,
                          s->aux_stream);
  }
  if (st == SG_OK) {
    st = sg_statics_open(&s->statics, &s->diag, s->config.static_capacity);
  }
  if (st == SG_OK) {
    st = sg_rng_open(&s->rng, &s->diag, s->config.rng_seed, dev,
                     s->aux_stream);
  }
  if (st == SG_OK) {
    st = sg_graphs_open(&s->graphs, &s->diag, s->device,
                        s->config.graph_mem_budget);
  }
  if (st == SG_OK) {
    st = sg_conds_open(&s->conds, &s->diag, dev);
  }
  if (st == SG_OK) {
    const bool check = (s->config.flags & SG_SESSION_CHECK_TRANSPOSES) != 0;
    st = sg_detector_open(&s->detector, &s->diag, check, dev,
                          s->config.param_capacity, s->aux_stream);
  }
  if (st == SG_OK) {
    st = sg_comm_open(&s->comm, &s->diag, &s->config, s->device, dev,
                      s->config.param_capacity);
  }
  return st;
}

/* Releases in dependency order: graph execs before anything they use (the
 * communicator's buffers too: a graph may hold the amax reduction). */
static void close_parts(sg_session *s) {
  sg_graphs_close(&s->graphs);
  sg_comm_close(&s->comm);
  sg_detector_close(&s->detector);
  sg_conds_close(&s->conds);
  sg_rng_close(&s->rng);
  sg_statics_close(&s->statics);
  sg_registry_close(&s->fp8);
  if (s->aux_stream != NULL) {
    (void)SG_CUDA(&s->diag, cudaStreamDestroy(s->aux_stream));
  }
}

static void free_memory(sg_session *s) {
  free(s->dump_dir);
  sg_diag_fini(&s->diag);
  pthread_mutex_destroy(&s->lock);
  free(s);
}

static sg_session *alloc_session(const sg_session_config *cfg) {
  sg_session *s = calloc(1, sizeof *s);
  if (s == NULL) {
    return NULL;
  }
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&s->lock, &attr);
  pthread_mutexattr_destroy(&attr);
  sg_diag_init(&s->diag, cfg);
  s->config = *cfg;
  s->validation_only = (cfg->flags & SG_SESSION_VALIDATION_ONLY) != 0;
  s->device = cfg->device;
  s->state = SG_STATE_OPEN;
  return s;
}

/* STEPGRAPH_DISABLE, STEPGRAPH_DUMP_DIR and STEPGRAPH_CHECK_TRANSPOSES,
 * read once per session. */
static sg_status read_switches(sg_session *s) {
  static int warned, check_warned;
  if (sg_env_flag("STEPGRAPH_CHECK_TRANSPOSES", &s->diag.log, &check_warned)) {
    s->config.flags |= SG_SESSION_CHECK_TRANSPOSES;
  }
  const char *dir = getenv("STEPGRAPH_DUMP_DIR");
  if (dir != NULL && *dir != '\0' && (s->dump_dir = strdup(dir)) == NULL) {
    return sg_fail(&s->diag, SG_ERR_OUT_OF_MEMORY,
                   "cannot copy STEPGRAPH_DUMP_DIR");
  }
  s->graphs.disabled = sg_env_flag("STEPGRAPH_DISABLE", &s->diag.log, &warned);
  if (s->graphs.disabled) {
    sg_log(&s->diag.log, SG_LOG_INFO,
           "STEPGRAPH_DISABLE is set: graphs are off; every step runs "
           "eagerly");
  }
  return SG_OK;
}

static void log_created(const sg_session *s) {
  if (s->validation_only) {
    sg_log(&s->diag.log, SG_LOG_INFO,
           "validation-only session created (no device is touched)");
  } else {
    sg_log(&s->diag.log, SG_LOG_INFO, "session created on device %d",
           s->device);
  }
  if (s->detector.enabled) {
    sg_log(&s->diag.log, SG_LOG_INFO,
           "stale-transpose detector on: every step checks Wt against "
           "transpose(W) for every registered parameter");
  }
}

static sg_status build(sg_session *s) {
  sg_device_scope scope = {0, false};
  sg_status st = s->validation_only ? SG_OK : find_device(s);
  if (st == SG_OK && !s->validation_only) {
    st = sg_device_push(&s->diag, s->device, &scope);
  }
  if (st == SG_OK) {
    st = open_parts(s);
  }
  if (st != SG_OK) {
    sg_error_set(NULL, s->diag.error.message); /* the host has no session */
    close_parts(s);
  }
  sg_device_pop(&scope);
  return st;
}

sg_status sg_session_new(const sg_session_config *config, sg_session **out) {
  sg_session_config cfg = *config;
  sg_status st = check_config(&cfg);
  if (st != SG_OK) {
    return st;
  }
  sg_session *s = alloc_session(&cfg);
  if (s == NULL) {
    return sg_fail(NULL, SG_ERR_OUT_OF_MEMORY, "cannot allocate a session");
  }
  st = read_switches(s);
  if (st == SG_OK) {
    st = build(s);
  }
  if (st != SG_OK) {
    free_memory(s);
    return st;
  }
  log_created(s);
  *out = s;
  return SG_OK;
}

void sg_session_free(sg_session *s) {
  sg_device_scope scope = {0, false};
  if (!s->validation_only) {
    (void)sg_device_push(&s->diag, s->device, &scope);
  }
  close_parts(s);
  sg_device_pop(&scope);
  free_memory(s);
}
