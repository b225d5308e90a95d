/* A host built against the ABI 1.0 header, loading the plugin rebuilt from
 * its own sources with a header that appended a field to sg_session_config,
 * sg_static_buffer_desc and sg_stats and an entry to sg_api (see
 * CMakeLists.txt): the situation of every 1.0 host once a minor appends.
 *
 * Each of the host's structs is exactly its 1.0 size and ends where an
 * inaccessible page begins, so a plugin that read or wrote an appended field
 * of a 1.0 struct would crash the case; a plugin whose minimum size had moved
 * with the appended field would refuse it with SG_ERR_STRUCT_SIZE. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <check.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sg_load.h"
#include "sg_run_suite.h"

static const sg_api *api;

/* `bytes` of zeroed memory that end exactly at a PROT_NONE page. */
typedef struct guarded {
  char *map;
  size_t map_bytes;
  void *at;
} guarded;

static guarded against_guard_page(size_t bytes) {
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  guarded g = {NULL, 2 * page, NULL};
  g.map = mmap(NULL, g.map_bytes, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ck_assert_ptr_ne(g.map, MAP_FAILED);
  ck_assert_int_eq(mprotect(g.map + page, page, PROT_NONE), 0);
  g.at = g.map + page - bytes;
  return g;
}

static void release(guarded g) { munmap(g.map, g.map_bytes); }

/* A validation-only session from a 1.0 config against the guard page. */
static sg_session *open_session(void) {
  guarded g = against_guard_page(sizeof(sg_session_config));
  sg_session_config *cfg = g.at;
  cfg->struct_size = sizeof *cfg;
  cfg->flags = SG_SESSION_VALIDATION_ONLY;
  sg_session *s = NULL;
  sg_status st = api->session_create(cfg, &s);
  ck_assert_msg(st == SG_OK, "1.0 config refused: %s",
                sg_test_detail(api, NULL));
  release(g);
  return s;
}

/* The grown header appends one entry: the table says so, and a 1.0 host,
 * which knows only the entries before it, reads its own part unchanged. */
START_TEST(the_table_grew_by_the_appended_entry) {
  const size_t grown = sizeof(sg_api) + sizeof(void (*)(void));
  ck_assert_msg(api->struct_size == grown,
                "table struct_size is %zu, expected %zu: 1.0's %zu and one "
                "appended entry",
                api->struct_size, grown, sizeof(sg_api));
  ck_assert_uint_eq(api->abi_version, SG_ABI_VERSION);
}
END_TEST

START_TEST(a_1_0_config_is_accepted) { api->session_destroy(open_session()); }
END_TEST

/* An array of 1.0 descriptors: the stride is the host's struct_size, and
 * the last element ends at the guard page. */
START_TEST(a_1_0_descriptor_array_is_accepted) {
  sg_session *s = open_session();
  guarded g = against_guard_page(2 * sizeof(sg_static_buffer_desc));
  sg_static_buffer_desc *d = g.at;
  d[0] = (sg_static_buffer_desc){sizeof d[0], (void *)(uintptr_t)0x10000, 64};
  d[1] = (sg_static_buffer_desc){sizeof d[1], (void *)(uintptr_t)0x20000, 32};
  uint32_t first = 99;
  sg_status st = api->register_static_buffers(s, d, 2, &first);
  ck_assert_msg(st == SG_OK, "1.0 descriptors refused: %s",
                sg_test_detail(api, s));
  ck_assert_uint_eq(first, 0);
  release(g);
  api->session_destroy(s);
}
END_TEST

/* An output struct: the plugin fills its 1.0 fields, nothing after. */
START_TEST(a_1_0_stats_struct_is_filled_up_to_its_end) {
  sg_session *s = open_session();
  sg_static_buffer_desc d = {sizeof d, (void *)(uintptr_t)0x10000, 64};
  ck_assert_int_eq(api->register_static_buffers(s, &d, 1, NULL), SG_OK);
  guarded g = against_guard_page(sizeof(sg_stats));
  sg_stats *out = g.at;
  memset(out, 0xee, sizeof *out);
  out->struct_size = sizeof *out;
  sg_status st = api->get_stats(s, out);
  ck_assert_msg(st == SG_OK, "1.0 stats refused: %s", sg_test_detail(api, s));
  ck_assert_uint_eq(out->struct_size, sizeof *out);
  ck_assert_uint_eq(out->static_buffers, 1);
  ck_assert_uint_eq(out->fp8_params, 0);
  ck_assert(out->instantiate_ms == 0.0); /* the last 1.0 field, written */
  release(g);
  api->session_destroy(s);
}
END_TEST

int main(void) {
  api = sg_test_load().api;
  Suite *s = suite_create("grown_plugin");
  TCase *t = tcase_create("a 1.0 host");
  tcase_add_test(t, the_table_grew_by_the_appended_entry);
  tcase_add_test(t, a_1_0_config_is_accepted);
  tcase_add_test(t, a_1_0_descriptor_array_is_accepted);
  tcase_add_test(t, a_1_0_stats_struct_is_filled_up_to_its_end);
  suite_add_tcase(s, t);
  return sg_run_suite(s, CK_FORK);
}
