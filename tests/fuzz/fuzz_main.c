/* libFuzzer entry points: each input is a sequence of ABI calls (one op
 * byte, then the op's own bytes) on up to two validation-only sessions;
 * whatever is left alive at the end is destroyed. The plugin's sources are
 * compiled into this program with the same sanitizers (tests/fuzz/run.sh). */
#define _POSIX_C_SOURCE 200809L /* unsetenv */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

/* The op byte's meaning (seeds.py names them in this order). */
static const fz_op ops[] = {
    fz_op_get_api,          fz_op_create,          fz_op_destroy,
    fz_op_last_error,       fz_op_status_string,   fz_op_race,
    fz_op_register_fp8,     fz_op_register_static, fz_op_pre_capture,
    fz_op_capture_begin,    fz_op_capture_end,     fz_op_invalidate,
    fz_op_refresh,          fz_op_replay,          fz_op_step,
    fz_op_sync,             fz_op_rng_reserve,     fz_op_rng_end_step,
    fz_op_rng_device_state, fz_op_rng_get_state,   fz_op_rng_set_state,
    fz_op_get_stats,        fz_op_graph_info,      fz_op_dump_graph,
};
#define OPS (sizeof ops / sizeof ops[0])

/* The table once: every entry the plugin's struct_size covers is present. */
static void load_table(void) {
  sg_get_api_args a;
  memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.host_abi_version = SG_ABI_VERSION;
  if (sg_get_api_v1(&a) != SG_OK || a.api == NULL ||
      a.api->struct_size < sizeof(sg_api)) {
    fz_fail("sg_get_api_v1 refused this header's own version");
  }
  const void *const *entry = (const void *const *)&a.api->status_string;
  const void *const *end = (const void *const *)(a.api + 1);
  for (; entry < end; entry++) {
    if (*entry == NULL) {
      fz_fail("the table has a NULL entry at byte %zu",
              (size_t)((const char *)entry - (const char *)a.api));
    }
  }
  fz_api = a.api;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  /* The model assumes the config's log level and graphs enabled. */
  unsetenv("STEPGRAPH_LOG_LEVEL");
  unsetenv("STEPGRAPH_DISABLE");
  load_table();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_in in = {data, size};
  while (in.n > 0) {
    ops[fz_u8(&in) % OPS](&in);
  }
  for (int slot = 0; slot < 2; slot++) {
    fz_destroy_slot(slot); /* destroy is always safe */
  }
  return 0;
}
