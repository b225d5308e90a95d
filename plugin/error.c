#include "error.h"

#include <string.h>

static _Thread_local char thread_message[SG_ERROR_CAPACITY];

void sg_error_init(sg_error *e) {
  pthread_mutex_init(&e->lock, NULL);
  e->message[0] = '\0';
}

void sg_error_fini(sg_error *e) { pthread_mutex_destroy(&e->lock); }

static void copy_truncated(char *dst, size_t cap, const char *src) {
  size_t n = strlen(src);
  if (n >= cap) {
    n = cap - 1;
  }
  memcpy(dst, src, n);
  dst[n] = '\0';
}

void sg_error_set(sg_error *e, const char *message) {
  if (e == NULL) {
    copy_truncated(thread_message, sizeof thread_message, message);
    return;
  }
  pthread_mutex_lock(&e->lock);
  copy_truncated(e->message, sizeof e->message, message);
  pthread_mutex_unlock(&e->lock);
}

sg_status sg_error_copy(sg_error *e, char *buf, size_t buf_size,
                        size_t *needed_out) {
  const char *src = e != NULL ? e->message : thread_message;
  if (e != NULL) {
    pthread_mutex_lock(&e->lock);
  }
  if (needed_out != NULL) {
    *needed_out = strlen(src);
  }
  if (buf_size > 0) {
    copy_truncated(buf, buf_size, src);
  }
  if (e != NULL) {
    pthread_mutex_unlock(&e->lock);
  }
  return SG_OK;
}

const char *sg_error_thread_message(void) { return thread_message; }
