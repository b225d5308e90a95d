/* The plugin's NCCL loader (no GPU, no real NCCL needed): its search order
 * and the messages when it finds nothing, through validation-only sessions
 * given a fake communicator and no table. The fake libnccl.so.2 (CTest
 * passes its path as FAKE_NCCL_LIBRARY) stands in for NCCL. Run once as
 * is, and once with the fake's folder on LD_LIBRARY_PATH and
 * FAKE_NCCL_ON_LOADER_PATH=1 for the last step of the search. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_nccl.h"
#include "sg_log_capture.h"
#include "sg_load.h"
#include "sg_run_suite.h"

#if __has_include(<nccl.h>)
#include <nccl.h>
/* The numbers the plugin passes through its table (plugin/nccl_abi.h). */
#include "nccl_abi.h"
#define SAME(ours, theirs) _Static_assert((int)(ours) == (int)(theirs), #theirs)
SAME(SG_NCCL_SUCCESS, ncclSuccess);
SAME(SG_NCCL_REMOTE_ERROR, ncclRemoteError);
SAME(SG_NCCL_IN_PROGRESS, ncclInProgress);
SAME(SG_NCCL_UINT32, ncclUint32);
SAME(SG_NCCL_UINT64, ncclUint64);
SAME(SG_NCCL_SUM, ncclSum);
SAME(SG_NCCL_MAX, ncclMax);
SAME(SG_NCCL_MIN_VERSION, NCCL_VERSION(2, 9, 0));
#endif

#define BOGUS "/nonexistent/libnccl.so.2"

static const sg_api *api;


static const char *fake_path(void) {
  const char *p = getenv("FAKE_NCCL_LIBRARY");
  ck_assert_msg(p != NULL, "CTest sets FAKE_NCCL_LIBRARY");
  return p;
}

/* A validation-only session on the fake communicator with no table:
 * the plugin must find NCCL itself. The detail goes to *detail. */
static sg_status create(int with_comm, heard *h, char *detail, size_t cap) {
  sg_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.struct_size = sizeof cfg;
  cfg.flags = SG_SESSION_VALIDATION_ONLY;
  cfg.nccl_comm = with_comm ? FAKE_COMM : NULL;
  cfg.log_level = SG_LOG_INFO;
  cfg.log_fn = sg_hear;
  cfg.log_user = h;
  sg_session *s = NULL;
  sg_status st = api->session_create(&cfg, &s);
  api->last_error(NULL, detail, cap, NULL);
  api->session_destroy(s);
  return st;
}

#define HAS(text, needle) \
  ck_assert_msg(strstr((text), (needle)) != NULL, "\"%s\" lacks \"%s\"", \
                (text), (needle))

static void no_nccl_loaded_yet(void) {
  void *h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_NOLOAD);
  ck_assert_msg(h == NULL, "an NCCL is already loaded: the case means "
                           "nothing");
}

START_TEST(bogus_library_names_every_place_tried) {
  no_nccl_loaded_yet();
  setenv("STEPGRAPH_NCCL_LIBRARY", BOGUS, 1);
  heard h = {{0}};
  char detail[1024];
  ck_assert_int_eq(create(1, &h, detail, sizeof detail), SG_ERR_NCCL);
  HAS(detail, "session_create: config->nccl_comm is set but no NCCL was found");
  HAS(detail, "pass config->nccl");
  HAS(detail, "dlopen(\"libnccl.so.2\", RTLD_NOLOAD): not loaded in this process");
  HAS(detail, "STEPGRAPH_NCCL_LIBRARY=\"" BOGUS "\": " BOGUS
              ": cannot open shared object file");
  HAS(detail, "the loader's search path is not tried");
}
END_TEST

START_TEST(single_gpu_sessions_need_no_nccl) {
  setenv("STEPGRAPH_NCCL_LIBRARY", BOGUS, 1);
  heard h = {{0}};
  char detail[1024];
  ck_assert_int_eq(create(0, &h, detail, sizeof detail), SG_OK);
  ck_assert_ptr_null(strstr(h.text, "NCCL"));
}
END_TEST

START_TEST(a_library_without_nccl_is_refused) {
  no_nccl_loaded_yet();
  setenv("STEPGRAPH_NCCL_LIBRARY", sg_test_plugin_path(), 1);
  heard h = {{0}};
  char detail[1024];
  ck_assert_int_eq(create(1, &h, detail, sizeof detail), SG_ERR_NCCL);
  HAS(detail, "(named by STEPGRAPH_NCCL_LIBRARY) has no symbol ncclAllReduce");
}
END_TEST

START_TEST(the_named_library_is_used_and_logged) {
  no_nccl_loaded_yet();
  setenv("STEPGRAPH_NCCL_LIBRARY", fake_path(), 1);
  unsetenv("FAKE_NCCL_VERSION");
  heard h = {{0}};
  char detail[1024];
  ck_assert_int_eq(create(1, &h, detail, sizeof detail), SG_OK);
  char want[1024];
  snprintf(want, sizeof want,
           "NCCL 2.28.9 from %s (named by STEPGRAPH_NCCL_LIBRARY)",
           fake_path());
  HAS(h.text, want);
  HAS(h.text, "rank 0 of 1");
}
END_TEST

START_TEST(only_an_old_library_is_refused) {
  setenv("STEPGRAPH_NCCL_LIBRARY", fake_path(), 1);
  setenv("FAKE_NCCL_VERSION", "21003", 1); /* 2.10.3: new enough */
  heard h = {{0}};
  char detail[1024];
  ck_assert_int_eq(create(1, &h, detail, sizeof detail), SG_OK);
  HAS(h.text, "NCCL 2.10.3 from ");
  setenv("FAKE_NCCL_VERSION", "20805", 1);
  ck_assert_int_eq(create(1, &h, detail, sizeof detail), SG_ERR_NCCL);
  unsetenv("FAKE_NCCL_VERSION");
  HAS(detail, "NCCL 2.8.5 (ncclGetVersion 20805) is too old: stepgraph "
              "needs 2.9.0 or newer");
}
END_TEST

/* The copy the host already loaded wins over everything else, even a
 * STEPGRAPH_NCCL_LIBRARY that would fail. */
START_TEST(the_loaded_copy_is_shared_first) {
  no_nccl_loaded_yet();
  void *mine = dlopen(fake_path(), RTLD_NOW | RTLD_LOCAL);
  ck_assert_msg(mine != NULL, "dlopen(%s): %s", fake_path(), dlerror());
  setenv("STEPGRAPH_NCCL_LIBRARY", BOGUS, 1);
  heard h = {{0}};
  char detail[1024];
  ck_assert_int_eq(create(1, &h, detail, sizeof detail), SG_OK);
  HAS(h.text, "(already loaded in this process)");
  dlclose(mine);
}
END_TEST

/* Run with the fake's folder on LD_LIBRARY_PATH: the last step. */
START_TEST(the_loader_path_is_searched_last) {
  no_nccl_loaded_yet();
  unsetenv("STEPGRAPH_NCCL_LIBRARY");
  heard h = {{0}};
  char detail[1024];
  ck_assert_int_eq(create(1, &h, detail, sizeof detail), SG_OK);
  HAS(h.text, "libnccl.so.2 (from the loader's search path)");
  HAS(h.text, "NCCL 2.28.9 from ");
}
END_TEST

static Suite *loader_suite(int on_loader_path) {
  Suite *s = suite_create("nccl_loader");
  TCase *t = tcase_create(on_loader_path ? "loader_path" : "search");
  if (on_loader_path) {
    tcase_add_test(t, the_loader_path_is_searched_last);
  } else {
    tcase_add_test(t, bogus_library_names_every_place_tried);
    tcase_add_test(t, single_gpu_sessions_need_no_nccl);
    tcase_add_test(t, a_library_without_nccl_is_refused);
    tcase_add_test(t, the_named_library_is_used_and_logged);
    tcase_add_test(t, only_an_old_library_is_refused);
    tcase_add_test(t, the_loaded_copy_is_shared_first);
  }
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  api = sg_test_load().api;
  const char *flag = getenv("FAKE_NCCL_ON_LOADER_PATH");
  /* Each case in its own child: what one case loads, the next must not
   * find already loaded. */
  return sg_run_suite(loader_suite(flag != NULL && strcmp(flag, "1") == 0),
                      CK_FORK);
}
