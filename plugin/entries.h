/* Every entry of the function table, one declaration each; api.c builds the
 * table from them. Each is defined in the file of its responsibility. */
#ifndef SG_ENTRIES_H
#define SG_ENTRIES_H

#include "stepgraph.h"

/* lifecycle.c, entry.c, status.c */
sg_status sg_session_create(const sg_session_config *config,
                            sg_session **session_out);
void sg_session_destroy(sg_session *session);
sg_status sg_last_error(sg_session *session, char *buf, size_t buf_size,
                        size_t *needed_out);
const char *sg_status_string(sg_status status);

/* registration.c */
sg_status sg_register_fp8_params(sg_session *s,
                                 const sg_fp8_param_desc *params,
                                 uint32_t count, uint32_t *first_index_out);
sg_status sg_register_static_buffers(sg_session *s,
                                     const sg_static_buffer_desc *buffers,
                                     uint32_t count, uint32_t *first_index_out);

/* pre_capture.c, capture.c */
sg_status sg_pre_capture(sg_session *s, sg_stream stream);
sg_status sg_capture_begin(sg_session *s, const sg_capture_args *args);
sg_status sg_capture_end(sg_session *s, const sg_capture_args *args);
sg_status sg_invalidate(sg_session *s, uint64_t key);

/* refresh.c */
sg_status sg_post_optimizer_step(sg_session *s, sg_stream stream,
                                 const sg_refresh_args *args);

/* replay.c, driver.c */
sg_status sg_replay(sg_session *s, const sg_replay_args *args);
sg_status sg_step(sg_session *s, sg_step_args *args);
sg_status sg_step_plan_get(sg_session *s, sg_step_plan *plan);

/* rng_entries.c */
sg_status sg_rng_reserve(sg_session *s, uint64_t count, uint64_t *offset_out);
sg_status sg_rng_end_step(sg_session *s, sg_stream stream);
sg_status sg_rng_device_state_get(sg_session *s, sg_rng_device_state *out);
sg_status sg_rng_get_state(sg_session *s, sg_stream stream, sg_rng_state *out);
sg_status sg_rng_set_state(sg_session *s, sg_stream stream,
                           const sg_rng_state *state);

/* stats.c */
sg_status sg_get_stats(sg_session *s, sg_stats *out);
sg_status sg_graph_info_get(sg_session *s, uint64_t key, sg_graph_info *out);
sg_status sg_dump_graph(sg_session *s, uint64_t key, const char *path);

/* sync.c */
sg_status sg_sync(sg_session *s, sg_stream stream, uint32_t timeout_ms);

/* cond_entries.c (ABI 1.1) */
sg_status sg_guard_begin(sg_session *s, sg_stream stream, const int32_t *flag,
                         uint32_t *run_body_out);
sg_status sg_guard_end(sg_session *s, sg_stream stream);
sg_status sg_loop_begin(sg_session *s, sg_stream stream,
                        const int32_t *trip_count, const uint32_t **index_out,
                        uint32_t *again_out);
sg_status sg_loop_next(sg_session *s, sg_stream stream, uint32_t *again_out);

/* transposes.c (ABI 1.1) */
sg_status sg_check_transposes(sg_session *s, sg_stream stream);
sg_status sg_transpose_report_get(sg_session *s, sg_stream stream,
                                  sg_transpose_report *out);

#endif
