/* Detail messages and the one error setter (a leaf: it knows no session).
 *
 * Every failing path in the plugin ends in sg_fail, which records
 * "<entry>: <message>" where the host can read it with last_error and logs
 * it. A session owns one sg_diag (its message and its logger); the message
 * sits behind its own small lock, so last_error can copy it out while another
 * thread is inside a long entry. Calls without a session (get_api,
 * session_create, an entry given a NULL session) pass a NULL sg_diag: their
 * message is kept per thread instead. */
#ifndef SG_ERROR_H
#define SG_ERROR_H

#include <pthread.h>
#include <stddef.h>

#include "log.h"
#include "stepgraph.h"

#define SG_ERROR_CAPACITY 1024

typedef struct sg_error {
  pthread_mutex_t lock;
  char message[SG_ERROR_CAPACITY];
} sg_error;

/* What a part of the plugin needs to report a failure: where the message
 * goes and where it is logged. */
typedef struct sg_diag {
  sg_error error;
  sg_logger log;
} sg_diag;

void sg_diag_init(sg_diag *d, const sg_session_config *cfg);
void sg_diag_fini(sg_diag *d);

/* Records "<entry>: <message>" as the detail (d's, or the calling thread's
 * when d is NULL), logs it through d's logger (RUN_EAGERLY at info, errors
 * at error level), and returns code. */
sg_status sg_fail(sg_diag *d, sg_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Replaces the message without logging (NULL d: the calling thread's). */
void sg_error_set(sg_diag *d, const char *message);

/* Copies the message out as last_error documents; returns SG_OK. */
sg_status sg_error_copy(sg_diag *d, char *buf, size_t buf_size,
                        size_t *needed_out);

/* The calling thread's message, for get_api's args->error. */
const char *sg_error_thread_message(void);

/* The name of the entry running on this thread ("" outside any), which
 * prefixes every message. sg_entry_swap names a new one and returns the
 * previous name, for restoring when the entry leaves (entries nest: the
 * step callback calls entries). */
const char *sg_current_entry(void);
const char *sg_entry_swap(const char *entry);

#endif
