/* abi/stepgraph_rng.cuh on the GPU: the device code gives the host's values
 * (the CPU reference that tests/kernels/test_rng_header holds to Random123's
 * known answers) and cuRAND's (the documented curand_init mapping), and,
 * through a session, reserving 1 counter gives each kernel a seed per step
 * that is fresh every step and the same eagerly and in replays. */
#include <curand_kernel.h>

#include "gpu_common.h"
#include "stepgraph_rng.cuh"

namespace {

constexpr unsigned kPairs = 4096; /* (draw, subsequence) pairs */

struct pair_out {
  uint4 ours, curand;
};

/* Draw i = t % 7 of subsequence t * 977 (t: the thread), from the state in
 * device memory, ours and cuRAND's. */
__global__ void draw_pairs(sg_rng_reservation r, pair_out *out) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= kPairs) {
    return;
  }
  const uint64_t i = t % 7, sub = uint64_t{t} * 977;
  curandStatePhilox4_32_10_t s;
  curand_init(*r.seed, sub, 4 * sg_rng_counter(r, i), &s);
  out[t].ours = sg_rng_draw(r, i, sub);
  out[t].curand = curand4(&s);
}

/* The step's random kernel: one counter reserved, its seed recorded. */
__global__ void record_seed(sg_rng_reservation r, uint64_t *seeds,
                            uint32_t *counter) {
  seeds[*counter] = sg_rng_seed64(r);
  *counter += 1;
}

}  // namespace

static void expect_words(uint4 got, uint4 want, unsigned t, const char *what) {
  ck_assert_msg(got.x == want.x && got.y == want.y && got.z == want.z &&
                    got.w == want.w,
                "pair %u: device %08x %08x %08x %08x, %s %08x %08x %08x %08x",
                t, got.x, got.y, got.z, got.w, what, want.x, want.y, want.z,
                want.w);
}

START_TEST(device_draws_equal_the_cpu_reference_and_curand) {
  /* A base near cuRAND's limit: its offset, 4 * counter, must fit 64 bits. */
  const uint64_t host_state[2] = {0x0123456789abcdefull,
                                  (1ull << 62) - 5000};
  uint64_t *state = nullptr;
  pair_out *out = nullptr;
  SG_CHECK_CUDA(cudaMalloc(&state, sizeof host_state));
  SG_CHECK_CUDA(cudaMalloc(&out, kPairs * sizeof(pair_out)));
  SG_CHECK_CUDA(cudaMemcpy(state, host_state, sizeof host_state,
                          cudaMemcpyHostToDevice));
  const uint64_t offset = 4000;
  draw_pairs<<<kPairs / 256, 256>>>(
      sg_rng_reservation{state, state + 1, offset}, out);
  SG_CHECK_CUDA(cudaGetLastError());
  static pair_out got[kPairs];
  SG_CHECK_CUDA(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
  const sg_rng_reservation host{&host_state[0], &host_state[1], offset};
  for (unsigned t = 0; t < kPairs; t++) {
    const uint4 want = sg_rng_draw(host, t % 7, uint64_t{t} * 977);
    expect_words(got[t].ours, want, t, "CPU reference");
    expect_words(got[t].curand, want, t, "cuRAND");
  }
  SG_CHECK_CUDA(cudaFree(state));
  SG_CHECK_CUDA(cudaFree(out));
}
END_TEST

/* Steps of two random kernels (1 counter each, then the end of step): 3
 * eager, then one capture and 5 replays. */
enum { EAGER = 3, REPLAYS = 5, STEPS = EAGER + REPLAYS, KERNELS = 2 };

static void enqueue_step(sg_session *s, const sg_rng_device_state *d,
                         uint64_t *seeds, uint32_t *counter,
                         cudaStream_t st) {
  for (int k = 0; k < KERNELS; k++) {
    uint64_t off = 0;
    GT_OK(s, gt_api->rng_reserve(s, 1, &off));
    ck_assert_uint_eq(off, (uint64_t)k); /* the same offsets every step */
    record_seed<<<1, 1, 0, st>>>(sg_rng_reservation{d->seed, d->base_offset,
                                                    off},
                                 seeds, counter);
    SG_CHECK_CUDA(cudaGetLastError());
  }
  GT_OK(s, gt_api->rng_end_step(s, (sg_stream)st));
}

START_TEST(one_counter_gives_each_kernel_a_fresh_seed_every_step) {
  sg_session_config cfg = gt_config();
  sg_session *s = gt_session(&cfg);
  cudaStream_t st = gt_stream(1);
  sg_rng_device_state d = {sizeof d, nullptr, nullptr};
  GT_OK(s, gt_api->rng_device_state(s, &d));
  const uint64_t start = 1000;
  sg_rng_state set = {sizeof set, 99, start};
  GT_OK(s, gt_api->rng_set_state(s, (sg_stream)st, &set));
  uint64_t *seeds = nullptr;
  uint32_t *counter = nullptr;
  SG_CHECK_CUDA(cudaMalloc(&seeds, STEPS * KERNELS * sizeof(uint64_t)));
  SG_CHECK_CUDA(cudaMalloc(&counter, sizeof(uint32_t)));
  SG_CHECK_CUDA(cudaMemset(counter, 0, sizeof(uint32_t)));
  for (int i = 0; i < EAGER; i++) {
    enqueue_step(s, &d, seeds, counter, st);
  }
  GT_OK(s, gt_api->pre_capture(s, (sg_stream)st));
  sg_capture_args ca = gt_capture_args(1, st, SG_CAPTURE_THREAD_LOCAL);
  GT_OK(s, gt_api->capture_begin(s, &ca));
  enqueue_step(s, &d, seeds, counter, st);
  GT_OK(s, gt_api->capture_end(s, &ca));
  sg_replay_args ra = gt_replay_args(1, st);
  for (int i = 0; i < REPLAYS; i++) {
    GT_OK(s, gt_api->replay(s, &ra));
  }
  SG_CHECK_CUDA(cudaStreamSynchronize(st));
  uint64_t got[STEPS * KERNELS];
  SG_CHECK_CUDA(cudaMemcpy(got, seeds, sizeof got, cudaMemcpyDeviceToHost));
  for (int step = 0; step < STEPS; step++) {
    for (int k = 0; k < KERNELS; k++) {
      const uint64_t seed = 99, base = start + (uint64_t)step * KERNELS;
      const uint64_t want =
          sg_rng_seed64(sg_rng_reservation{&seed, &base, (uint64_t)k});
      ck_assert_msg(got[step * KERNELS + k] == want,
                    "step %d kernel %d: seed %016llx, expected %016llx", step,
                    k, (unsigned long long)got[step * KERNELS + k],
                    (unsigned long long)want);
      for (int j = 0; j < step * KERNELS + k; j++) {
        ck_assert_msg(got[j] != want, "seed %d repeats seed %d",
                      step * KERNELS + k, j);
      }
    }
  }
  gt_api->session_destroy(s);
  SG_CHECK_CUDA(cudaFree(seeds));
  SG_CHECK_CUDA(cudaFree(counter));
  SG_CHECK_CUDA(cudaStreamDestroy(st));
}
END_TEST

static Suite *make_suite(void) {
  Suite *suite = suite_create("rng_device");
  TCase *t = tcase_create("stepgraph_rng.cuh on the device");
  tcase_add_test(t, device_draws_equal_the_cpu_reference_and_curand);
  tcase_add_test(t, one_counter_gives_each_kernel_a_fresh_seed_every_step);
  suite_add_tcase(suite, t);
  return suite;
}

int main(void) {
  sg_test_require_gpu("test_rng_device");
  cudaFuncAttributes a; /* load the kernels before any capture */
  SG_CHECK_CUDA(cudaFuncGetAttributes(&a, draw_pairs));
  SG_CHECK_CUDA(cudaFuncGetAttributes(&a, record_seed));
  return gt_main("test_rng_device", make_suite);
}
