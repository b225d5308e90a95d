/* The ABI fuzz target's shared pieces: the input decoder, host structs laid
 * out the way a host of any struct_size would pass them, a model of what
 * abi/stepgraph.h promises for validation-only sessions, and the checks run
 * after every call. Every session the target creates is validation-only:
 * nothing here needs, or touches, a GPU. A broken promise prints what was
 * expected and aborts, which libFuzzer records as a finding. */
#ifndef SG_FUZZ_H
#define SG_FUZZ_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi_layout.h" /* SG_V1_0_SIZE_*: the smallest struct_size accepted */
#include "fake_nccl.h"  /* the communicator a config may name */
#include "stepgraph.h"

/* --- Input ---------------------------------------------------------------- */

/* The fuzzer's bytes, read front to back; past the end every read is 0,
 * so any input decodes to a finite sequence of calls. */
typedef struct fz_in {
  const uint8_t *p;
  size_t n;
} fz_in;

uint8_t fz_u8(fz_in *in);
uint32_t fz_u32(fz_in *in); /* little-endian */
uint64_t fz_u64(fz_in *in);
/* A number that tends to sit on edges: 0, 1, powers of two and their
 * neighbours, UINT32_MAX, UINT64_MAX, ...; small values; or raw bytes. */
uint64_t fz_number(fz_in *in);
/* A struct_size for a struct whose plugin size is `size`: mostly `size`,
 * else smaller, larger, or SIZE_MAX. */
size_t fz_struct_size(fz_in *in, size_t size);
/* A pointer near `base`, or NULL, the top of the address space, another
 * parameter's slot, or random bits. Never dereferenced by anyone. */
uintptr_t fz_pointer(fz_in *in, uintptr_t base);
/* NULL, cudaStreamLegacy, cudaStreamPerThread, a fake stream, or random. */
sg_stream fz_stream(fz_in *in);

/* --- Host memory ---------------------------------------------------------- */

/* malloc/realloc for the target's own needs; never NULL (aborts). */
void *fz_alloc(size_t bytes);
void *fz_realloc(void *p, size_t bytes);

/* An input struct as a host whose struct_size is `declared` passes it: the
 * heap block holds exactly the bytes that host owns (ASan reports any read
 * past them), `full` first and filler after. SIZE_MAX-like sizes are
 * capped: the plugin must not read fields it does not know anyway. */
void *fz_struct_in(const void *full, size_t full_size, size_t declared);

/* An output struct: the host's bytes, then a canary that must survive. */
typedef struct fz_out {
  uint8_t *p;
  size_t declared; /* its struct_size */
  size_t owned;    /* bytes the host owns (heap block less the canary) */
  size_t known;    /* the plugin's sizeof: it writes no further */
} fz_out;
fz_out fz_out_alloc(size_t declared, size_t known);
/* Aborts naming `entry` if struct_size changed or a byte past
 * min(declared, known) changed. Frees the block. */
void fz_out_check_free(fz_out *o, const char *entry);

/* --- Model ---------------------------------------------------------------- */

/* Statuses a call may return: a set of bits, one per code. */
typedef uint32_t fz_set;
#define FZ_ONE(st) ((fz_set)1u << (st))
#define FZ_IA FZ_ONE(SG_ERR_INVALID_ARGUMENT)
#define FZ_SS FZ_ONE(SG_ERR_STRUCT_SIZE)
#define FZ_NO_DEVICE FZ_ONE(SG_ERR_NO_DEVICE)

/* The streams every checked stream argument refuses: NULL (the legacy
 * default stream) and cudaStreamLegacy (1). cudaStreamPerThread (2) is
 * accepted since ABI 1.1. */
static inline bool fz_bad_stream(sg_stream s) { return (uintptr_t)s <= 1; }

/* What a struct argument alone must cause: NULL is an invalid argument, a
 * struct_size below ABI 1.0's a struct-size error. */
static inline fz_set fz_struct_errors(bool null, size_t declared, size_t min) {
  return null ? FZ_IA : declared < min ? FZ_SS : 0;
}

/* A memory range a registration claims, [begin, end) exactly (ends are
 * computed in 128 bits so that they cannot wrap). */
typedef struct fz_range {
  unsigned __int128 begin, end;
} fz_range;

typedef struct fz_param {
  uint32_t group;
  bool has_master;
} fz_param;

/* What the target knows a live session must be. */
typedef struct fz_model {
  sg_session *s;
  int32_t log_level;
  bool communicator; /* config.nccl_comm was set (ABI 1.1) */
  uint32_t fp8_capacity, static_capacity;
  fz_param *params;    /* [fp8_count] */
  uint32_t fp8_count;
  fz_range *fp8_ranges; /* every registered W, Wt, master and scalar */
  size_t fp8_ranges_n;
  fz_range *static_ranges; /* [static_count] */
  uint32_t static_count;
  uint64_t rng_offset; /* the step's next rng_reserve offset */
  bool ready;          /* pre_capture succeeded since the last change */
  atomic_int in_log;   /* log_fn calls running now for this session */
} fz_model;

/* The plugin's own limits on config capacities (session.c): not in the
 * header, but refused by name, so the model knows them. */
#define FZ_MAX_PARAM_CAPACITY (1u << 20)
#define FZ_MAX_STATIC_CAPACITY (1u << 16)

/* Whether session_create must accept `cfg` (read as the plugin reads a
 * struct of that struct_size). */
bool fz_config_valid(const sg_session_config *cfg);

/* The NCCL table of a config's communicator (the test double's). */
extern sg_nccl_functions fz_nccl_table;

/* Checks one descriptor as the header (and the plugin's documented
 * refusals: alignment, empty ranges, ends past the address space) say;
 * true with its ranges (up to 6) and kernel facts when it is valid. */
bool fz_fp8_valid(const sg_fp8_param_desc *d, fz_range *ranges, size_t *n,
                  fz_param *param);
bool fz_static_valid(const sg_static_buffer_desc *d, fz_range *range);
/* Any two of ranges[0..n) overlapping. */
bool fz_ranges_overlap(const fz_range *ranges, size_t n);

/* --- Checks --------------------------------------------------------------- */

extern const sg_api *fz_api;
extern fz_model *fz_sessions[2];

/* Prints the broken promise and aborts (a libFuzzer finding). */
_Noreturn void fz_fail(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* One call under check: the detail messages (the thread's and every live
 * session's) are read before it; after it, the status must be in the
 * model's set, a failure must leave a detail starting "<entry>: " where it
 * belongs (the session's, or the thread's for a NULL session), and nothing
 * else may change. A success changes no message at all. */
#define FZ_MESSAGE_MAX 4096 /* longer than any detail the plugin writes */
typedef struct fz_call {
  const char *entry;
  fz_model *m; /* NULL: no session, or a NULL one */
  fz_set expect;
  char before[3][FZ_MESSAGE_MAX]; /* thread, slot 0, slot 1 */
} fz_call;

void fz_begin(fz_call *c, const char *entry, fz_model *m, fz_set expect);
void fz_end(fz_call *c, sg_status st);

/* `expect` for an entry that needs a session: given a NULL one, it must
 * answer SG_ERR_INVALID_ARGUMENT. */
static inline fz_set fz_needs(const fz_model *m, fz_set expect) {
  return m != NULL ? expect : FZ_IA;
}

/* The detail message of m's session (m NULL: the thread's). */
void fz_message(const fz_model *m, char *buf, size_t size);

/* The model session an op names (one byte): one of the two slots, or NULL
 * (an empty slot also gives NULL: the entry is then given a NULL session). */
fz_model *fz_pick_session(fz_in *in, int *slot_out);
sg_session *fz_handle(const fz_model *m);

/* log_fn of every session the target creates (user: its fz_model). */
void fz_log(void *user, int32_t level, const char *message);
/* While set, fz_log lingers in the callback so that an unserialised
 * second caller would meet it (the race op). */
extern atomic_bool fz_log_linger;

/* --- Ops ------------------------------------------------------------------ */

typedef void (*fz_op)(fz_in *in);

void fz_op_get_api(fz_in *in);
void fz_op_create(fz_in *in);
void fz_op_destroy(fz_in *in);
void fz_op_last_error(fz_in *in);
void fz_op_status_string(fz_in *in);
void fz_op_race(fz_in *in);
void fz_op_register_fp8(fz_in *in);
void fz_op_register_static(fz_in *in);
void fz_op_pre_capture(fz_in *in);
void fz_op_capture_begin(fz_in *in);
void fz_op_capture_end(fz_in *in);
void fz_op_invalidate(fz_in *in);
void fz_op_refresh(fz_in *in);
void fz_op_replay(fz_in *in);
void fz_op_step(fz_in *in);
void fz_op_sync(fz_in *in);
void fz_op_rng_reserve(fz_in *in);
void fz_op_rng_end_step(fz_in *in);
void fz_op_rng_device_state(fz_in *in);
void fz_op_rng_get_state(fz_in *in);
void fz_op_rng_set_state(fz_in *in);
void fz_op_get_stats(fz_in *in);
void fz_op_graph_info(fz_in *in);
void fz_op_dump_graph(fz_in *in);

/* Destroys the slot's session (or NULL when empty), checking that no
 * other detail message changes. */
void fz_destroy_slot(int slot);

/* Frees a model (not its session). */
void fz_model_free(fz_model *m);

#endif
