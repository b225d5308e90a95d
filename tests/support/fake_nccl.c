#include "fake_nccl.h"

#include <string.h>

fake_nccl fake;

void fake_nccl_reset(int32_t nranks, int32_t rank) {
  memset(&fake, 0, sizeof fake);
  fake.version = 22809;
  fake.nranks = nranks;
  fake.rank = rank;
}

sg_nccl_functions fake_nccl_table(void) {
  sg_nccl_functions t;
  memset(&t, 0, sizeof t);
  t.struct_size = sizeof t;
  t.all_reduce = fake_all_reduce;
  t.comm_get_async_error = fake_get_async_error;
  t.comm_abort = fake_abort;
  t.get_version = fake_get_version;
  t.comm_count = fake_count;
  t.comm_user_rank = fake_user_rank;
  t.comm_cu_device = fake_cu_device;
  t.get_error_string = fake_error_string;
  return t;
}

int32_t fake_all_reduce(const void *send, void *recv, size_t count,
                        int32_t datatype, int32_t op, sg_nccl_comm comm,
                        sg_stream stream) {
  fake.calls++;
  if (comm != FAKE_COMM) {
    return FAKE_INVALID_ARGUMENT;
  }
  if (fake.collective == NULL) {
    return FAKE_INVALID_USAGE;
  }
  int32_t r = fake.collective(send, recv, count, datatype, op, stream);
  return r != FAKE_SUCCESS ? r : fake.collective_result;
}

int32_t fake_get_async_error(sg_nccl_comm comm, int32_t *error) {
  fake.async_polls++;
  if (comm != FAKE_COMM) {
    return FAKE_INVALID_ARGUMENT;
  }
  if (fake.pending_polls > 0) {
    fake.pending_polls--;
    *error = FAKE_IN_PROGRESS;
  } else {
    *error = fake.async_error;
  }
  return FAKE_SUCCESS;
}

int32_t fake_abort(sg_nccl_comm comm) {
  fake.aborts++;
  if (fake.on_abort != NULL) {
    fake.on_abort();
  }
  return comm == FAKE_COMM ? FAKE_SUCCESS : FAKE_INVALID_ARGUMENT;
}

int32_t fake_get_version(int32_t *version) {
  *version = fake.version;
  return FAKE_SUCCESS;
}

/* The three communicator queries share their knob and their checks. */
static int32_t query(sg_nccl_comm comm, int32_t *out, int32_t value) {
  if (comm != FAKE_COMM) {
    return FAKE_INVALID_ARGUMENT;
  }
  if (fake.query_result == FAKE_SUCCESS) {
    *out = value;
  }
  return fake.query_result;
}

int32_t fake_count(sg_nccl_comm comm, int32_t *count) {
  return query(comm, count, fake.nranks);
}

int32_t fake_user_rank(sg_nccl_comm comm, int32_t *rank) {
  return query(comm, rank, fake.rank);
}

int32_t fake_cu_device(sg_nccl_comm comm, int32_t *device) {
  return query(comm, device, fake.device);
}

const char *fake_error_string(int32_t result) {
  switch (result) {
    case FAKE_SUCCESS: return "fake: no error";
    case FAKE_INVALID_ARGUMENT: return "fake: invalid argument";
    case FAKE_REMOTE_ERROR: return "fake: a peer rank went away";
    case FAKE_IN_PROGRESS: return "fake: in progress";
    default: return "fake: some error";
  }
}
