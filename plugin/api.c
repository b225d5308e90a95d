/* The exported entry point: ABI negotiation and the function table. */
#include <stdio.h>

#include "args.h"
#include "entries.h"
#include "error.h"

#define PLUGIN_ABI_VERSION SG_ABI_VERSION

static const sg_api api_table = {
    .struct_size = sizeof(sg_api),
    .abi_version = PLUGIN_ABI_VERSION,
    .library_version = SG_LIBRARY_VERSION,
    .status_string = sg_status_string,
    .last_error = sg_last_error,
    .session_create = sg_session_create,
    .session_destroy = sg_session_destroy,
    .register_fp8_params = sg_register_fp8_params,
    .register_static_buffers = sg_register_static_buffers,
    .pre_capture = sg_pre_capture,
    .capture_begin = sg_capture_begin,
    .capture_end = sg_capture_end,
    .invalidate = sg_invalidate,
    .post_optimizer_step = sg_post_optimizer_step,
    .replay = sg_replay,
    .step = sg_step,
    .rng_reserve = sg_rng_reserve,
    .rng_end_step = sg_rng_end_step,
    .rng_device_state = sg_rng_device_state_get,
    .rng_get_state = sg_rng_get_state,
    .rng_set_state = sg_rng_set_state,
    .get_stats = sg_get_stats,
    .graph_info = sg_graph_info_get,
    .dump_graph = sg_dump_graph,
    .sync = sg_sync,
    .step_plan = sg_step_plan_get,
    .guard_begin = sg_guard_begin,
    .guard_end = sg_guard_end,
    .loop_begin = sg_loop_begin,
    .loop_next = sg_loop_next,
    .check_transposes = sg_check_transposes,
    .transpose_report = sg_transpose_report_get,
};

/* Fails get_api with a reason in the thread's message and args->error. */
static sg_status refuse(sg_get_api_args *args, sg_status code,
                        const char *reason) {
  sg_error_set(NULL, reason);
  if (args != NULL) {
    args->error = sg_error_thread_message();
  }
  return code;
}

SG_EXPORT sg_status sg_get_api_v1(sg_get_api_args *args) {
  char reason[SG_ERROR_CAPACITY];
  if (args == NULL) {
    return refuse(NULL, SG_ERR_INVALID_ARGUMENT, "sg_get_api_v1: args is NULL");
  }
  if (args->struct_size < SG_V1_0_SIZE_sg_get_api_args) {
    snprintf(reason, sizeof reason,
             "sg_get_api_v1: args->struct_size is %zu, smaller than ABI "
             "1.0's %zu",
             args->struct_size, (size_t)SG_V1_0_SIZE_sg_get_api_args);
    /* Too small to hold the error field: the reason is in last_error. */
    sg_error_set(NULL, reason);
    return SG_ERR_STRUCT_SIZE;
  }
  args->plugin_abi_version = PLUGIN_ABI_VERSION;
  args->library_version = SG_LIBRARY_VERSION;
  args->api = NULL;
  args->error = NULL;
  uint32_t host_major = SG_ABI_VERSION_MAJOR(args->host_abi_version);
  if (host_major != SG_ABI_MAJOR) {
    snprintf(reason, sizeof reason,
             "sg_get_api_v1: the host was built against stepgraph ABI "
             "%u.%u, this plugin implements ABI %u.%u; majors must match "
             "(load libstepgraph.so.%u)",
             host_major, SG_ABI_VERSION_MINOR(args->host_abi_version),
             SG_ABI_MAJOR, SG_ABI_MINOR, host_major);
    return refuse(args, SG_ERR_VERSION, reason);
  }
  args->api = &api_table;
  return SG_OK;
}
