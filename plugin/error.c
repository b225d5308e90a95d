#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char thread_message[SG_ERROR_CAPACITY];
static _Thread_local const char *current_entry = "";

const char *sg_current_entry(void) { return current_entry; }

const char *sg_entry_swap(const char *entry) {
  const char *previous = current_entry;
  current_entry = entry;
  return previous;
}

void sg_diag_init(sg_diag *d, const sg_session_config *cfg) {
  pthread_mutex_init(&d->error.lock, NULL);
  d->error.message[0] = '\0';
  sg_logger_init(&d->log, cfg->log_level, cfg->log_fn, cfg->log_user);
}

void sg_diag_fini(sg_diag *d) { pthread_mutex_destroy(&d->error.lock); }

static void copy_truncated(char *dst, size_t cap, const char *src) {
  size_t n = strlen(src);
  if (n >= cap) {
    n = cap - 1;
  }
  memcpy(dst, src, n);
  dst[n] = '\0';
}

void sg_error_set(sg_diag *d, const char *message) {
  if (d == NULL) {
    copy_truncated(thread_message, sizeof thread_message, message);
    return;
  }
  pthread_mutex_lock(&d->error.lock);
  copy_truncated(d->error.message, sizeof d->error.message, message);
  pthread_mutex_unlock(&d->error.lock);
}

sg_status sg_fail(sg_diag *d, sg_status code, const char *fmt, ...) {
  char message[SG_ERROR_CAPACITY];
  int n = snprintf(message, sizeof message, "%s: ", current_entry);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message + n, sizeof message - (size_t)n, fmt, ap);
  va_end(ap);
  sg_error_set(d, message);
  if (d != NULL) {
    sg_log(&d->log, code == SG_RUN_EAGERLY ? SG_LOG_INFO : SG_LOG_ERROR, "%s",
           message);
  }
  return code;
}

sg_status sg_error_copy(sg_diag *d, char *buf, size_t buf_size,
                        size_t *needed_out) {
  const char *src = d != NULL ? d->error.message : thread_message;
  if (d != NULL) {
    pthread_mutex_lock(&d->error.lock);
  }
  if (needed_out != NULL) {
    *needed_out = strlen(src);
  }
  if (buf_size > 0) {
    copy_truncated(buf, buf_size, src);
  }
  if (d != NULL) {
    pthread_mutex_unlock(&d->error.lock);
  }
  return SG_OK;
}

const char *sg_error_thread_message(void) { return thread_message; }
