/* Loading the stepgraph plugin the way a framework does: dlopen a path,
 * dlsym the one entry point, negotiate ABI 1.x, create a session. The
 * trainer never links the plugin; it sees only abi/stepgraph.h. */
#ifndef TR_PLUGIN_HOST_H
#define TR_PLUGIN_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "dist.h"
#include "stepgraph.h"

typedef struct tr_plugin {
  void *lib;
  const sg_api *api;
  char path[4096]; /* what was loaded */
} tr_plugin;

/* Resolves the path (explicit, else $STEPGRAPH_PLUGIN, else the library in
 * this build's plugin folder found relative to the executable), loads it
 * and negotiates. On failure prints a message naming the path and what to
 * do, and returns false. */
bool tr_plugin_load(tr_plugin *p, const char *explicit_path);

/* A session on device 0 whose RNG starts from `seed`; the step driver warms
 * up for `warmup` eager steps; `flags`: sg_session_flag bits. With
 * `dist`: on its device, with its communicator and NCCL, and an RNG seed
 * of its own for every rank but rank 0 (each rank draws its own batch).
 * Exits on failure with the plugin's detail. */
sg_session *tr_session_create(const tr_plugin *p, uint64_t seed,
                              uint32_t warmup, uint32_t flags,
                              const tr_dist *dist);

#endif
