#include "fake_spin.h"

namespace {

__device__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void spin(const volatile int *flag, unsigned long long max_ns) {
  const unsigned long long start = now_ns();
  while (*flag == 0 && now_ns() - start < max_ns) {
    __nanosleep(1000);
  }
}

}  // namespace

extern "C" cudaError_t fake_spin_launch(const volatile int *flag,
                                        unsigned max_seconds,
                                        cudaStream_t stream) {
  spin<<<1, 1, 0, stream>>>(flag, max_seconds * 1000000000ull);
  return cudaGetLastError();
}
