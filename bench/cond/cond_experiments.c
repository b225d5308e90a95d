/* cond_experiments: what CUDA does with conditional graphs on this GPU,
 * driver and NCCL, and whether stepgraph's guards and loops hold up there.
 * Each experiment runs in a child process with a time limit; the parent
 * prints every question with its answer, and a summary table.
 *
 *   cond_experiments [--plugin path/to/libstepgraph.so.1]
 *
 * Exit status 0 when every experiment ran to an answer (whatever it is),
 * 1 when one crashed or hung. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "experiments.h"
#include "sg_load.h"

#define TIME_LIMIT_S 120

typedef struct experiment {
  const char *name, *question;
  void (*run)(xp *x);
} experiment;

static const experiment experiments[] = {
    {"nccl in a guard",
     "Does a guard (IF body) holding an NCCL all-reduce on a 1-rank "
     "communicator capture, instantiate and replay right, taken and "
     "skipped?",
     xp_nccl_guard},
    {"nccl in a loop",
     "Does a microbatch loop (WHILE body) holding an NCCL all-reduce "
     "replay right for 3 and 5 iterations?",
     xp_nccl_loop},
    {"exec update",
     "Does cudaGraphExecUpdate accept a re-capture of a graph with IF and "
     "WHILE nodes (same shape, new kernel arguments), and do replays then "
     "follow the new capture?",
     xp_exec_update},
    {"nesting",
     "Do nested regions (guard in loop, loop in guard, loop in loop, guard "
     "in guard) capture and replay right?",
     xp_nesting},
    {"invalidated capture-to-graph",
     "After a capture into an existing graph (cudaStreamBeginCaptureToGraph) "
     "is invalidated, is that graph still the caller's (valid, "
     "destroyable)?",
     xp_invalidated_graph},
    {"empty IF body",
     "Does CUDA instantiate and launch an IF node whose body is empty?",
     xp_empty_body},
};
#define EXPERIMENTS (int)(sizeof experiments / sizeof experiments[0])

static _Noreturn void child(const experiment *e, int fd) {
  char answer[XP_ANSWER] = "no answer given";
  xp x;
  memset(&x, 0, sizeof x);
  x.answer = answer;
  xp_answer_fd = fd;
  alarm(TIME_LIMIT_S);
  x.api = sg_test_load().api;
  e->run(&x);
  xp_done(&x);
}

/* Runs e in a child; its answer (or how it died) into answer. */
static int run(const experiment *e, char *answer, size_t cap) {
  int fds[2];
  if (pipe(fds) != 0) {
    perror("pipe");
    exit(1);
  }
  fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    child(e, fds[1]);
  }
  close(fds[1]);
  ssize_t got = read(fds[0], answer, cap - 1);
  answer[got > 0 ? got : 0] = '\0';
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) {
    snprintf(answer, cap, "%s (the child %s)",
             WTERMSIG(status) == SIGALRM ? "HANG" : "CRASH",
             WTERMSIG(status) == SIGALRM ? "was killed after the time limit"
                                          : strsignal(WTERMSIG(status)));
    return 1;
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--plugin") == 0) {
    setenv("STEPGRAPH_PLUGIN", argv[2], 1);
  } else if (argc != 1) {
    fprintf(stderr, "usage: %s [--plugin libstepgraph.so.1]\n", argv[0]);
    return 2;
  }
  static char answers[EXPERIMENTS][XP_ANSWER];
  int failed = 0;
  for (int i = 0; i < EXPERIMENTS; i++) {
    printf("== Q%d (%s): %s\n", i + 1, experiments[i].name,
           experiments[i].question);
    failed |= run(&experiments[i], answers[i], XP_ANSWER);
    printf("A%d: %s\n\n", i + 1, answers[i]);
  }
  printf("| experiment | answer |\n|---|---|\n");
  for (int i = 0; i < EXPERIMENTS; i++) {
    printf("| Q%d %s | %s |\n", i + 1, experiments[i].name, answers[i]);
  }
  return failed;
}
