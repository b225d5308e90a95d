/* status_string: one static sentence per status code. */
#include "entries.h"

static const char *const status_strings[SG_STATUS_COUNT] = {
    [SG_OK] = "success",
    [SG_RUN_EAGERLY] = "run this step eagerly: no graph is used for it",
    [SG_ERR_INVALID_ARGUMENT] = "invalid argument",
    [SG_ERR_STRUCT_SIZE] = "struct_size is smaller than any known version",
    [SG_ERR_VERSION] = "ABI major version mismatch",
    [SG_ERR_INVALID_STATE] = "not allowed in the session's current state",
    [SG_ERR_NOT_SUPPORTED] = "not supported by this version of the plugin",
    [SG_ERR_NO_DEVICE] = "needs a GPU, and this is a validation-only session",
    [SG_ERR_CUDA] = "a CUDA call failed",
    [SG_ERR_OUT_OF_MEMORY] = "out of memory",
    [SG_ERR_CAPACITY] = "a table sized by the session config is full",
    [SG_ERR_CAPTURE_FAILED] = "stream capture failed",
    [SG_ERR_NOT_FOUND] = "no graph for this key",
    [SG_ERR_NCCL] = "an NCCL call failed",
    [SG_ERR_TIMEOUT] = "timed out",
    [SG_ERR_IO] = "file could not be written",
    [SG_ERR_INTERNAL] = "internal error in the plugin",
};

const char *sg_status_string(sg_status status) {
  if (status < 0 || status >= SG_STATUS_COUNT || !status_strings[status]) {
    return "unknown status";
  }
  return status_strings[status];
}
