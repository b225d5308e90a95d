/* Timing for bench_refresh: the median of timed runs, each bracketed by CUDA
 * events on one stream, after warm-up runs. run(k) issues timed run k. */
#ifndef SG_BENCH_MEASURE_H
#define SG_BENCH_MEASURE_H

#include <algorithm>
#include <vector>

#include "sg_cuda_check.h"

enum { kWarmup = 3 };

template <class Run>
double median_us(cudaStream_t stream, int reps, Run run) {
  cudaEvent_t start, stop;
  SG_CHECK_CUDA(cudaEventCreate(&start));
  SG_CHECK_CUDA(cudaEventCreate(&stop));
  for (int k = 0; k < kWarmup; k++) {
    run(k);
  }
  std::vector<double> us(static_cast<size_t>(reps));
  for (int k = 0; k < reps; k++) {
    SG_CHECK_CUDA(cudaEventRecord(start, stream));
    run(kWarmup + k);
    SG_CHECK_CUDA(cudaEventRecord(stop, stream));
    SG_CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    SG_CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    us[static_cast<size_t>(k)] = 1000.0 * ms;
  }
  SG_CHECK_CUDA(cudaEventDestroy(start));
  SG_CHECK_CUDA(cudaEventDestroy(stop));
  std::sort(us.begin(), us.end());
  return reps % 2 ? us[reps / 2] : 0.5 * (us[reps / 2 - 1] + us[reps / 2]);
}

#endif /* SG_BENCH_MEASURE_H */
