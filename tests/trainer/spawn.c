#define _XOPEN_SOURCE 700 /* mkdtemp, posix_spawn */
#include "spawn.h"

#include <check.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define MAX_ARGS 32
#define MAX_ENV 4096

const char *trainer_path(void) {
  const char *p = getenv("STEPGRAPH_TRAINER");
  ck_assert_msg(p != NULL, "STEPGRAPH_TRAINER is not set (CTest sets it)");
  return p;
}

char *read_file(const char *path, size_t *bytes) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    return NULL;
  }
  fseek(f, 0, SEEK_END);
  const long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *data = malloc((size_t)size + 1);
  const size_t got = data != NULL ? fread(data, 1, (size_t)size, f) : 0;
  fclose(f);
  if (data == NULL || got != (size_t)size) {
    free(data);
    return NULL;
  }
  data[size] = '\0';
  if (bytes != NULL) {
    *bytes = (size_t)size;
  }
  return data;
}

void *read_dump(const char *path, size_t elem, size_t *count) {
  size_t bytes = 0;
  char *data = read_file(path, &bytes);
  ck_assert_msg(data != NULL, "cannot read %s", path);
  ck_assert_msg(bytes % elem == 0 && bytes > 0, "%s: %zu bytes", path, bytes);
  *count = bytes / elem;
  return data;
}

size_t first_difference(const void *a, const void *b, size_t n, size_t elem) {
  const char *x = a, *y = b;
  size_t i = 0;
  while (i < n && memcmp(x + i * elem, y + i * elem, elem) == 0) {
    i++;
  }
  return i;
}

/* The environment with `extra` first: getenv answers the first match, so
 * it overrides an inherited variable of the same name. */
static char **environment(const char *extra, char **storage) {
  size_t n = 0;
  if (extra != NULL) {
    storage[n++] = (char *)extra;
  }
  for (char **e = environ; *e != NULL && n + 1 < MAX_ENV; e++) {
    storage[n++] = *e;
  }
  storage[n] = NULL;
  return storage;
}

trainer_result run_trainer(const char *dir, const char *const *args,
                           const char *extra_env) {
  char out_path[4096], err_path[4096];
  snprintf(out_path, sizeof out_path, "%s/stdout.txt", dir);
  snprintf(err_path, sizeof err_path, "%s/stderr.txt", dir);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out_path,
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err_path,
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  char *argv[MAX_ARGS + 2];
  size_t n = 0;
  argv[n++] = (char *)trainer_path();
  for (size_t i = 0; args[i] != NULL; i++) {
    ck_assert_msg(n <= MAX_ARGS, "too many trainer arguments");
    argv[n++] = (char *)args[i];
  }
  argv[n] = NULL;
  static char *env[MAX_ENV];
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv,
                       environment(extra_env, env));
  posix_spawn_file_actions_destroy(&fa);
  ck_assert_msg(rc == 0, "posix_spawn(%s): %s", argv[0], strerror(rc));
  int status = 0;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  trainer_result r;
  r.exited = WIFEXITED(status);
  r.code = r.exited ? WEXITSTATUS(status) : WTERMSIG(status);
  r.out = read_file(out_path, NULL);
  r.err = read_file(err_path, NULL);
  ck_assert_msg(r.out != NULL && r.err != NULL, "cannot read %s's output",
                argv[0]);
  return r;
}

void remove_trainer_dir(const char *dir) {
  char path[4200];
  snprintf(path, sizeof path, "%s/stdout.txt", dir);
  unlink(path);
  snprintf(path, sizeof path, "%s/stderr.txt", dir);
  unlink(path);
  rmdir(dir);
}

void trainer_result_free(trainer_result *r) {
  free(r->out);
  free(r->err);
  r->out = r->err = NULL;
}
