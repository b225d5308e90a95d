/* ABI negotiation: the host states its header's version; the same major is
 * accepted whatever the minor, any other major is refused with a reason. */
#include <stdint.h>
#include <stdio.h>

#include "conformance.h"

static sg_get_api_args args_for(uint32_t major, uint32_t minor) {
  sg_get_api_args a;
  memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.host_abi_version = (major << 16) | minor;
  return a;
}

/* Host minors: the oldest, the plugin's own, newer ones. */
static const uint32_t same_major_minors[] = {0, SG_ABI_MINOR,
                                             SG_ABI_MINOR + 1, 0xffff};

START_TEST(same_major_any_minor_is_accepted) {
  sg_get_api_args a = args_for(SG_ABI_MAJOR, same_major_minors[_i]);
  ck_assert_int_eq(get_api(&a), SG_OK);
  ck_assert_ptr_nonnull(a.api);
  ck_assert_ptr_null(a.error);
  ck_assert_uint_eq(a.plugin_abi_version, SG_ABI_VERSION);
  ck_assert_str_eq(a.library_version, SG_LIBRARY_VERSION);
}
END_TEST

static const uint32_t other_majors[] = {0, SG_ABI_MAJOR + 1, 0xffff};

START_TEST(other_majors_are_refused_with_a_reason) {
  sg_get_api_args a = args_for(other_majors[_i], 3);
  ck_assert_int_eq(get_api(&a), SG_ERR_VERSION);
  ck_assert_ptr_null(a.api);
  ck_assert_ptr_nonnull(a.error);
  ck_assert_msg(strstr(a.error, "majors must match") != NULL, "%s", a.error);
  char host[32];
  snprintf(host, sizeof host, "ABI %u.3", (unsigned)other_majors[_i]);
  ck_assert_msg(strstr(a.error, host) != NULL, "%s lacks %s", a.error, host);
  ck_assert_uint_eq(a.plugin_abi_version, SG_ABI_VERSION);
}
END_TEST

START_TEST(the_table_reports_its_version_and_size) {
  ck_assert_uint_eq(api->abi_version, SG_ABI_VERSION);
  ck_assert_uint_ge(api->struct_size, sizeof(sg_api));
  ck_assert_str_eq(api->library_version, SG_LIBRARY_VERSION);
}
END_TEST

START_TEST(every_table_entry_is_non_null) {
  const size_t first = offsetof(sg_api, status_string);
  for (size_t off = first; off < sizeof(sg_api); off += sizeof(void (*)(void))) {
    void (*entry)(void);
    memcpy(&entry, (const char *)api + off, sizeof entry);
    ck_assert_msg(entry != NULL, "table entry at offset %zu is NULL", off);
  }
}
END_TEST

START_TEST(null_args_are_refused) {
  EXPECT(NULL, get_api(NULL), SG_ERR_INVALID_ARGUMENT,
         "sg_get_api_v1: args is NULL");
}
END_TEST

/* Too small to hold the error field: nothing is written, the reason is the
 * thread's message. */
START_TEST(args_smaller_than_v1_0_are_refused_untouched) {
  const sg_api *const sentinel_api = (const sg_api *)(uintptr_t)0x5151;
  const char *const sentinel_version = "untouched";
  sg_get_api_args a = args_for(SG_ABI_MAJOR, SG_ABI_MINOR);
  a.struct_size = offsetof(sg_get_api_args, error);
  a.plugin_abi_version = 0xdeadbeef;
  a.api = sentinel_api;
  a.library_version = sentinel_version;
  char why[128];
  snprintf(why, sizeof why,
           "sg_get_api_v1: args->struct_size is %zu, smaller than ABI 1.0's "
           "%zu",
           a.struct_size, (size_t)SG_V1_0_SIZE_sg_get_api_args);
  EXPECT(NULL, get_api(&a), SG_ERR_STRUCT_SIZE, why);
  ck_assert_uint_eq(a.struct_size, offsetof(sg_get_api_args, error));
  ck_assert_uint_eq(a.plugin_abi_version, 0xdeadbeef);
  ck_assert_ptr_eq(a.api, sentinel_api);
  ck_assert_ptr_eq(a.library_version, sentinel_version);
}
END_TEST

START_TEST(larger_args_from_a_newer_host_are_accepted) {
  struct {
    sg_get_api_args a;
    unsigned char newer_fields[32];
  } big;
  memset(&big, 0xab, sizeof big);
  big.a = args_for(SG_ABI_MAJOR, SG_ABI_MINOR + 1);
  big.a.struct_size = sizeof big;
  ck_assert_int_eq(get_api(&big.a), SG_OK);
  ck_assert_ptr_eq(big.a.api, api);
  for (size_t i = 0; i < sizeof big.newer_fields; i++) {
    ck_assert_uint_eq(big.newer_fields[i], 0xab);
  }
}
END_TEST

Suite *negotiation_suite(void) {
  Suite *s = suite_create("negotiation");
  TCase *t = tcase_create("matrix");
  tcase_add_loop_test(t, same_major_any_minor_is_accepted, 0,
                      sizeof same_major_minors / sizeof *same_major_minors);
  tcase_add_loop_test(t, other_majors_are_refused_with_a_reason, 0,
                      sizeof other_majors / sizeof *other_majors);
  tcase_add_test(t, the_table_reports_its_version_and_size);
  tcase_add_test(t, every_table_entry_is_non_null);
  tcase_add_test(t, null_args_are_refused);
  tcase_add_test(t, args_smaller_than_v1_0_are_refused_untouched);
  tcase_add_test(t, larger_args_from_a_newer_host_are_accepted);
  suite_add_tcase(s, t);
  return s;
}
