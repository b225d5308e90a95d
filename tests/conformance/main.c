/* The ABI conformance suite: the contract of libstepgraph.so.1 as a host
 * sees it through dlopen. Needs no GPU: everything that would touch one goes
 * through validation-only sessions. One test case per promise. */
#include "conformance.h"
#include "sg_load.h"
#include "sg_run_suite.h"

const sg_api *api;
sg_get_api_v1_fn get_api;

sg_session_config validation_config(void) {
  sg_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.struct_size = sizeof cfg;
  cfg.flags = SG_SESSION_VALIDATION_ONLY;
  return cfg;
}

sg_session *open_config(const sg_session_config *cfg) {
  sg_session *s = NULL;
  sg_status st = api->session_create(cfg, &s);
  ck_assert_msg(st == SG_OK, "validation-only session_create: %d", (int)st);
  ck_assert_ptr_nonnull(s);
  return s;
}

sg_session *open_validation(void) {
  sg_session_config cfg = validation_config();
  return open_config(&cfg);
}

void expect_status_at(sg_session *s, sg_status got, sg_status want,
                      const char *needle, const char *file, int line) {
  char detail[1024];
  api->last_error(s, detail, sizeof detail, NULL);
  ck_assert_msg(got == want, "%s:%d: status %d (%s), expected %d (%s); detail: %s",
                file, line, (int)got, api->status_string(got), (int)want,
                api->status_string(want), detail);
  if (want != SG_OK && needle != NULL) {
    ck_assert_msg(strstr(detail, needle) != NULL,
                  "%s:%d: detail \"%s\" does not mention \"%s\"", file, line,
                  detail, needle);
  }
}

sg_fp8_param_desc fp8_desc(uint32_t k, uint64_t rows, uint64_t cols) {
  const uintptr_t slot = (uintptr_t)k << 24; /* 16 MiB per descriptor */
  sg_fp8_param_desc d;
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.format = SG_FP8_E4M3;
  d.master_dtype = SG_DTYPE_FP32;
  d.rows = rows;
  d.cols = cols;
  d.data = FAKE_DEVICE(slot);
  d.ld_data = cols;
  d.transpose = FAKE_DEVICE(slot + 0x200000);
  d.ld_transpose = rows;
  d.master = FAKE_DEVICE(slot + 0x400000);
  d.ld_master = cols;
  d.scale = FAKE_DEVICE(slot + 0xF00000);
  d.scale_inv = FAKE_DEVICE(slot + 0xF00010);
  d.amax = FAKE_DEVICE(slot + 0xF00020);
  d.group = 0;
  return d;
}

int main(void) {
  sg_loaded l = sg_test_load();
  api = l.api;
  get_api = l.get_api;
  Suite *const suites[] = {exports_suite(),     negotiation_suite(),
                           layout_suite(),      struct_size_suite(),
                           arguments_suite(),   states_suite(),
                           session_suite(),     fp8_registry_suite(),
                           environment_suite(), streams_suite(),
                           static_sources_suite(), step_plan_suite(),
                           rng_validation_suite(), hardening_suite(),
                           conditional_suite(), recipes_suite(),
                           nccl_config_suite()};
  return sg_run_suites(suites, sizeof suites / sizeof *suites, CK_FORK_GETENV);
}
