// Pippenger, stage 3: bucket reduction. Per window, sum_b b*B_b by levels
// of segmented running sums (window_sums); the driver combines the windows
// by Horner's rule on the host.
#pragma once
#include <vector>
#include "msm_common.cuh"

namespace gpuc2 {

namespace {

// Per (window w, segment j): over the segment's entries x_k =
// in[w*len + j*SEG + k], run = sum x_k and acc = sum (k+1)*x_k, by running
// sums from the top entry down. Outputs are window-major (w*nseg + j), so the
// runs are the next level's input.
template <class F>
__global__ void k_running_sums(const XYZZ<F>* __restrict__ in, uint32_t len, uint32_t SEG, uint32_t nseg, uint32_t W,
                               XYZZ<F>* __restrict__ acc_out, XYZZ<F>* __restrict__ run_out) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (uint64_t)W * nseg) return;
  uint32_t w = (uint32_t)(t / nseg), j = (uint32_t)(t % nseg);
  const XYZZ<F>* x = in + (uint64_t)w * len + (uint64_t)j * SEG;
  const int cnt = (int)min(SEG, len - j * SEG);
  XYZZ<F> run = XYZZ<F>::inf(), acc = XYZZ<F>::inf();
  for (int k = cnt - 1; k >= 0; k--) {
    if constexpr (point_calls<F>) {
      run = dev_add(run, x[k]);
      acc = dev_add(acc, run);
    } else {
      // run += x_k, then acc += run, through one inlined addition: two
      // would not fit in the registers.
#pragma unroll 1
      for (int h = 0; h < 2; h++) {
        const XYZZ<F> r = dev_add(h ? acc : run, h ? run : x[k]);
        if (h)
          acc = r;
        else
          run = r;
      }
    }
  }
  acc_out[t] = acc;
  run_out[t] = run;
}

// out[w*ng + g] = sum of in[w*count + g*G ... +G).
template <class F>
__global__ void k_group_sum(const XYZZ<F>* __restrict__ in, uint32_t count, uint32_t G, uint32_t ng, uint32_t W,
                            XYZZ<F>* __restrict__ out) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (uint64_t)W * ng) return;
  uint32_t w = (uint32_t)(t / ng), g = (uint32_t)(t % ng);
  uint32_t b = g * G, e = min(count, b + G);
  XYZZ<F> acc = XYZZ<F>::inf();
  for (uint32_t k = b; k < e; k++) {
    const XYZZ<F> x = in[(uint64_t)w * count + k];  // by value: through a reference, 4-byte loads
    acc = dev_add(acc, x);
  }
  out[t] = acc;
}

constexpr uint32_t GROUP_SUM = 16;  // entries per thread of sum_per_window

// sum_per_window writes to out[w] the sum of in[w*count ... +count) for each
// of W windows, by a tree of group sums (in is left as it was).
template <class F>
void sum_per_window(const XYZZ<F>* in, uint32_t count, uint32_t W, XYZZ<F>* out) {
  const uint32_t G = GROUP_SUM;
  DeviceBuffer<XYZZ<F>> t0, t1;
  const XYZZ<F>* cur = in;
  while (true) {
    const uint32_t ng = (count + G - 1) / G;
    XYZZ<F>* dst = out;
    if (ng > 1) {
      DeviceBuffer<XYZZ<F>>& t = cur == t0.get() ? t1 : t0;
      if (t.n < (uint64_t)W * ng) t.alloc((uint64_t)W * ng);
      dst = t.get();
    }
    k_group_sum<F><<<blocks_for((uint64_t)W * ng, 64), 64, 0, cur_stream()>>>(cur, count, G, ng, W, dst);
    KERNEL_CHECK();
    if (ng == 1) return;
    cur = dst;
    count = ng;
  }
}

// sum_per_window_model: t0 takes the first level of group sums, t1 the
// second; later levels fit in t0 again.
template <class F>
void sum_per_window_model(PoolModel& pm, uint32_t count, uint32_t W) {
  const uint32_t ng1 = (count + GROUP_SUM - 1) / GROUP_SUM;
  if (ng1 <= 1) return;
  const uint64_t t0 = pm.alloc<XYZZ<F>>((uint64_t)W * ng1);
  const uint32_t ng2 = (ng1 + GROUP_SUM - 1) / GROUP_SUM;
  const uint64_t t1 = ng2 > 1 ? pm.alloc<XYZZ<F>>((uint64_t)W * ng2) : 0;
  pm.free(t0);
  pm.free(t1);
}

// segment_length: segments of 32 when that still gives 2^16 threads over
// the W windows of len entries, else smaller (at least 4).
uint32_t segment_length(uint32_t W, uint32_t len) {
  uint32_t SEG = 32;
  while (SEG > 4 && (uint64_t)W * len / SEG < (1u << 16)) SEG /= 2;
  return SEG;
}

constexpr int MAX_REDUCTION_LEVELS = 16;  // H <= 2^19 and SEG >= 4 need at most 10

// window_sums returns, for each of W windows of H buckets (bucket k holds
// the points of digit k+1), S = sum (k+1)*B_k. One level splits the buckets
// into segments of SEG and gives per segment a = sum (k+1)*x_k and the run
// r = sum x_k; with A = sum a over the segments and T the window's total,
// S(x) = A + SEG*(S(r) - T), and S(r) is the next level, down to a single
// run (S = T). Every level costs two additions per entry and no scalar
// multiplication, so the work is ~2*H additions per window spread over
// W*H/SEG threads.
template <class F>
std::vector<XYZZ<F>> window_sums(const XYZZ<F>* buckets, uint32_t H, uint32_t W) {
  typedef XYZZ<F> P;
  std::vector<uint32_t> segs;
  DeviceBuffer<P> runs[2], acc;  // a level's runs are the next level's input
  // A of level l at sums[l*W + w].
  DeviceBuffer<P> sums((uint64_t)W * MAX_REDUCTION_LEVELS);
  const P* cur = buckets;
  uint32_t len = H;
  while (len > 1) {
    const uint32_t SEG = segment_length(W, len);
    const uint32_t nseg = (len + SEG - 1) / SEG;
    if (segs.size() == MAX_REDUCTION_LEVELS) fail(GPUC2_ERR_INTERNAL, "msm: too many bucket reduction levels");
    acc.alloc((uint64_t)W * nseg);
    DeviceBuffer<P>& run = runs[segs.size() & 1];
    run.alloc((uint64_t)W * nseg);
    k_running_sums<F><<<blocks_for((uint64_t)W * nseg, 64), 64, 0, cur_stream()>>>(cur, len, SEG, nseg, W, acc.get(),
                                                                                   run.get());
    KERNEL_CHECK();
    sum_per_window<F>(acc.get(), nseg, W, sums.get() + (uint64_t)segs.size() * W);
    segs.push_back(SEG);
    cur = run.get();
    len = nseg;
  }
  const size_t L = segs.size();
  std::vector<P> A(L * W), T(W);
  if (L > 0)
    CUDA_CHECK(cudaMemcpyAsync(A.data(), sums.get(), sizeof(P) * L * W, cudaMemcpyDeviceToHost, cur_stream()));
  CUDA_CHECK(cudaMemcpyAsync(T.data(), cur, sizeof(P) * W, cudaMemcpyDeviceToHost, cur_stream()));
  CUDA_CHECK(cudaStreamSynchronize(cur_stream()));
  std::vector<P> out(W);
  for (uint32_t w = 0; w < W; w++) {
    P S = T[w];
    const P negT = T[w].neg();
    for (size_t l = L; l-- > 0;) {
      P d = S.add(negT);
      for (uint32_t k = segs[l]; k > 1; k >>= 1) d = d.dbl();  // SEG is a power of two
      S = A[l * W + w].add(d);
    }
    out[w] = S;
  }
  return out;
}

// window_sums_model mirrors window_sums' allocations: each level frees the
// previous acc and the runs of two levels back before allocating its own.
template <class F>
void window_sums_model(PoolModel& pm, uint32_t H, uint32_t W) {
  typedef XYZZ<F> P;
  const uint64_t sums = pm.alloc<P>((uint64_t)W * MAX_REDUCTION_LEVELS);
  uint64_t acc = 0, runs[2] = {0, 0};
  uint32_t len = H;
  for (int level = 0; len > 1; level++) {
    const uint32_t nseg = (len + segment_length(W, len) - 1) / segment_length(W, len);
    pm.free(acc);
    acc = pm.alloc<P>((uint64_t)W * nseg);
    pm.free(runs[level & 1]);
    runs[level & 1] = pm.alloc<P>((uint64_t)W * nseg);
    sum_per_window_model<F>(pm, nseg, W);
    len = nseg;
  }
  pm.free(acc);
  pm.free(runs[0]);
  pm.free(runs[1]);
  pm.free(sums);
}

}  // namespace

}  // namespace gpuc2
