/* register_fp8_params: every invalid descriptor is refused naming the
 * element and field, a refused call registers nothing, accepted calls
 * append. */
#include <stdint.h>

#include "conformance.h"

typedef struct desc_case {
  const char *what;
  void (*edit)(sg_fp8_param_desc *d);
  const char *needle;
} desc_case;

static void bad_format(sg_fp8_param_desc *d) { d->format = 2; }
static void bad_dtype(sg_fp8_param_desc *d) { d->master_dtype = 3; }
static void zero_rows(sg_fp8_param_desc *d) { d->rows = 0; }
static void zero_cols(sg_fp8_param_desc *d) { d->cols = 0; }
static void huge_size(sg_fp8_param_desc *d) { d->rows = d->cols = UINT64_MAX / 2; }
static void null_data(sg_fp8_param_desc *d) { d->data = NULL; }
static void short_ld_data(sg_fp8_param_desc *d) { d->ld_data = d->cols - 1; }
static void null_transpose(sg_fp8_param_desc *d) { d->transpose = NULL; }
static void short_ld_t(sg_fp8_param_desc *d) { d->ld_transpose = d->rows - 1; }
static void huge_ld(sg_fp8_param_desc *d) { d->ld_data = UINT64_MAX / 2; }
static void null_master(sg_fp8_param_desc *d) { d->master = NULL; }
static void short_ld_master(sg_fp8_param_desc *d) { d->ld_master = 1; }
static void odd_master(sg_fp8_param_desc *d) { d->master = (char *)d->master + 2; }
static void null_scale(sg_fp8_param_desc *d) { d->scale = NULL; }
static void null_scale_inv(sg_fp8_param_desc *d) { d->scale_inv = NULL; }
static void null_amax(sg_fp8_param_desc *d) { d->amax = NULL; }
static void odd_amax(sg_fp8_param_desc *d) { d->amax = (float *)((char *)d->amax + 1); }
static void master_without_dtype(sg_fp8_param_desc *d) {
  d->master_dtype = SG_DTYPE_NONE;
}
static void range_outside(sg_fp8_param_desc *d) {
  d->range_begin = 10;
  d->range_end = d->rows * d->cols + 1;
}
static void range_empty(sg_fp8_param_desc *d) {
  d->range_begin = 7;
  d->range_end = 7;
}
static void range_begin_only(sg_fp8_param_desc *d) { d->range_begin = 3; }
static void all_groups(sg_fp8_param_desc *d) { d->group = SG_ALL_GROUPS; }
static void reserved(sg_fp8_param_desc *d) { d->reserved0 = 5; }
static void t_overlaps_w(sg_fp8_param_desc *d) {
  d->transpose = (char *)d->data + 10;
}
static void master_overlaps_w(sg_fp8_param_desc *d) { d->master = d->data; }
static void scale_is_amax(sg_fp8_param_desc *d) { d->scale = d->amax; }
static void scale_inv_in_master(sg_fp8_param_desc *d) {
  d->scale_inv = (float *)d->master + 3;
}

static const desc_case cases[] = {
    {"format", bad_format, "params[1].format is 2"},
    {"master_dtype", bad_dtype, "params[1].master_dtype is 3"},
    {"rows", zero_rows, "params[1].rows is 0"},
    {"cols", zero_cols, "params[1].cols is 0"},
    {"rows*cols", huge_size, "params[1]: rows * cols overflows"},
    {"data", null_data, "params[1].data is NULL"},
    {"ld_data", short_ld_data, "params[1].ld_data is 15, less than the width 16"},
    {"transpose", null_transpose, "params[1].transpose is NULL"},
    {"ld_transpose", short_ld_t, "params[1].ld_transpose is 7"},
    {"span", huge_ld, "params[1].data: its size"},
    {"master", null_master, "params[1].master is NULL"},
    {"ld_master", short_ld_master, "params[1].ld_master is 1"},
    {"master alignment", odd_master, "params[1].master is not aligned"},
    {"scale", null_scale, "params[1].scale is NULL"},
    {"scale_inv", null_scale_inv, "params[1].scale_inv is NULL"},
    {"amax", null_amax, "params[1].amax is NULL"},
    {"amax alignment", odd_amax, "params[1].amax is not 4-byte aligned"},
    {"master without dtype", master_without_dtype, "master_dtype is SG_DTYPE_NONE"},
    {"range outside", range_outside, "params[1]: range [10, 129)"},
    {"range empty", range_empty, "params[1]: range [7, 7)"},
    {"range_begin only", range_begin_only, "params[1].range_begin is 3"},
    {"group", all_groups, "params[1].group is SG_ALL_GROUPS"},
    {"reserved0", reserved, "params[1].reserved0 is 5"},
    {"transpose overlaps data", t_overlaps_w, "params[1].transpose overlaps params[1].data"},
    {"master overlaps data", master_overlaps_w, "params[1].master"},
    {"scale is amax", scale_is_amax, "params[1].scale"},
    {"scale_inv inside master", scale_inv_in_master, "params[1].scale_inv overlaps params[1].master"},
};
#define CASES (int)(sizeof cases / sizeof *cases)

static uint64_t registered(sg_session *s) {
  sg_stats st = {.struct_size = sizeof st};
  ck_assert_int_eq(api->get_stats(s, &st), SG_OK);
  return st.fp8_params;
}

/* The bad descriptor is the second of three, so all-or-none shows. */
START_TEST(bad_descriptor_is_named_and_nothing_is_registered) {
  sg_session *s = open_validation();
  sg_fp8_param_desc d[3] = {fp8_desc(0, 8, 16), fp8_desc(1, 8, 16),
                            fp8_desc(2, 8, 16)};
  cases[_i].edit(&d[1]);
  EXPECT(s, api->register_fp8_params(s, d, 3, NULL), SG_ERR_INVALID_ARGUMENT,
         cases[_i].needle);
  ck_assert_uint_eq(registered(s), 0);
  api->session_destroy(s);
}
END_TEST

START_TEST(overlap_across_descriptors_of_one_call) {
  sg_session *s = open_validation();
  sg_fp8_param_desc d[2] = {fp8_desc(0, 8, 16), fp8_desc(1, 8, 16)};
  d[1].data = (char *)d[0].transpose + 64;
  EXPECT(s, api->register_fp8_params(s, d, 2, NULL), SG_ERR_INVALID_ARGUMENT,
         "params[1].data overlaps params[0].transpose");
  ck_assert_uint_eq(registered(s), 0);
  api->session_destroy(s);
}
END_TEST

START_TEST(overlap_with_an_earlier_registration) {
  sg_session *s = open_validation();
  sg_fp8_param_desc a = fp8_desc(0, 8, 16), b = fp8_desc(1, 8, 16);
  EXPECT(s, api->register_fp8_params(s, &a, 1, NULL), SG_OK, NULL);
  b.amax = (float *)a.master + 1;
  EXPECT(s, api->register_fp8_params(s, &b, 1, NULL), SG_ERR_INVALID_ARGUMENT,
         "params[0].amax overlaps registered param 0's master");
  ck_assert_uint_eq(registered(s), 1);
  api->session_destroy(s);
}
END_TEST

START_TEST(registrations_append_in_order) {
  sg_session *s = open_validation();
  sg_fp8_param_desc a[2] = {fp8_desc(0, 8, 16), fp8_desc(1, 32, 16)};
  sg_fp8_param_desc b[3] = {fp8_desc(2, 1, 1), fp8_desc(3, 1, 4096),
                            fp8_desc(4, 4096, 1)};
  uint32_t first = 99;
  EXPECT(s, api->register_fp8_params(s, a, 2, &first), SG_OK, NULL);
  ck_assert_uint_eq(first, 0);
  EXPECT(s, api->register_fp8_params(s, b, 3, &first), SG_OK, NULL);
  ck_assert_uint_eq(first, 2);
  ck_assert_uint_eq(registered(s), 5);
  api->session_destroy(s);
}
END_TEST

START_TEST(transpose_only_and_bf16_and_sharded_params_are_accepted) {
  sg_session *s = open_validation();
  sg_fp8_param_desc d[3] = {fp8_desc(0, 8, 16), fp8_desc(1, 8, 16),
                            fp8_desc(2, 8, 16)};
  d[0].master_dtype = SG_DTYPE_NONE;
  d[0].master = NULL;
  d[0].scale = NULL;
  d[0].scale_inv = NULL;
  d[0].amax = NULL;
  d[0].format = SG_FP8_E5M2;
  d[1].master_dtype = SG_DTYPE_BF16;
  d[1].ld_data = 20;
  d[1].ld_transpose = 9;
  d[2].range_begin = 13; /* splits a row */
  d[2].range_end = 77;
  d[2].group = 4;
  EXPECT(s, api->register_fp8_params(s, d, 3, NULL), SG_OK, NULL);
  ck_assert_uint_eq(registered(s), 3);
  api->session_destroy(s);
}
END_TEST

START_TEST(capacity_is_enforced_all_or_none) {
  sg_session_config cfg = validation_config();
  cfg.param_capacity = 4;
  sg_session *s = NULL;
  ck_assert_int_eq(api->session_create(&cfg, &s), SG_OK);
  sg_fp8_param_desc d[5];
  for (uint32_t i = 0; i < 5; i++) {
    d[i] = fp8_desc(i, 4, 4);
  }
  EXPECT(s, api->register_fp8_params(s, d, 5, NULL), SG_ERR_CAPACITY,
         "param_capacity 4");
  EXPECT(s, api->register_fp8_params(s, d, 3, NULL), SG_OK, NULL);
  EXPECT(s, api->register_fp8_params(s, d + 3, 2, NULL), SG_ERR_CAPACITY,
         "3 registered + 2 new");
  EXPECT(s, api->register_fp8_params(s, d + 3, 1, NULL), SG_OK, NULL);
  ck_assert_uint_eq(registered(s), 4);
  api->session_destroy(s);
}
END_TEST

/* A newer host's descriptors are larger: the plugin walks the array with
 * their struct_size as the stride. */
START_TEST(array_stride_is_the_hosts_struct_size) {
  struct newer {
    sg_fp8_param_desc d;
    uint64_t appended_field;
  } arr[3];
  for (uint32_t i = 0; i < 3; i++) {
    arr[i].d = fp8_desc(i, 8, 8);
    arr[i].d.struct_size = sizeof arr[i];
    arr[i].appended_field = 0xfeed;
  }
  sg_session *s = open_validation();
  EXPECT(s, api->register_fp8_params(s, &arr[0].d, 3, NULL), SG_OK, NULL);
  ck_assert_uint_eq(registered(s), 3);
  api->session_destroy(s);
}
END_TEST

START_TEST(elements_of_different_sizes_are_refused) {
  sg_session *s = open_validation();
  sg_fp8_param_desc d[2] = {fp8_desc(0, 8, 8), fp8_desc(1, 8, 8)};
  d[1].struct_size = sizeof d[1] + 8;
  EXPECT(s, api->register_fp8_params(s, d, 2, NULL), SG_ERR_STRUCT_SIZE,
         "params[1]->struct_size");
  api->session_destroy(s);
}
END_TEST

Suite *fp8_registry_suite(void) {
  Suite *s = suite_create("fp8_registry");
  TCase *t = tcase_create("validation");
  tcase_add_loop_test(t, bad_descriptor_is_named_and_nothing_is_registered, 0,
                      CASES);
  tcase_add_test(t, overlap_across_descriptors_of_one_call);
  tcase_add_test(t, overlap_with_an_earlier_registration);
  suite_add_tcase(s, t);
  TCase *a = tcase_create("appending");
  tcase_add_test(a, registrations_append_in_order);
  tcase_add_test(a, transpose_only_and_bf16_and_sharded_params_are_accepted);
  tcase_add_test(a, capacity_is_enforced_all_or_none);
  tcase_add_test(a, array_stride_is_the_hosts_struct_size);
  tcase_add_test(a, elements_of_different_sizes_are_refused);
  suite_add_tcase(s, a);
  return s;
}
