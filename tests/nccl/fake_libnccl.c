/* libnccl.so.2 for the loader tests: NCCL's names over the test double
 * (tests/support/fake_nccl.h), a communicator of one rank. Its version is
 * FAKE_NCCL_VERSION when set (read at each call), else 2.28.9. It has no
 * device side: its all-reduce answers ncclInvalidUsage. */
#include <stdlib.h>

#include "fake_nccl.h"

#define EXPORT __attribute__((visibility("default")))

static void setup(void) {
  static int done;
  if (!done) {
    fake_nccl_reset(1, 0);
    done = 1;
  }
  const char *v = getenv("FAKE_NCCL_VERSION");
  if (v != NULL) {
    fake.version = atoi(v);
  }
}

EXPORT int32_t ncclGetVersion(int32_t *version) {
  setup();
  return fake_get_version(version);
}

EXPORT int32_t ncclAllReduce(const void *send, void *recv, size_t count,
                             int32_t datatype, int32_t op, sg_nccl_comm comm,
                             sg_stream stream) {
  setup();
  return fake_all_reduce(send, recv, count, datatype, op, comm, stream);
}

EXPORT int32_t ncclCommGetAsyncError(sg_nccl_comm comm, int32_t *error) {
  setup();
  return fake_get_async_error(comm, error);
}

EXPORT int32_t ncclCommAbort(sg_nccl_comm comm) {
  setup();
  return fake_abort(comm);
}

EXPORT int32_t ncclCommCount(sg_nccl_comm comm, int32_t *count) {
  setup();
  return fake_count(comm, count);
}

EXPORT int32_t ncclCommUserRank(sg_nccl_comm comm, int32_t *rank) {
  setup();
  return fake_user_rank(comm, rank);
}

EXPORT int32_t ncclCommCuDevice(sg_nccl_comm comm, int32_t *device) {
  setup();
  return fake_cu_device(comm, device);
}

EXPORT const char *ncclGetErrorString(int32_t result) {
  return fake_error_string(result);
}
