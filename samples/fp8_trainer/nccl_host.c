#include "nccl_host.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"

/* Each function pointer of tr_nccl and of its plugin table, by symbol. */
static bool resolve(tr_nccl *n, const char *symbol, void *slot) {
  void *fn = dlsym(n->lib, symbol);
  if (fn == NULL) {
    fprintf(stderr, "fp8_trainer: %s has no %s: %s\n", n->path, symbol,
            dlerror());
    return false;
  }
  memcpy(slot, &fn, sizeof fn);
  return true;
}

bool tr_nccl_load(tr_nccl *n) {
  memset(n, 0, sizeof *n);
  const char *env = getenv("STEPGRAPH_NCCL_LIBRARY");
  snprintf(n->path, sizeof n->path, "%s",
           env != NULL && *env != '\0' ? env : "libnccl.so.2");
  n->lib = dlopen(n->path, RTLD_NOW | RTLD_LOCAL);
  if (n->lib == NULL) {
    fprintf(stderr,
            "fp8_trainer: --ranks and RANK/WORLD_SIZE need NCCL: %s\n"
            "  install NCCL 2.9 or newer, or name it in "
            "STEPGRAPH_NCCL_LIBRARY\n",
            dlerror());
    return false;
  }
  sg_nccl_functions *p = &n->plugin;
  p->struct_size = sizeof *p;
  const struct {
    const char *symbol;
    void *slot;
  } fns[] = {
      {"ncclGetUniqueId", &n->get_unique_id},
      {"ncclCommInitRank", &n->comm_init_rank},
      {"ncclCommDestroy", &n->comm_destroy},
      {"ncclGroupStart", &n->group_start},
      {"ncclGroupEnd", &n->group_end},
      {"ncclReduceScatter", &n->reduce_scatter},
      {"ncclAllGather", &n->all_gather},
      {"ncclAllReduce", &p->all_reduce},
      {"ncclCommGetAsyncError", &p->comm_get_async_error},
      {"ncclCommAbort", &p->comm_abort},
      {"ncclGetVersion", &p->get_version},
      {"ncclCommCount", &p->comm_count},
      {"ncclCommUserRank", &p->comm_user_rank},
      {"ncclCommCuDevice", &p->comm_cu_device},
      {"ncclGetErrorString", &p->get_error_string},
  };
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
    if (!resolve(n, fns[i].symbol, fns[i].slot)) {
      return false;
    }
  }
  return true;
}

void tr_check_nccl(const tr_nccl *n, int32_t result, const char *call,
                   const char *file, int line) {
  if (result != 0) {
    char name[32];
    snprintf(name, sizeof name, "ncclResult_t %d", (int)result);
    tr_die(file, line, call, name, n->plugin.get_error_string(result));
  }
}
