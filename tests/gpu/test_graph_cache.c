/* The graph cache by behaviour: re-capture with the same topology updates
 * the executable in place (the next replay gives the new result), a changed
 * topology re-instantiates; several keys; static-input copies before the
 * launch (any number, size and alignment); eviction under graph_mem_budget; trim and invalidate; graphs
 * disabled by STEPGRAPH_DISABLE; STEPGRAPH_DUMP_DIR's DOT file per capture. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_common.h"

#define MiB (1024ull * 1024ull)

typedef struct fixture {
  sg_session *s;
  cudaStream_t st;
  int *dev;
} fixture;

static fixture open_fixture(const sg_session_config *cfg) {
  fixture f = {gt_session(cfg), gt_stream(1), NULL};
  SG_CHECK_CUDA(cudaMalloc((void **)&f.dev, 4 * sizeof(int)));
  SG_CHECK_CUDA(cudaMemsetAsync(f.dev, 0, 4 * sizeof(int), f.st));
  GT_OK(f.s, gt_api->pre_capture(f.s, (sg_stream)f.st));
  return f;
}

static void close_fixture(fixture *f) {
  SG_CHECK_CUDA(cudaStreamSynchronize(f->st));
  gt_api->session_destroy(f->s);
  SG_CHECK_CUDA(cudaFree(f->dev));
  SG_CHECK_CUDA(cudaStreamDestroy(f->st));
}

/* Captures `key` as: out = first; then out += add[i] for i < adds. */
static void capture_ints(fixture *f, uint64_t key, int *out, int first,
                         const int *add, int adds) {
  sg_capture_args ca = gt_capture_args(key, f->st, SG_CAPTURE_THREAD_LOCAL);
  GT_OK(f->s, gt_api->capture_begin(f->s, &ca));
  SG_CHECK_CUDA(tk_set_int(out, first, f->st));
  for (int i = 0; i < adds; i++) {
    SG_CHECK_CUDA(tk_add_int(out, add[i], f->st));
  }
  GT_OK(f->s, gt_api->capture_end(f->s, &ca));
}

static int replay_int(fixture *f, uint64_t key, const int *out) {
  sg_replay_args ra = gt_replay_args(key, f->st);
  GT_OK(f->s, gt_api->replay(f->s, &ra));
  return gt_read_int(out, f->st);
}

START_TEST(recapture_updates_in_place_or_reinstantiates) {
  sg_session_config cfg = gt_config();
  fixture f = open_fixture(&cfg);
  const int adds[] = {3, 4};
  capture_ints(&f, 1, f.dev, 5, adds, 1);
  ck_assert_int_eq(replay_int(&f, 1, f.dev), 8);
  sg_stats st = gt_stats(f.s);
  ck_assert_uint_eq(st.instantiations, 1);
  ck_assert_uint_eq(st.exec_updates, 0);

  /* Same topology, new kernel arguments: updated in place, new result. */
  capture_ints(&f, 1, f.dev, 7, adds + 1, 1);
  st = gt_stats(f.s);
  ck_assert_uint_eq(st.exec_updates, 1);
  ck_assert_uint_eq(st.instantiations, 1);
  ck_assert_int_eq(replay_int(&f, 1, f.dev), 11);
  ck_assert_int_eq(replay_int(&f, 1, f.dev), 11);

  /* Another key meanwhile keeps its own graph. */
  capture_ints(&f, 2, f.dev + 1, 100, adds, 2);
  ck_assert_int_eq(replay_int(&f, 2, f.dev + 1), 107);
  ck_assert_int_eq(replay_int(&f, 1, f.dev), 11);

  /* Changed topology (one more node): re-instantiated, also right. */
  capture_ints(&f, 1, f.dev, 1, adds, 2);
  st = gt_stats(f.s);
  ck_assert_uint_eq(st.exec_updates, 1);
  ck_assert_uint_eq(st.instantiations, 3);
  ck_assert_uint_eq(st.captures, 4);
  ck_assert_uint_eq(st.graphs, 2);
  ck_assert_uint_eq(st.graph_nodes, 6);
  ck_assert_int_eq(replay_int(&f, 1, f.dev), 8);
  ck_assert_int_eq(replay_int(&f, 2, f.dev + 1), 107);
  sg_graph_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  GT_OK(f.s, gt_api->graph_info(f.s, 1, &info));
  ck_assert_uint_eq(info.nodes, 3);
  ck_assert_uint_eq(info.replays, 5);
  GT_EXPECT(f.s, gt_api->graph_info(f.s, 99, &info), SG_ERR_NOT_FOUND);

  /* Same node count, other edges (a fork): CUDA refuses the update, the
   * plugin instantiates instead. */
  cudaStream_t side = gt_stream(1);
  cudaEvent_t fork, join;
  SG_CHECK_CUDA(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  SG_CHECK_CUDA(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  sg_capture_args ca = gt_capture_args(1, f.st, SG_CAPTURE_THREAD_LOCAL);
  GT_OK(f.s, gt_api->capture_begin(f.s, &ca));
  SG_CHECK_CUDA(tk_set_int(f.dev, 2, f.st));
  SG_CHECK_CUDA(cudaEventRecord(fork, f.st));
  SG_CHECK_CUDA(cudaStreamWaitEvent(side, fork, 0));
  SG_CHECK_CUDA(tk_add_int(f.dev + 3, 5, side));
  SG_CHECK_CUDA(tk_add_int(f.dev, 6, f.st));
  SG_CHECK_CUDA(cudaEventRecord(join, side));
  SG_CHECK_CUDA(cudaStreamWaitEvent(f.st, join, 0));
  GT_OK(f.s, gt_api->capture_end(f.s, &ca));
  st = gt_stats(f.s);
  ck_assert_uint_eq(st.exec_updates, 1);
  ck_assert_uint_eq(st.instantiations, 4);
  ck_assert_int_eq(replay_int(&f, 1, f.dev), 8);
  ck_assert_int_eq(gt_read_int(f.dev + 3, f.st), 5);
  SG_CHECK_CUDA(cudaEventDestroy(fork));
  SG_CHECK_CUDA(cudaEventDestroy(join));
  SG_CHECK_CUDA(cudaStreamDestroy(side));
  close_fixture(&f);
}
END_TEST

START_TEST(invalidate_forces_a_fresh_capture) {
  sg_session_config cfg = gt_config();
  fixture f = open_fixture(&cfg);
  const int adds[] = {1};
  capture_ints(&f, 1, f.dev, 10, adds, 1);
  ck_assert_int_eq(replay_int(&f, 1, f.dev), 11);
  GT_OK(f.s, gt_api->invalidate(f.s, 1));
  GT_EXPECT(f.s, gt_api->invalidate(f.s, 1), SG_ERR_NOT_FOUND);
  sg_replay_args ra = gt_replay_args(1, f.st);
  GT_EXPECT(f.s, gt_api->replay(f.s, &ra), SG_ERR_INVALID_STATE);
  ck_assert_uint_eq(gt_stats(f.s).graphs, 0);
  /* Same topology as before, but nothing to update: instantiated anew. */
  capture_ints(&f, 1, f.dev, 20, adds, 1);
  sg_stats st = gt_stats(f.s);
  ck_assert_uint_eq(st.exec_updates, 0);
  ck_assert_uint_eq(st.instantiations, 2);
  ck_assert_uint_eq(st.invalidations, 1);
  ck_assert_int_eq(replay_int(&f, 1, f.dev), 21);
  close_fixture(&f);
}
END_TEST

START_TEST(static_sources_are_copied_before_the_launch) {
  enum { COUNT = 1024 };
  sg_session_config cfg = gt_config();
  sg_session *s = gt_session(&cfg);
  cudaStream_t st = gt_stream(1);
  float *in = NULL, *out = NULL, *src_a = NULL, *src_b = NULL;
  SG_CHECK_CUDA(cudaMalloc((void **)&in, COUNT * sizeof(float)));
  SG_CHECK_CUDA(cudaMalloc((void **)&out, COUNT * sizeof(float)));
  SG_CHECK_CUDA(cudaMalloc((void **)&src_a, COUNT * sizeof(float)));
  SG_CHECK_CUDA(cudaMalloc((void **)&src_b, COUNT * sizeof(float)));
  static float host[COUNT];
  for (int i = 0; i < COUNT; i++) {
    host[i] = (float)i + 0.25f;
  }
  SG_CHECK_CUDA(cudaMemcpy(src_a, host, sizeof host, cudaMemcpyHostToDevice));
  SG_CHECK_CUDA(tk_scale_copy(src_b, src_a, -3.0f, COUNT, st));
  SG_CHECK_CUDA(tk_scale_copy(in, src_a, 0.5f, COUNT, st));
  sg_static_buffer_desc d = {sizeof d, in, COUNT * sizeof(float)};
  uint32_t index = 99;
  GT_OK(s, gt_api->register_static_buffers(s, &d, 1, &index));
  ck_assert_uint_eq(index, 0);
  GT_OK(s, gt_api->pre_capture(s, (sg_stream)st));
  sg_capture_args ca = gt_capture_args(4, st, SG_CAPTURE_THREAD_LOCAL);
  GT_OK(s, gt_api->capture_begin(s, &ca));
  SG_CHECK_CUDA(tk_scale_copy(out, in, 2.0f, COUNT, st));
  GT_OK(s, gt_api->capture_end(s, &ca));
  /* Registration closed at the first capture. */
  GT_EXPECT(s, gt_api->register_static_buffers(s, &d, 1, NULL),
            SG_ERR_INVALID_STATE);

  sg_replay_args ra = gt_replay_args(4, st);
  const void *sources[1] = {src_a};
  ra.static_sources = sources;
  ra.static_source_count = 1;
  float got[COUNT];
  const float *want_from[3] = {src_a, src_b, src_b};
  const float factor[3] = {2.0f, -6.0f, -6.0f};
  for (int round = 0; round < 3; round++) {
    /* Round 2 passes no source: the buffer keeps round 1's copy. */
    sources[0] = round == 2 ? NULL : want_from[round];
    GT_OK(s, gt_api->replay(s, &ra));
    SG_CHECK_CUDA(cudaStreamSynchronize(st));
    SG_CHECK_CUDA(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
    for (int i = 0; i < COUNT; i++) {
      ck_assert_msg(got[i] == factor[round] * host[i],
                    "round %d, element %d: %g, expected %g", round, i,
                    (double)got[i], (double)(factor[round] * host[i]));
    }
  }
  gt_api->session_destroy(s);
  float *bufs[] = {in, out, src_a, src_b};
  for (int i = 0; i < 4; i++) {
    SG_CHECK_CUDA(cudaFree(bufs[i]));
  }
  SG_CHECK_CUDA(cudaStreamDestroy(st));
}
END_TEST

/* More sources than one copy launch takes (SG_K_COPY_MAX is 64), of odd
 * sizes, at addresses whose alignment differs between source and static
 * buffer; NULL sources leave their buffers alone. */
START_TEST(many_static_sources_of_any_size_and_alignment) {
  enum { BUFS = 70, BIG = 5 };
  size_t size[BUFS], dst_at[BUFS], src_at[BUFS], dst_end = 0, src_end = 0;
  for (int i = 0; i < BUFS; i++) {
    size[i] = i == BIG ? (3u << 20) + 5 : (size_t)(i * 977 + 1) % 5000 + 1;
    dst_at[i] = dst_end + (size_t)(i % 7);
    src_at[i] = src_end + (size_t)(i % 5) * 4;
    dst_end = dst_at[i] + size[i];
    src_end = src_at[i] + size[i];
  }
  uint8_t *dst = NULL, *src = NULL;
  SG_CHECK_CUDA(cudaMalloc((void **)&dst, dst_end));
  SG_CHECK_CUDA(cudaMalloc((void **)&src, src_end));
  uint8_t *want = malloc(dst_end), *pattern = malloc(src_end),
          *got = malloc(dst_end);
  ck_assert(want != NULL && pattern != NULL && got != NULL);
  for (size_t j = 0; j < src_end; j++) {
    pattern[j] = (uint8_t)(j * 31u + (j >> 11));
  }
  memset(want, 0xab, dst_end);
  SG_CHECK_CUDA(cudaMemcpy(src, pattern, src_end, cudaMemcpyHostToDevice));
  SG_CHECK_CUDA(cudaMemcpy(dst, want, dst_end, cudaMemcpyHostToDevice));

  sg_session_config cfg = gt_config();
  sg_session *s = gt_session(&cfg);
  cudaStream_t st = gt_stream(1);
  sg_static_buffer_desc d[BUFS];
  const void *sources[BUFS];
  for (int i = 0; i < BUFS; i++) {
    d[i] = (sg_static_buffer_desc){sizeof d[i], dst + dst_at[i], size[i]};
    sources[i] = i % 9 == 4 ? NULL : src + src_at[i];
    if (sources[i] != NULL) {
      memcpy(want + dst_at[i], pattern + src_at[i], size[i]);
    }
  }
  GT_OK(s, gt_api->register_static_buffers(s, d, BUFS, NULL));
  GT_OK(s, gt_api->pre_capture(s, (sg_stream)st));
  int *flag = NULL;
  SG_CHECK_CUDA(cudaMalloc((void **)&flag, sizeof *flag));
  sg_capture_args ca = gt_capture_args(8, st, SG_CAPTURE_THREAD_LOCAL);
  GT_OK(s, gt_api->capture_begin(s, &ca));
  SG_CHECK_CUDA(tk_set_int(flag, 1, st));
  GT_OK(s, gt_api->capture_end(s, &ca));
  sg_replay_args ra = gt_replay_args(8, st);
  ra.static_sources = sources;
  ra.static_source_count = BUFS;
  GT_OK(s, gt_api->replay(s, &ra));
  ck_assert_int_eq(gt_read_int(flag, st), 1);
  SG_CHECK_CUDA(cudaMemcpy(got, dst, dst_end, cudaMemcpyDeviceToHost));
  for (size_t j = 0; j < dst_end; j++) {
    ck_assert_msg(got[j] == want[j], "byte %zu: 0x%02x, expected 0x%02x", j,
                  got[j], want[j]);
  }
  gt_api->session_destroy(s);
  free(want);
  free(pattern);
  free(got);
  SG_CHECK_CUDA(cudaFree(flag));
  SG_CHECK_CUDA(cudaFree(dst));
  SG_CHECK_CUDA(cudaFree(src));
  SG_CHECK_CUDA(cudaStreamDestroy(st));
}
END_TEST

static uint64_t graph_mem_reserved(void) {
  uint64_t v = 0;
  SG_CHECK_CUDA(cudaDeviceGetGraphMemAttribute(
      0, cudaGraphMemAttrReservedMemCurrent, &v));
  return v;
}

/* A graph that allocates `bytes` with cudaMallocAsync, fills them, reduces
 * a byte of them into out, and frees them: one allocation node. */
static void capture_alloc(fixture *f, uint64_t key, size_t bytes, int *out,
                          int value) {
  sg_capture_args ca = gt_capture_args(key, f->st, SG_CAPTURE_THREAD_LOCAL);
  GT_OK(f->s, gt_api->capture_begin(f->s, &ca));
  uint8_t *scratch = NULL;
  SG_CHECK_CUDA(cudaMallocAsync((void **)&scratch, bytes, f->st));
  SG_CHECK_CUDA(tk_fill_bytes(scratch, 7, bytes, f->st));
  SG_CHECK_CUDA(tk_set_int(out, value, f->st));
  SG_CHECK_CUDA(cudaFreeAsync(scratch, f->st));
  GT_OK(f->s, gt_api->capture_end(f->s, &ca));
}

START_TEST(eviction_under_a_budget_then_trim_on_invalidate) {
  sg_session_config cfg = gt_config();
  cfg.graph_mem_budget = 96 * MiB;
  fixture f = open_fixture(&cfg);
  SG_CHECK_CUDA(cudaDeviceGraphMemTrim(0));
  const uint64_t reserved_start = graph_mem_reserved();

  capture_alloc(&f, 10, 64 * MiB, f.dev, 1);
  sg_graph_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  GT_OK(f.s, gt_api->graph_info(f.s, 10, &info));
  ck_assert_uint_eq(info.alloc_bytes, 64 * MiB);
  ck_assert_int_eq(replay_int(&f, 10, f.dev), 1);
  ck_assert_uint_ge(graph_mem_reserved(), reserved_start + 64 * MiB);

  /* A second 64 MiB graph does not fit beside the first: key 10 goes. */
  capture_alloc(&f, 11, 64 * MiB, f.dev + 1, 2);
  sg_stats st = gt_stats(f.s);
  ck_assert_uint_eq(st.evictions, 1);
  ck_assert_uint_eq(st.graphs, 1);
  ck_assert_uint_eq(st.graph_alloc_bytes, 64 * MiB);
  GT_EXPECT(f.s, gt_api->graph_info(f.s, 10, &info), SG_ERR_NOT_FOUND);
  sg_replay_args ra = gt_replay_args(10, f.st);
  GT_EXPECT(f.s, gt_api->replay(f.s, &ra), SG_ERR_INVALID_STATE);
  ck_assert_int_eq(replay_int(&f, 11, f.dev + 1), 2);
  ck_assert_uint_le(graph_mem_reserved(), reserved_start + 80 * MiB);

  /* Small graphs without allocation nodes never count against it. */
  const int adds[] = {1};
  capture_ints(&f, 12, f.dev + 2, 5, adds, 1);
  ck_assert_uint_eq(gt_stats(f.s).evictions, 1);

  /* Key 10 again: now key 11, least recently used, makes room. */
  capture_alloc(&f, 10, 64 * MiB, f.dev, 3);
  st = gt_stats(f.s);
  ck_assert_uint_eq(st.evictions, 2);
  ck_assert_uint_eq(st.graphs, 2);
  ck_assert_int_eq(replay_int(&f, 10, f.dev), 3);
  ck_assert_int_eq(replay_int(&f, 12, f.dev + 2), 6);

  /* Invalidating the last allocating graph gives its memory back. */
  const size_t free_before = gt_free_memory();
  ck_assert_uint_ge(graph_mem_reserved(), reserved_start + 64 * MiB);
  GT_OK(f.s, gt_api->invalidate(f.s, 10));
  SG_CHECK_CUDA(cudaDeviceSynchronize());
  ck_assert_uint_le(graph_mem_reserved(), reserved_start + 16 * MiB);
  ck_assert_uint_ge(gt_free_memory(), free_before + 48 * MiB);
  ck_assert_uint_eq(gt_stats(f.s).graph_alloc_bytes, 0);
  close_fixture(&f);
}
END_TEST

START_TEST(disabled_graphs_run_eagerly) {
  setenv("STEPGRAPH_DISABLE", "1", 1);
  sg_session_config cfg = gt_config();
  cfg.warmup_steps = 1;
  fixture f = open_fixture(&cfg);
  unsetenv("STEPGRAPH_DISABLE"); /* read when the session was created */
  sg_capture_args ca = gt_capture_args(1, f.st, SG_CAPTURE_THREAD_LOCAL);
  GT_EXPECT(f.s, gt_api->capture_begin(f.s, &ca), SG_RUN_EAGERLY);
  ck_assert_ptr_nonnull(
      strstr(sg_test_detail(gt_api, f.s), "graphs are disabled (STEPGRAPH_DISABLE"));
  sg_replay_args ra = gt_replay_args(1, f.st);
  GT_EXPECT(f.s, gt_api->replay(f.s, &ra), SG_RUN_EAGERLY);
  GT_EXPECT(f.s, gt_api->capture_end(f.s, &ca), SG_ERR_INVALID_STATE);
  sg_stats st = gt_stats(f.s);
  ck_assert_uint_eq(st.eager_runs, 2);
  ck_assert_uint_eq(st.captures, 0);
  ck_assert_uint_eq(st.graphs, 0);
  close_fixture(&f);
}
END_TEST

/* Whether `path` exists and holds a DOT digraph. */
static int is_dot_file(const char *path) {
  FILE *f = fopen(path, "r");
  char head[64] = {0};
  if (f == NULL) {
    return 0;
  }
  size_t n = fread(head, 1, sizeof head - 1, f);
  fclose(f);
  return n > 0 && strstr(head, "digraph") != NULL;
}

START_TEST(dump_dir_gets_a_dot_file_per_capture) {
  char dir[] = "/tmp/stepgraph-dump-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  setenv("STEPGRAPH_DUMP_DIR", dir, 1);
  sg_session_config cfg = gt_config();
  fixture f = open_fixture(&cfg);
  unsetenv("STEPGRAPH_DUMP_DIR"); /* read when the session was created */
  const int adds[] = {1, 2};
  capture_ints(&f, 7, f.dev, 5, adds, 1);
  capture_ints(&f, 7, f.dev, 5, adds, 2); /* a second capture of key 7 */
  capture_ints(&f, 9, f.dev, 1, adds, 1);
  char path[128];
  const char *const names[] = {"7-1.dot", "7-2.dot", "9-1.dot"};
  for (size_t i = 0; i < 3; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    ck_assert_msg(is_dot_file(path), "%s is missing or not DOT", path);
    unlink(path);
  }
  snprintf(path, sizeof path, "%s/7-3.dot", dir);
  ck_assert_int_ne(access(path, F_OK), 0);
  close_fixture(&f);
  ck_assert_int_eq(rmdir(dir), 0); /* nothing else was written */
}
END_TEST

static Suite *make_suite(void) {
  Suite *suite = suite_create("graph_cache");
  TCase *t = tcase_create("cache");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, recapture_updates_in_place_or_reinstantiates);
  tcase_add_test(t, invalidate_forces_a_fresh_capture);
  tcase_add_test(t, static_sources_are_copied_before_the_launch);
  tcase_add_test(t, many_static_sources_of_any_size_and_alignment);
  tcase_add_test(t, eviction_under_a_budget_then_trim_on_invalidate);
  tcase_add_test(t, disabled_graphs_run_eagerly);
  tcase_add_test(t, dump_dir_gets_a_dot_file_per_capture);
  suite_add_tcase(suite, t);
  return suite;
}

int main(void) { return gt_main("test_graph_cache", make_suite); }
