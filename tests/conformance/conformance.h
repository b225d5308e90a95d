/* Shared by the conformance suites: the plugin loaded through dlopen, the
 * validation-only sessions the suites test through, and assertions on a
 * status plus the detail message that must explain it. */
#ifndef SG_CONFORMANCE_H
#define SG_CONFORMANCE_H

#include <check.h>
#include <string.h>

#include "stepgraph.h"

extern const sg_api *api;
extern sg_get_api_v1_fn get_api;

/* Stand-ins for device memory and streams: validation-only sessions never
 * dereference them. */
#define FAKE_STREAM ((sg_stream)(uintptr_t)0x5000)
#define FAKE_DEVICE(offset) ((void *)(uintptr_t)(0x10000000u + (offset)))

sg_session_config validation_config(void);
sg_session *open_validation(void); /* asserts success */
sg_session *open_config(const sg_session_config *cfg); /* likewise */

/* Asserts `got == want` and, for failures, that the detail message (the
 * session's, or the thread's when s is NULL) contains `needle`. */
void expect_status_at(sg_session *s, sg_status got, sg_status want,
                      const char *needle, const char *file, int line);
#define EXPECT(s, call, want, needle) \
  expect_status_at((s), (call), (want), (needle), __FILE__, __LINE__)

/* A valid FP8 descriptor with a master (FP32), laid out in fake device
 * memory at slot `k` so that descriptors with different k never overlap. */
sg_fp8_param_desc fp8_desc(uint32_t k, uint64_t rows, uint64_t cols);

Suite *exports_suite(void);
Suite *negotiation_suite(void);
Suite *layout_suite(void);
Suite *struct_size_suite(void);
Suite *arguments_suite(void);
Suite *states_suite(void);
Suite *session_suite(void);
Suite *fp8_registry_suite(void);
Suite *environment_suite(void);
Suite *streams_suite(void);
Suite *static_sources_suite(void);
Suite *step_plan_suite(void);
Suite *rng_validation_suite(void);
Suite *hardening_suite(void);
Suite *conditional_suite(void);
Suite *recipes_suite(void);
Suite *nccl_config_suite(void);

#endif
