/* The layout ABI 1.0 promises a host on LP64, written down once from the
 * 1.0 header and never regenerated: every field's offset and each struct's
 * 1.0 size, the smallest struct_size the plugin accepts. The header's own
 * offsets and SG_V1_0_SIZE_<type> are checked against these numbers, so a
 * header edit that moved a field or a minimum fails here, although the
 * plugin, built from the same header, would agree with itself.
 *
 * The sizes are what sizeof() gave in the 1.0 header. The header defines
 * SG_V1_0_SIZE_<type> as offsetof + sizeof of the struct's last 1.0 field
 * (SG_STRUCT_SIZE_THROUGH), so the size test also shows that no 1.0 struct
 * ends in padding: a 1.0 host's sizeof() is exactly the minimum, which is
 * the size the struct_size suite shows accepted. A later header's sizeof()
 * may only be larger. */
#include <stddef.h>

#include "conformance.h"

_Static_assert(sizeof(void *) == 8 && sizeof(long) == 8,
               "these are the LP64 numbers of ABI 1.0");

typedef struct offset_promise {
  const char *field;
  size_t offset;   /* in this header */
  size_t promised; /* ABI 1.0's, LP64 */
} offset_promise;

#define AT(type, field, off) {#type "." #field, offsetof(type, field), off}

static const offset_promise offsets[] = {
    AT(sg_nccl_functions, struct_size, 0),
    AT(sg_nccl_functions, all_reduce, 8),
    AT(sg_nccl_functions, comm_get_async_error, 16),
    AT(sg_nccl_functions, comm_abort, 24),
    AT(sg_session_config, struct_size, 0),
    AT(sg_session_config, device, 8),
    AT(sg_session_config, flags, 12),
    AT(sg_session_config, capture_mode, 16),
    AT(sg_session_config, warmup_steps, 20),
    AT(sg_session_config, param_capacity, 24),
    AT(sg_session_config, static_capacity, 28),
    AT(sg_session_config, log_level, 32),
    AT(sg_session_config, reserved0, 36),
    AT(sg_session_config, log_fn, 40),
    AT(sg_session_config, log_user, 48),
    AT(sg_session_config, rng_seed, 56),
    AT(sg_session_config, graph_mem_budget, 64),
    AT(sg_session_config, nccl_comm, 72),
    AT(sg_session_config, nccl, 80),
    AT(sg_fp8_param_desc, struct_size, 0),
    AT(sg_fp8_param_desc, format, 8),
    AT(sg_fp8_param_desc, master_dtype, 12),
    AT(sg_fp8_param_desc, rows, 16),
    AT(sg_fp8_param_desc, cols, 24),
    AT(sg_fp8_param_desc, data, 32),
    AT(sg_fp8_param_desc, ld_data, 40),
    AT(sg_fp8_param_desc, transpose, 48),
    AT(sg_fp8_param_desc, ld_transpose, 56),
    AT(sg_fp8_param_desc, master, 64),
    AT(sg_fp8_param_desc, ld_master, 72),
    AT(sg_fp8_param_desc, scale, 80),
    AT(sg_fp8_param_desc, scale_inv, 88),
    AT(sg_fp8_param_desc, amax, 96),
    AT(sg_fp8_param_desc, range_begin, 104),
    AT(sg_fp8_param_desc, range_end, 112),
    AT(sg_fp8_param_desc, group, 120),
    AT(sg_fp8_param_desc, reserved0, 124),
    AT(sg_static_buffer_desc, struct_size, 0),
    AT(sg_static_buffer_desc, data, 8),
    AT(sg_static_buffer_desc, bytes, 16),
    AT(sg_capture_args, struct_size, 0),
    AT(sg_capture_args, key, 8),
    AT(sg_capture_args, stream, 16),
    AT(sg_capture_args, capture_mode, 24),
    AT(sg_capture_args, flags, 28),
    AT(sg_replay_args, struct_size, 0),
    AT(sg_replay_args, key, 8),
    AT(sg_replay_args, stream, 16),
    AT(sg_replay_args, static_sources, 24),
    AT(sg_replay_args, static_source_count, 32),
    AT(sg_replay_args, flags, 36),
    AT(sg_refresh_args, struct_size, 0),
    AT(sg_refresh_args, mode, 8),
    AT(sg_refresh_args, group, 12),
    AT(sg_refresh_args, noop_flag, 16),
    AT(sg_refresh_args, flags, 24),
    AT(sg_refresh_args, reserved0, 28),
    AT(sg_step_context, struct_size, 0),
    AT(sg_step_context, session, 8),
    AT(sg_step_context, key, 16),
    AT(sg_step_context, step_index, 24),
    AT(sg_step_context, phase, 32),
    AT(sg_step_context, reserved0, 36),
    AT(sg_step_args, struct_size, 0),
    AT(sg_step_args, key, 8),
    AT(sg_step_args, stream, 16),
    AT(sg_step_args, fn, 24),
    AT(sg_step_args, user, 32),
    AT(sg_step_args, outcome_out, 40),
    AT(sg_step_args, reserved0, 44),
    AT(sg_rng_state, struct_size, 0),
    AT(sg_rng_state, seed, 8),
    AT(sg_rng_state, offset, 16),
    AT(sg_rng_device_state, struct_size, 0),
    AT(sg_rng_device_state, seed, 8),
    AT(sg_rng_device_state, base_offset, 16),
    AT(sg_stats, struct_size, 0),
    AT(sg_stats, captures, 8),
    AT(sg_stats, capture_failures, 16),
    AT(sg_stats, exec_updates, 24),
    AT(sg_stats, instantiations, 32),
    AT(sg_stats, replays, 40),
    AT(sg_stats, eager_runs, 48),
    AT(sg_stats, invalidations, 56),
    AT(sg_stats, evictions, 64),
    AT(sg_stats, refreshes, 72),
    AT(sg_stats, graphs, 80),
    AT(sg_stats, graph_nodes, 88),
    AT(sg_stats, graph_alloc_bytes, 96),
    AT(sg_stats, fp8_params, 104),
    AT(sg_stats, static_buffers, 112),
    AT(sg_stats, capture_ms, 120),
    AT(sg_stats, instantiate_ms, 128),
    AT(sg_graph_info, struct_size, 0),
    AT(sg_graph_info, nodes, 8),
    AT(sg_graph_info, alloc_bytes, 16),
    AT(sg_graph_info, replays, 24),
    AT(sg_graph_info, eager_only, 32),
    AT(sg_graph_info, reserved0, 36),
    AT(sg_get_api_args, struct_size, 0),
    AT(sg_get_api_args, host_abi_version, 8),
    AT(sg_get_api_args, plugin_abi_version, 12),
    AT(sg_get_api_args, api, 16),
    AT(sg_get_api_args, library_version, 24),
    AT(sg_get_api_args, error, 32),
    AT(sg_api, struct_size, 0),
    AT(sg_api, abi_version, 8),
    AT(sg_api, reserved0, 12),
    AT(sg_api, library_version, 16),
    AT(sg_api, status_string, 24),
    AT(sg_api, last_error, 32),
    AT(sg_api, session_create, 40),
    AT(sg_api, session_destroy, 48),
    AT(sg_api, register_fp8_params, 56),
    AT(sg_api, register_static_buffers, 64),
    AT(sg_api, pre_capture, 72),
    AT(sg_api, capture_begin, 80),
    AT(sg_api, capture_end, 88),
    AT(sg_api, invalidate, 96),
    AT(sg_api, post_optimizer_step, 104),
    AT(sg_api, replay, 112),
    AT(sg_api, step, 120),
    AT(sg_api, rng_reserve, 128),
    AT(sg_api, rng_end_step, 136),
    AT(sg_api, rng_device_state, 144),
    AT(sg_api, rng_get_state, 152),
    AT(sg_api, rng_set_state, 160),
    AT(sg_api, get_stats, 168),
    AT(sg_api, graph_info, 176),
    AT(sg_api, dump_graph, 184),
    AT(sg_api, sync, 192),
};

/* Each struct's 1.0 size: the header's minimum must be it exactly, and the
 * header's struct may grow past it, never shrink below it. */
typedef struct size_promise {
  const char *type;
  size_t minimum;  /* SG_V1_0_SIZE_<type> */
  size_t size_of;  /* sizeof(<type>) in this header */
  size_t promised; /* ABI 1.0's, LP64 */
} size_promise;

#define SIZE(type, bytes) {#type, SG_V1_0_SIZE_##type, sizeof(type), bytes}

static const size_promise sizes[] = {
    SIZE(sg_nccl_functions, 32),
    SIZE(sg_session_config, 88),
    SIZE(sg_fp8_param_desc, 128),
    SIZE(sg_static_buffer_desc, 24),
    SIZE(sg_capture_args, 32),
    SIZE(sg_replay_args, 40),
    SIZE(sg_refresh_args, 32),
    SIZE(sg_step_context, 40),
    SIZE(sg_step_args, 48),
    SIZE(sg_rng_state, 24),
    SIZE(sg_rng_device_state, 24),
    SIZE(sg_stats, 136),
    SIZE(sg_graph_info, 40),
    SIZE(sg_get_api_args, 40),
    SIZE(sg_api, 200),
};

#define COUNT(a) (int)(sizeof a / sizeof *a)

START_TEST(every_field_is_where_1_0_put_it) {
  const offset_promise *p = &offsets[_i];
  ck_assert_msg(p->offset == p->promised,
                "%s is at offset %zu; ABI 1.0 put it at %zu", p->field,
                p->offset, p->promised);
}
END_TEST

START_TEST(every_minimum_size_is_1_0s) {
  const size_promise *p = &sizes[_i];
  ck_assert_msg(p->minimum == p->promised,
                "SG_V1_0_SIZE_%s is %zu; ABI 1.0's size is %zu", p->type,
                p->minimum, p->promised);
  ck_assert_msg(p->size_of >= p->promised,
                "sizeof(%s) is %zu, less than ABI 1.0's %zu", p->type,
                p->size_of, p->promised);
}
END_TEST

Suite *layout_suite(void) {
  Suite *s = suite_create("layout");
  TCase *t = tcase_create("ABI 1.0 on LP64");
  tcase_add_loop_test(t, every_field_is_where_1_0_put_it, 0, COUNT(offsets));
  tcase_add_loop_test(t, every_minimum_size_is_1_0s, 0, COUNT(sizes));
  suite_add_tcase(s, t);
  return s;
}
