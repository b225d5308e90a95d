/* Ops on the table and the session lifecycle: sg_get_api_v1,
 * session_create/destroy, last_error, status_string, and a two-thread race
 * on one session's log callback. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

void fz_op_get_api(fz_in *in) {
  static const uint32_t versions[] = {SG_ABI_VERSION, (1u << 16) | 7u, 0,
                                      2u << 16};
  const bool null_args = fz_u8(in) % 16 == 0;
  const size_t declared = fz_struct_size(in, sizeof(sg_get_api_args));
  const uint8_t v = fz_u8(in) % 5;
  const uint32_t version = v < 4 ? versions[v] : fz_u32(in);
  fz_out o = fz_out_alloc(declared, sizeof(sg_get_api_args));
  sg_get_api_args *a = (sg_get_api_args *)o.p;
  const bool sized = declared >= SG_V1_0_SIZE_sg_get_api_args;
  if (sized) {
    a->host_abi_version = version;
  }
  const bool major_ok = SG_ABI_VERSION_MAJOR(version) == SG_ABI_MAJOR;
  fz_call c;
  fz_begin(&c, "sg_get_api_v1", NULL,
           null_args ? FZ_IA
           : !sized  ? FZ_SS
           : major_ok ? FZ_ONE(SG_OK)
                      : FZ_ONE(SG_ERR_VERSION));
  sg_status st = sg_get_api_v1(null_args ? NULL : a);
  fz_end(&c, st);
  if (sized && !null_args) {
    if (st == SG_OK && (a->api != fz_api || a->error != NULL ||
                        a->library_version == NULL)) {
      fz_fail("sg_get_api_v1 succeeded with api %p (table %p), error %p",
              (const void *)a->api, (const void *)fz_api,
              (const void *)a->error);
    }
    if (st == SG_ERR_VERSION &&
        (a->api != NULL || a->error == NULL || a->error[0] == '\0')) {
      fz_fail("sg_get_api_v1 refused the version without an error string");
    }
  }
  fz_out_check_free(&o, "sg_get_api_v1");
}

static const uint32_t capacities[] = {0, 1, 2, 3, 4, 8, 64, 4096};

sg_nccl_functions fz_nccl_table;

static const size_t table_fields[] = {
    offsetof(sg_nccl_functions, all_reduce),
    offsetof(sg_nccl_functions, comm_get_async_error),
    offsetof(sg_nccl_functions, comm_abort),
    offsetof(sg_nccl_functions, get_version),
    offsetof(sg_nccl_functions, comm_count),
    offsetof(sg_nccl_functions, comm_user_rank),
    offsetof(sg_nccl_functions, comm_cu_device),
    offsetof(sg_nccl_functions, get_error_string)};

/* The communicator's table and what the NCCL test double answers. */
static void mutate_nccl(uint64_t v) {
  const uint64_t w = v >> 3;
  void *null = NULL;
  switch (v % 8) {
    case 0:
      fz_nccl_table.struct_size = (size_t)(w % (2 * sizeof fz_nccl_table));
      break;
    case 1: memcpy((char *)&fz_nccl_table + table_fields[w % 8], &null,
                   sizeof null); break;
    case 2: fake.version = (int32_t)w; break;
    case 3: fake.rank = (int32_t)(w % 8) - 1; break;
    case 4: fake.nranks = (int32_t)(w % 8) - 1; break;
    case 5: fake.device = (int32_t)(w % 4); break;
    default: fake.query_result = (int32_t)(w % 8); break;
  }
}

/* A communicator is always the test double's with its table: a garbage
 * communicator or table is a host bug no plugin can see (NCCL would
 * dereference it). */
static void mutate_config(fz_in *in, sg_session_config *c) {
  const uint64_t v = fz_number(in);
  switch (fz_u8(in) % 12) {
    case 0: c->device = (int32_t)v; break;
    case 1: c->flags |= (uint32_t)v; break;
    case 2: c->capture_mode = (uint32_t)v; break;
    case 3: c->log_level = (int32_t)v; break;
    case 4: c->reserved0 = (uint32_t)v; break;
    case 5:
      c->nccl_comm = v & 1 ? FAKE_COMM : NULL;
      c->nccl = &fz_nccl_table;
      break;
    case 6: mutate_nccl(v); break;
    case 7: c->param_capacity = (uint32_t)v; break;
    case 8: c->static_capacity = (uint32_t)v; break;
    case 9: c->nccl_timeout_ms = (uint32_t)v; break;
    case 10: c->nccl_on_timeout = (uint32_t)v; break;
    default: c->graph_mem_budget = v; break;
  }
}

/* A validation-only config, edited a few times. Capacities the plugin
 * accepts but that would cost the fuzzer hundreds of MB per input are cut
 * to 8192 (the refusal past the maximum is still fuzzed). */
static sg_session_config decode_config(fz_in *in, fz_model *m,
                                       size_t declared) {
  sg_session_config c;
  memset(&c, 0, sizeof c);
  c.struct_size = declared;
  c.flags = SG_SESSION_VALIDATION_ONLY;
  c.param_capacity = capacities[fz_u8(in) % 8];
  c.static_capacity = capacities[fz_u8(in) % 8];
  c.log_level = fz_u8(in) % 5;
  const uint8_t log_sel = fz_u8(in);
  c.warmup_steps = fz_u8(in);
  c.rng_seed = fz_number(in);
  fake_nccl_reset(4, 1);
  fz_nccl_table = fake_nccl_table();
  for (int k = fz_u8(in) % 4; k > 0; k--) {
    mutate_config(in, &c);
  }
  if (c.param_capacity > 8192 && c.param_capacity <= FZ_MAX_PARAM_CAPACITY) {
    c.param_capacity = 8192;
  }
  /* stderr only when nothing is logged: the fuzzer's output stays clean. */
  c.log_fn = c.log_level == SG_LOG_OFF && (log_sel & 1) ? NULL : fz_log;
  c.log_user = m;
  m->log_level = c.log_level;
  m->communicator = c.nccl_comm != NULL;
  m->fp8_capacity = c.param_capacity ? c.param_capacity : 4096;
  m->static_capacity = c.static_capacity ? c.static_capacity : 256;
  return c;
}

void fz_destroy_slot(int slot) {
  fz_call c;
  fz_begin(&c, "session_destroy", NULL, FZ_ONE(SG_OK));
  fz_model *m = fz_sessions[slot];
  fz_api->session_destroy(fz_handle(m));
  if (m != NULL) {
    fz_sessions[slot] = NULL;
    c.before[slot + 1][0] = '\0';
    fz_model_free(m);
  }
  fz_end(&c, SG_OK);
}

void fz_op_create(fz_in *in) {
  const int slot = fz_u8(in) % 2;
  const size_t declared = fz_struct_size(in, sizeof(sg_session_config));
  const bool null_out = fz_u8(in) % 32 == 0;
  fz_model *m = fz_alloc(sizeof *m);
  memset(m, 0, sizeof *m);
  const sg_session_config cfg = decode_config(in, m, declared);
  fz_destroy_slot(slot);
  sg_session_config *host = fz_struct_in(&cfg, sizeof cfg, declared);
  sg_session *s = (sg_session *)(uintptr_t)0xdead;
  fz_call c;
  fz_begin(&c, "session_create", NULL,
           null_out ? FZ_IA
           : declared < SG_V1_0_SIZE_sg_session_config
               ? FZ_SS
           : fz_config_valid(&cfg)
               ? FZ_ONE(SG_OK)
               : FZ_IA | FZ_ONE(SG_ERR_NOT_SUPPORTED) |
                     (cfg.nccl_comm != NULL
                          ? FZ_SS | FZ_ONE(SG_ERR_NCCL)
                          : 0));
  sg_status st = fz_api->session_create(host, null_out ? NULL : &s);
  fz_end(&c, st);
  free(host);
  if (!null_out && (st == SG_OK) != (s != NULL)) {
    fz_fail("session_create returned %d with *session_out %p", (int)st,
            (void *)s);
  }
  if (st != SG_OK) {
    fz_model_free(m);
    return;
  }
  m->s = s;
  fz_sessions[slot] = m;
}

void fz_op_destroy(fz_in *in) {
  const int slot = fz_u8(in) % 3;
  if (slot == 2) {
    fz_call c;
    fz_begin(&c, "session_destroy", NULL, FZ_ONE(SG_OK));
    fz_api->session_destroy(NULL);
    fz_end(&c, SG_OK);
    return;
  }
  fz_destroy_slot(slot);
}

/* last_error's buf: buf_size bytes of the host's, then a canary. */
#define BUF_CANARY 32

void fz_op_last_error(fz_in *in) {
  static const size_t sizes[] = {0, 1, 2, 3, 8, 16, 64, 1023, 1024, 1025, 4096};
  fz_model *m = fz_pick_session(in, NULL);
  const size_t size = sizes[fz_u8(in) % 11];
  const bool null_buf = fz_u8(in) % 4 == 0, null_needed = fz_u8(in) % 3 == 0;
  char known[FZ_MESSAGE_MAX];
  fz_message(m, known, sizeof known);
  char *text = fz_alloc(size + BUF_CANARY);
  memset(text, 0xA5, size + BUF_CANARY);
  size_t needed = SIZE_MAX;
  fz_call c;
  const bool refused = null_buf && size > 0;
  fz_begin(&c, "last_error", m,
           refused ? FZ_IA : FZ_ONE(SG_OK));
  sg_status st = fz_api->last_error(fz_handle(m), null_buf ? NULL : text, size,
                                    null_needed ? NULL : &needed);
  fz_end(&c, st);
  const size_t len = strlen(known);
  if (st == SG_OK && !null_needed && needed != len) {
    fz_fail("last_error: needed %zu for a %zu-byte message", needed, len);
  }
  if (st == SG_OK && !null_buf && size > 0) {
    const size_t n = len < size - 1 ? len : size - 1;
    if (memcmp(text, known, n) != 0 || text[n] != '\0') {
      fz_fail("last_error(buf_size %zu) did not copy \"%s\" truncated", size,
              known);
    }
  }
  for (size_t i = size; i < size + BUF_CANARY; i++) {
    if ((uint8_t)text[i] != 0xA5) {
      fz_fail("last_error wrote byte %zu of a %zu-byte buf", i, size);
    }
  }
  free(text);
}

void fz_op_status_string(fz_in *in) {
  const int32_t code = (int32_t)fz_number(in);
  fz_call c;
  fz_begin(&c, "status_string", NULL, FZ_ONE(SG_OK));
  const char *text = fz_api->status_string(code);
  fz_end(&c, SG_OK);
  const bool known = code >= 0 && code < SG_STATUS_COUNT;
  if (text == NULL || text[0] == '\0' ||
      (strcmp(text, "unknown status") == 0) == known) {
    fz_fail("status_string(%d) is \"%s\"", (int)code, text ? text : "(null)");
  }
}

/* --- The race: log_fn is never concurrent for one session --------------- */

typedef struct racer {
  sg_session *s;
  uint32_t calls;
  uint8_t kind;
} racer;

/* Entries that fail (and so log at SG_LOG_ERROR) whatever the state. */
static void *race(void *arg) {
  const racer *r = arg;
  uint64_t offset;
  for (uint32_t i = 0; i < r->calls; i++) {
    switch (r->kind) {
      case 0: (void)fz_api->pre_capture(r->s, NULL); break;
      case 1: (void)fz_api->register_fp8_params(r->s, NULL, 1, NULL); break;
      case 2: (void)fz_api->rng_reserve(r->s, 0, &offset); break;
      default: (void)fz_api->last_error(r->s, NULL, 4, NULL); break;
    }
  }
  return NULL;
}

void fz_op_race(fz_in *in) {
  fz_model *m = fz_pick_session(in, NULL);
  racer r = {fz_handle(m), 1u + fz_u8(in) % 32, 0};
  r.kind = fz_u8(in) % 4;
  if (m == NULL || m->log_level < SG_LOG_ERROR) {
    return; /* nothing would be logged: no race to look at */
  }
  atomic_store(&fz_log_linger, true);
  pthread_t other;
  if (pthread_create(&other, NULL, race, &r) != 0) {
    fz_fail("host: pthread_create failed");
  }
  racer mine = r;
  mine.kind = 3; /* last_error's own failure */
  race(&mine);
  pthread_join(other, NULL);
  atomic_store(&fz_log_linger, false);
  /* fz_log aborts on an overlap; the detail is left as the last loser set
   * it, which the next call's snapshot takes as it is. */
}
