/* NVTX ranges around the plugin's phases (pre_capture, capture, replay,
 * refresh), for Nsight Systems. NVTX v3 is header-only; without a tool
 * attached each call is an indirect call to an empty function. */
#ifndef SG_NVTX_H
#define SG_NVTX_H

#include <stdint.h>

#include <nvtx3/nvToolsExt.h>

static inline void sg_nvtx_pop_(const int *unused) {
  (void)unused;
  nvtxRangePop();
}

/* Opens a range named "stepgraph:<name>" on this thread that closes when
 * the enclosing scope ends (one line at the top of an entry). */
#define SG_NVTX_RANGE(name)                                           \
  __attribute__((cleanup(sg_nvtx_pop_), unused)) const int sg_nvtx_ = \
      (nvtxRangePushA("stepgraph:" name), 0)

/* A range that may end on another call (capture_begin .. capture_end),
 * carrying the key as its payload. */
static inline nvtxRangeId_t sg_nvtx_start(const char *name, uint64_t key) {
  nvtxEventAttributes_t a = {0};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = name;
  a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
  a.payload.ullValue = key;
  return nvtxRangeStartEx(&a);
}

#endif
