/* Session lifecycle and the entry protocol (enter, fail, leave, guards). */
#define _XOPEN_SOURCE 700
#include "session.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "args.h"
#include "cuda_check.h"

#define DEFAULT_PARAM_CAPACITY 4096u
#define MAX_PARAM_CAPACITY (1u << 20)
#define DEFAULT_STATIC_CAPACITY 256u
#define MAX_STATIC_CAPACITY (1u << 16)
#define KNOWN_FLAGS SG_SESSION_VALIDATION_ONLY

static _Thread_local const char *current_entry = "";

const char *sg_current_entry(void) { return current_entry; }

static void name_entry(sg_call *c, sg_session *s, const char *entry) {
  c->session = s;
  c->prev_entry = current_entry;
  c->locked = false;
  c->device = (sg_device_scope){0, false};
  current_entry = entry;
}

/* Makes the session's device current for this thread, remembering the
 * caller's in `scope` for sg_device_pop; nothing in a validation-only
 * session, which has no device. */
static sg_status use_session_device(sg_session *s, sg_device_scope *scope) {
  return s->validation_only ? SG_OK : sg_device_push(s, s->device, scope);
}

sg_status sg_enter(sg_call *c, sg_session *s, const char *entry) {
  name_entry(c, s, entry);
  if (s == NULL) {
    return sg_fail(NULL, SG_ERR_INVALID_ARGUMENT, "session is NULL");
  }
  pthread_mutex_lock(&s->lock);
  c->locked = true;
  return use_session_device(s, &c->device);
}

sg_status sg_leave(sg_call *c, sg_status st) {
  sg_device_pop(&c->device);
  if (c->locked) {
    pthread_mutex_unlock(&c->session->lock);
  }
  current_entry = c->prev_entry;
  return st;
}

sg_status sg_fail(sg_session *s, sg_status code, const char *fmt, ...) {
  char message[SG_ERROR_CAPACITY];
  int n = snprintf(message, sizeof message, "%s: ", current_entry);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message + n, sizeof message - (size_t)n, fmt, ap);
  va_end(ap);
  sg_error_set(s != NULL ? &s->error : NULL, message);
  if (s != NULL) {
    sg_log(&s->log, code == SG_RUN_EAGERLY ? SG_LOG_INFO : SG_LOG_ERROR, "%s",
           message);
  }
  return code;
}

sg_status sg_require_device(sg_session *s) {
  if (!s->validation_only) {
    return SG_OK;
  }
  return sg_fail(s, SG_ERR_NO_DEVICE,
                 "needs a GPU, and the session was created with "
                 "SG_SESSION_VALIDATION_ONLY");
}

sg_status sg_require_not_capturing(sg_session *s) {
  if (s->state != SG_STATE_CAPTURING) {
    return SG_OK;
  }
  return sg_fail(s, SG_ERR_INVALID_STATE,
                 "not allowed while key %llu is being captured; call "
                 "capture_end first",
                 (unsigned long long)s->graphs.capturing_key);
}

sg_status sg_require_open_registry(sg_session *s) {
  sg_status st = sg_require_not_capturing(s);
  if (st == SG_OK && s->frozen) {
    st = sg_fail(s, SG_ERR_INVALID_STATE,
                 "registration is closed once the session's first capture "
                 "has begun (captured graphs bake the tables in)");
  }
  return st;
}

sg_status sg_require_sync_allowed(sg_session *s, sg_stream stream) {
  sg_status st = sg_require_not_capturing(s);
  if (st == SG_OK) {
    st = sg_check_stream_arg(s, stream, "stream");
  }
  if (st == SG_OK) {
    st = sg_require_device(s);
  }
  return st;
}

sg_status sg_last_error(sg_session *session, char *buf, size_t buf_size,
                        size_t *needed_out) {
  if (buf == NULL && buf_size > 0) {
    sg_call c;
    name_entry(&c, session, "last_error");
    if (session != NULL) { /* sg_fail logs: serialise it like any entry's */
      pthread_mutex_lock(&session->lock);
      c.locked = true;
    }
    return sg_leave(&c, sg_fail(session, SG_ERR_INVALID_ARGUMENT,
                                "buf is NULL but buf_size is %zu", buf_size));
  }
  return sg_error_copy(session != NULL ? &session->error : NULL, buf,
                       buf_size, needed_out);
}

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

/* Everything that can be wrong with a config, found before anything is
 * allocated; fills in defaults. */
static sg_status check_config(sg_session_config *cfg) {
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
  if (cfg->nccl_comm != NULL || cfg->nccl != NULL) {
    return sg_fail(NULL, SG_ERR_NOT_SUPPORTED,
                   "config->nccl_comm/nccl: multi-GPU sessions are not "
                   "supported by ABI 1.0 yet; leave them NULL");
  }
  sg_status st = check_capacity(&cfg->param_capacity, DEFAULT_PARAM_CAPACITY,
                                MAX_PARAM_CAPACITY, "param_capacity");
  if (st == SG_OK) {
    st = check_capacity(&cfg->static_capacity, DEFAULT_STATIC_CAPACITY,
                        MAX_STATIC_CAPACITY, "static_capacity");
  }
  return st;
}

/* Before touching the device: is there one with this ordinal? */
static sg_status find_device(sg_session *s) {
  int count = 0;
  sg_status st = SG_CUDA(s, cudaGetDeviceCount(&count));
  if (st == SG_OK && s->device >= count) {
    st = sg_fail(s, SG_ERR_INVALID_ARGUMENT,
                 "config->device is %d but the machine has %d device(s)",
                 s->device, count);
  }
  return st;
}

static sg_status open_device(sg_session *s) {
  sg_status st = SG_CUDA(s, cudaDeviceGetAttribute(
                                &s->sm_count, cudaDevAttrMultiProcessorCount,
                                s->device));
  if (st == SG_OK) {
    st = SG_CUDA(s, cudaStreamCreateWithFlags(&s->aux_stream,
                                              cudaStreamNonBlocking));
  }
  return st;
}

/* Allocates what the session needs; on failure leaves a partial session
 * that destroy_parts releases. The device is current. */
static sg_status open_parts(sg_session *s) {
  sg_status st = s->validation_only ? SG_OK : open_device(s);
  if (st == SG_OK) {
    st = sg_registry_open(&s->fp8, s);
  }
  if (st == SG_OK) {
    st = sg_statics_open(&s->statics, s);
  }
  if (st == SG_OK) {
    st = sg_rng_open(&s->rng, s);
  }
  if (st == SG_OK) {
    st = sg_graphs_open(&s->graphs, s);
  }
  return st;
}

/* Releases in dependency order: graph execs before anything they use. */
static void close_parts(sg_session *s) {
  sg_graphs_close(&s->graphs, s);
  sg_rng_close(&s->rng, s);
  sg_statics_close(&s->statics);
  sg_registry_close(&s->fp8, s);
  if (s->aux_stream != NULL) {
    (void)SG_CUDA(s, cudaStreamDestroy(s->aux_stream));
  }
}

static void free_session(sg_session *s) {
  sg_error_fini(&s->error);
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
  sg_error_init(&s->error);
  sg_logger_init(&s->log, cfg->log_level, cfg->log_fn, cfg->log_user);
  s->config = *cfg;
  s->validation_only = (cfg->flags & SG_SESSION_VALIDATION_ONLY) != 0;
  s->device = cfg->device;
  s->state = SG_STATE_OPEN;
  return s;
}

static sg_status build_session(const sg_session_config *cfg,
                               sg_session **out) {
  sg_session *s = alloc_session(cfg);
  if (s == NULL) {
    return sg_fail(NULL, SG_ERR_OUT_OF_MEMORY, "cannot allocate a session");
  }
  sg_device_scope scope = {0, false};
  sg_status st = s->validation_only ? SG_OK : find_device(s);
  if (st == SG_OK) {
    st = use_session_device(s, &scope);
  }
  if (st == SG_OK) {
    st = open_parts(s);
  }
  if (st != SG_OK) {
    sg_error_set(NULL, s->error.message); /* the host has no session */
    close_parts(s);
  }
  sg_device_pop(&scope);
  if (st != SG_OK) {
    free_session(s);
    return st;
  }
  sg_log(&s->log, SG_LOG_INFO, "session created on device %d%s", s->device,
         s->validation_only ? " (validation only)" : "");
  *out = s;
  return SG_OK;
}

sg_status sg_session_create(const sg_session_config *config,
                            sg_session **session_out) {
  sg_call c;
  name_entry(&c, NULL, "session_create");
  if (session_out == NULL) {
    return sg_leave(&c, sg_fail(NULL, SG_ERR_INVALID_ARGUMENT,
                                "session_out is NULL"));
  }
  *session_out = NULL;
  sg_session_config cfg;
  sg_status st = SG_READ(NULL, sg_session_config, config, &cfg, "config");
  if (st == SG_OK) {
    st = check_config(&cfg);
  }
  if (st == SG_OK) {
    st = build_session(&cfg, session_out);
  }
  return sg_leave(&c, st);
}

void sg_session_destroy(sg_session *session) {
  if (session == NULL) {
    return;
  }
  sg_call c;
  name_entry(&c, session, "session_destroy");
  (void)use_session_device(session, &c.device);
  close_parts(session);
  sg_leave(&c, SG_OK); /* restores the caller's device */
  free_session(session);
}
