/* get_stats, graph_info, dump_graph. */
#include "args.h"
#include "dot.h"
#include "entries.h"
#include "entry.h"

/* The counters kept elsewhere, into s->stats: graph totals, regions, and
 * the detector's findings as of its last read. */
static void fill_stats(sg_session *s) {
  const sg_graph_totals t = sg_graphs_totals(&s->graphs);
  sg_stats *st = &s->stats;
  st->graphs = t.graphs;
  st->graph_nodes = t.nodes;
  st->graph_alloc_bytes = t.alloc_bytes;
  st->conditional_nodes = t.conditionals;
  st->evictions = s->graphs.evictions;
  st->guards = s->conds.guards;
  st->guards_skipped = s->conds.guards_skipped;
  st->loops = s->conds.loops;
  const sg_findings *f = &s->detector.found;
  st->transpose_checks = f->checks;
  st->stale_params = f->stale_params;
  st->first_stale_check = f->first_check;
  st->first_stale_param = f->first_param;
  st->first_stale_group = sg_registry_group(&s->fp8, f->first_param);
}

sg_status sg_get_stats(sg_session *s, sg_stats *out) {
  sg_call c;
  sg_status st = sg_enter(&c, s, "get_stats");
  if (st == SG_OK) {
    fill_stats(s);
    st = SG_WRITE(&s->diag, sg_stats, out, &s->stats, "out");
  }
  return sg_leave(&c, st);
}

static sg_status require_graph(sg_session *s, uint64_t key, sg_graph **e) {
  *e = sg_graphs_find(&s->graphs, key);
  if (*e != NULL) {
    return SG_OK;
  }
  return sg_fail(&s->diag, SG_ERR_NOT_FOUND, "key %llu has no graph",
                 (unsigned long long)key);
}

static sg_status write_info(sg_session *s, const sg_graph *e,
                            sg_graph_info *out) {
  sg_graph_info info = {0};
  info.struct_size = sizeof info;
  info.nodes = e->nodes;
  info.alloc_bytes = e->alloc_bytes;
  info.replays = e->replays;
  info.eager_only = e->eager_only ? 1u : 0u;
  info.conditional_nodes = e->conditionals;
  return SG_WRITE(&s->diag, sg_graph_info, out, &info, "out");
}

static sg_status dot_print(sg_session *s, const sg_graph *e,
                           const char *path) {
  if (e->graph == NULL) {
    return sg_fail(&s->diag, SG_ERR_NOT_FOUND,
                   "key %llu has no graph: it runs eagerly (%s)",
                   (unsigned long long)e->key, e->reason);
  }
  char why[256];
  if (!sg_dot_write(e->graph, path, why, sizeof why)) {
    return sg_fail(&s->diag, SG_ERR_IO,
                   "cannot write key %llu's graph to \"%s\": %s",
                   (unsigned long long)e->key, path, why);
  }
  return SG_OK;
}

sg_status sg_graph_info_get(sg_session *s, uint64_t key, sg_graph_info *out) {
  sg_call c;
  sg_graph *e = NULL;
  sg_status st = sg_enter(&c, s, "graph_info");
  if (st == SG_OK) {
    st = SG_CHECK_OUT(&s->diag, sg_graph_info, out, "out");
  }
  if (st == SG_OK) {
    st = require_graph(s, key, &e);
  }
  if (st == SG_OK) {
    st = write_info(s, e, out);
  }
  return sg_leave(&c, st);
}

sg_status sg_dump_graph(sg_session *s, uint64_t key, const char *path) {
  sg_call c;
  sg_graph *e = NULL;
  sg_status st = sg_enter(&c, s, "dump_graph");
  if (st == SG_OK && (path == NULL || path[0] == '\0')) {
    st = sg_fail(&s->diag, SG_ERR_INVALID_ARGUMENT, "path is %s",
                 path == NULL ? "NULL" : "empty");
  }
  if (st == SG_OK) {
    st = sg_require_not_capturing(s);
  }
  if (st == SG_OK) {
    st = require_graph(s, key, &e);
  }
  if (st == SG_OK) {
    st = dot_print(s, e, path);
  }
  return sg_leave(&c, st);
}
