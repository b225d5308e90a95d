/* Running fp8_trainer as a child process, the way a user runs it, and
 * collecting what it printed and how it ended. */
#ifndef TR_TEST_SPAWN_H
#define TR_TEST_SPAWN_H

#include <stdbool.h>
#include <stddef.h>

typedef struct trainer_result {
  bool exited;   /* normal exit (not killed by a signal) */
  int code;      /* exit status when exited, else the signal number */
  char *out;     /* everything it wrote to stdout (NUL-terminated) */
  char *err;     /* and to stderr */
} trainer_result;

/* The trainer binary: $STEPGRAPH_TRAINER (CTest sets it). */
const char *trainer_path(void);

/* Runs the trainer with args (NULL-terminated, without argv[0]) and the
 * current environment plus `extra_env` ("NAME=value", or NULL); output goes
 * through files in `dir`. Aborts the test when it cannot be started. */
trainer_result run_trainer(const char *dir, const char *const *args,
                           const char *extra_env);
void trainer_result_free(trainer_result *r);

/* Removes the output files run_trainer left in `dir`, then `dir` (which
 * must hold nothing else by then). */
void remove_trainer_dir(const char *dir);

/* The whole file, NUL-terminated; *bytes gets its size. NULL if unreadable. */
char *read_file(const char *path, size_t *bytes);

/* A raw dump of elements of `elem` bytes (not empty, a whole number of
 * them); *count gets how many. Aborts the test when it is not. */
void *read_dump(const char *path, size_t elem, size_t *count);

/* Index of the first of n elements of `elem` bytes where a and b differ
 * bit for bit; n when none does. */
size_t first_difference(const void *a, const void *b, size_t n, size_t elem);

#endif
