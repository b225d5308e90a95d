/* Detail messages: what exactly went wrong in the last failed entry.
 *
 * A session keeps its own message behind its own small lock, so last_error
 * can copy it out while another thread is inside a long entry. Calls without
 * a session (get_api, session_create, an entry given a NULL session) keep the
 * message per thread instead. */
#ifndef SG_ERROR_H
#define SG_ERROR_H

#include <pthread.h>
#include <stddef.h>

#include "stepgraph.h"

#define SG_ERROR_CAPACITY 1024

typedef struct sg_error {
  pthread_mutex_t lock;
  char message[SG_ERROR_CAPACITY];
} sg_error;

void sg_error_init(sg_error *e);
void sg_error_fini(sg_error *e);

/* Replaces the message (NULL e: the calling thread's). */
void sg_error_set(sg_error *e, const char *message);

/* Copies the message out as last_error documents; returns SG_OK. */
sg_status sg_error_copy(sg_error *e, char *buf, size_t buf_size,
                        size_t *needed_out);

/* The calling thread's message, for get_api's args->error. */
const char *sg_error_thread_message(void);

#endif
