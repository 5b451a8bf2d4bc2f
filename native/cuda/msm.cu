// Pippenger multi-scalar multiplication on G1 and G2 with signed digits: the
// driver. The stages live in headers of their own:
//  - msm_split.cuh: the 0/1 split (scalars 0 and 1 summed as one bucket);
//  - msm_sort.cuh: the window plan, signed digits per window group, radix
//    sort by bucket;
//  - msm_accumulate.cuh: per-bucket sums of the sorted entries, long runs
//    split across threads;
//  - msm_reduce.cuh: per-window sum_b b*B_b by levels of running sums.
//
// Pipeline for one call:
//  1. (host entries) upload bases, scalars; the optional density bitmap with
//     per-word popcount prefixes (so scalar i finds its base index);
//  2. scalars to canonical form on the GPU (unless given canonical);
//  3. the 0/1 split when most used scalars are 0 or 1 (and it needs no more
//     memory than step 4 on every scalar), Pippenger on the others;
//  4. Pippenger: per window group digits, sort, accumulation into the W x H
//     bucket table; then the bucket reduction per window, and on the host
//     Horner's rule over the windows and XYZZ to Jacobian.
//
// Each stage's allocations have a model beside the code (PoolModel), from
// which msm_scratch answers msm_scratch_bytes.
#include <vector>
#include <chrono>
#include <cstring>
#include "msm_common.cuh"
#include "msm_split.cuh"
#include "msm_sort.cuh"
#include "msm_accumulate.cuh"
#include "msm_reduce.cuh"
#include "msm.cuh"

namespace gpuc2 {

namespace {

__global__ void k_scalars_from_mont(Fr* s, uint64_t n) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  s[i] = s[i].from_mont();
}

// Phase timing to stderr with GPUC2_MSM_TRACE (synchronizes the stream at
// each mark, so only for diagnosis).
struct Trace {
  bool on;
  std::chrono::steady_clock::time_point t0;
  double acc[8] = {0};
  explicit Trace(bool on_) : on(on_) {
    if (on) {
      cudaStreamSynchronize(cur_stream());
      t0 = std::chrono::steady_clock::now();
    }
  }
  void mark(int phase) {
    if (!on) return;
    cudaStreamSynchronize(cur_stream());
    auto t = std::chrono::steady_clock::now();
    acc[phase] += std::chrono::duration<double, std::milli>(t - t0).count();
    t0 = t;
  }
  void print(uint64_t n, int c, int W, int groups) {
    if (!on) return;
    fprintf(stderr,
            "msm trace n=%llu c=%d W=%d groups=%d: setup %.2f digits %.2f sort %.2f level1 %.2f levels %.2f "
            "scatter %.2f buckets %.2f final %.2f ms\n",
            (unsigned long long)n, c, W, groups, acc[0], acc[1], acc[2], acc[3], acc[4], acc[5], acc[6], acc[7]);
  }
};

// Pippenger over bases and scalars already on the device (scalars in
// canonical form). Returns the result as XYZZ on the host.
template <class F>
XYZZ<F> msm_pippenger(const Affine<F>* d_bases, const Fr* d_scalars, uint64_t ns, const uint64_t* d_density,
                      const uint32_t* d_rank, uint64_t n_points, const MsmOptions& o) {
  typedef XYZZ<F> P;
  if (ns == 0 || n_points == 0) return P::inf();
  const WindowPlan p(ns, n_points, o);
  if (p.N > (1ull << 31) - 1) fail(GPUC2_ERR_NOT_SUPPORTED, "msm: too many scalars");

  Trace tr(o.trace);
  int ngroups = 0;
  DeviceBuffer<P> buckets((uint64_t)p.W * p.H);
  CUDA_CHECK(cudaMemsetAsync(buckets.get(), 0, sizeof(P) * (uint64_t)p.W * p.H, cur_stream()));
  DeviceBuffer<uint32_t> k0(p.N), k1(p.N), v0(p.N), v1(p.N);
  DeviceBuffer<uint64_t> d_u64(1);
  DeviceBuffer<uint8_t> tmp;
  RunAccumulator<F> runs;
  const unsigned TPB = 256;

  for (int w0 = 0; w0 < p.W; w0 += p.wg) {
    const int g = std::min(p.wg, p.W - w0);
    const uint64_t n = (uint64_t)g * ns;
    const uint32_t sentinel = (uint32_t)g * p.H;
    ngroups++;
    tr.mark(0);
    k_digits<<<blocks_for(ns, TPB), TPB, 0, cur_stream()>>>(d_scalars, ns, d_density, d_rank, p.c, w0, g, k0.get(),
                                                            v0.get());
    KERNEL_CHECK();
    tr.mark(1);
    cub::DoubleBuffer<uint32_t> dk(k0.get(), k1.get()), dv(v0.get(), v1.get());
    sort_pairs(dk, dv, n, p.end_bit(g), tmp);
    const uint32_t* keys = dk.Current();
    const uint32_t* vals = dv.Current();
    tr.mark(2);
    k_lower_bound<<<1, 1, 0, cur_stream()>>>(keys, n, sentinel, d_u64.get());
    KERNEL_CHECK();
    const uint64_t T = read_back(d_u64.get());
    if (T == 0) continue;

    runs.run(keys, vals, T, d_bases, buckets.get() + (uint64_t)w0 * p.H);
    tr.mark(3);
  }
  tr.mark(5);
  // release sort buffers before the bucket reduction
  k0.release();
  k1.release();
  v0.release();
  v1.release();
  runs.release();

  const std::vector<P> win = window_sums<F>(buckets.get(), p.H, (uint32_t)p.W);
  buckets.release();
  tr.mark(6);
  P acc = P::inf();
  for (int w = p.W - 1; w >= 0; w--) {
    for (int i = 0; i < p.c; i++) acc = acc.dbl();
    acc = acc.add(win[w]);
  }
  tr.mark(7);
  tr.print(n_points, p.c, p.W, ngroups);
  return acc;
}

// pippenger_model mirrors msm_pippenger's allocations for any scalars.
template <class F>
void pippenger_model(PoolModel& pm, uint64_t ns, uint64_t np, const MsmOptions& o) {
  if (ns == 0 || np == 0) return;
  const WindowPlan p(ns, np, o);
  const uint64_t buckets = pm.alloc<XYZZ<F>>((uint64_t)p.W * p.H);
  uint64_t digits = 0;
  for (int i = 0; i < 4; i++) digits += pm.alloc<uint32_t>(p.N);  // k0, k1, v0, v1
  const uint64_t u64 = pm.alloc<uint64_t>(1);
  const uint64_t tmp = pm.alloc<uint8_t>(sort_temp_max(p, ns));
  const auto runs = RunAccumulator<F>::model(pm, p.N);  // a group has at most N valid entries
  pm.free(digits);
  pm.free(runs.released);
  window_sums_model<F>(pm, p.H, (uint32_t)p.W);
  pm.free(buckets);
  pm.free(u64);
  pm.free(tmp);
  pm.free(runs.kept);
}

// msm_device_model mirrors msm_device's allocations: Pippenger over every
// scalar (split false), or the 0/1 split with n_one ones and n_other others.
template <class F>
void msm_device_model(PoolModel& pm, uint64_t ns, uint64_t np, const MsmOptions& o, bool split, uint64_t n_one,
                      uint64_t n_other) {
  if (ns == 0 || np == 0) return;
  if (o.no_split) {
    pippenger_model<F>(pm, ns, np, o);
    return;
  }
  uint64_t pos = pm.alloc<uint32_t>(ns + 1);  // one_pos, other_pos
  pos += pm.alloc<uint32_t>(ns + 1);
  const uint64_t tmp = pm.alloc<uint8_t>(scan_temp_bytes(ns + 1));
  if (!split) {
    pm.free(pos);
    pippenger_model<F>(pm, ns, np, o);
    pm.free(tmp);
    return;
  }
  uint64_t ones = pm.alloc<uint32_t>(n_one);  // one_idx, zeros
  ones += pm.alloc<uint32_t>(n_one);
  uint64_t others = pm.alloc<Fr>(n_other);
  others += pm.alloc<Affine<F>>(n_other);
  pm.free(pos);
  if (n_one > 0) {
    const uint64_t bucket = pm.alloc<XYZZ<F>>(1);
    const auto acc = RunAccumulator<F>::model(pm, n_one);
    pm.free(acc.released + acc.kept);
    pm.free(bucket);
  }
  pm.free(ones);
  pippenger_model<F>(pm, n_other, n_other, o);
  pm.free(others);
  pm.free(tmp);
}

// split_pays decides the 0/1 split: when most used scalars are 0 or 1, and
// only if it needs no more device memory than Pippenger over every scalar,
// so that msm_scratch, which models the latter, bounds both.
template <class F>
bool split_pays(uint64_t ns, uint64_t np, uint64_t n_one, uint64_t n_other, const MsmOptions& o) {
  if (n_other * 4 > np) return false;
  PoolModel split, all;
  msm_device_model<F>(split, ns, np, o, true, n_one, n_other);
  msm_device_model<F>(all, ns, np, o, false, 0, 0);
  return split.peak <= all.peak;
}

// The MSM of one call over device memory: the 0/1 split when it pays,
// Pippenger on all scalars otherwise.
template <class F>
XYZZ<F> msm_device(const Affine<F>* d_bases, const Fr* d_scalars, uint64_t ns, const uint64_t* d_density,
                   const uint32_t* d_rank, uint64_t n_points, const MsmOptions& o) {
  typedef XYZZ<F> P;
  if (ns == 0 || n_points == 0) return P::inf();
  if (o.no_split) return msm_pippenger<F>(d_bases, d_scalars, ns, d_density, d_rank, n_points, o);
  DeviceBuffer<uint32_t> one_pos(ns + 1), other_pos(ns + 1);
  k_classify<<<blocks_for(ns + 1, 256), 256, 0, cur_stream()>>>(d_scalars, ns, d_density, one_pos.get(),
                                                                 other_pos.get());
  KERNEL_CHECK();
  DeviceBuffer<uint8_t> tmp;
  scan_exclusive(one_pos.get(), ns + 1, tmp);
  scan_exclusive(other_pos.get(), ns + 1, tmp);
  const uint64_t n_one = read_back(one_pos.get() + ns);
  const uint64_t n_other = read_back(other_pos.get() + ns);
  if (!split_pays<F>(ns, n_points, n_one, n_other, o)) {
    one_pos.release();
    other_pos.release();
    return msm_pippenger<F>(d_bases, d_scalars, ns, d_density, d_rank, n_points, o);
  }
  DeviceBuffer<uint32_t> one_idx(n_one), zeros(n_one);
  DeviceBuffer<Fr> other_scalars(n_other);
  DeviceBuffer<Affine<F>> other_bases(n_other);
  k_split<F><<<blocks_for(ns, 256), 256, 0, cur_stream()>>>(d_scalars, ns, d_density, d_rank, one_pos.get(),
                                                             other_pos.get(), d_bases, one_idx.get(),
                                                             other_scalars.get(), other_bases.get());
  KERNEL_CHECK();
  one_pos.release();
  other_pos.release();
  P ones = P::inf();
  if (n_one > 0) {
    // One bucket (key 0) holding every point whose scalar is 1.
    CUDA_CHECK(cudaMemsetAsync(zeros.get(), 0, sizeof(uint32_t) * n_one, cur_stream()));
    DeviceBuffer<P> bucket(1);
    CUDA_CHECK(cudaMemsetAsync(bucket.get(), 0, sizeof(P), cur_stream()));  // all-zero XYZZ: infinity
    RunAccumulator<F> acc;
    acc.run(zeros.get(), one_idx.get(), n_one, d_bases, bucket.get());
    ones = read_back(bucket.get());
  }
  one_idx.release();
  zeros.release();
  const P others = msm_pippenger<F>(other_bases.get(), other_scalars.get(), n_other, nullptr, nullptr, n_other, o);
  return ones.add(others);
}

void check_sizes(uint64_t n_bases, uint64_t n_scalars) {
  if (n_scalars >= (1ull << 31)) fail(GPUC2_ERR_NOT_SUPPORTED, "msm: more than 2^31-1 scalars");
  if (n_bases > n_scalars) fail(GPUC2_ERR_INVALID_ARGUMENT, "msm: more bases than scalars");
}

}  // namespace

// One MSM call. resident: bases and scalars are device pointers (scalars are
// not modified; Montgomery ones are converted into a temporary), otherwise
// host pointers uploaded here. The density bitmap is always host memory.
template <class F>
void msm_call(int32_t device, void* stream, bool resident, const void* bases, uint64_t n_bases, const void* scalars,
              uint64_t n_scalars, const uint64_t* density, uint64_t density_words, uint32_t flags, void* out_jac) {
  const MsmOptions o(flags);
  if (!out_jac) fail(GPUC2_ERR_INVALID_ARGUMENT, "msm: out is NULL");
  if ((n_bases && !bases) || (n_scalars && !scalars)) fail(GPUC2_ERR_INVALID_ARGUMENT, "msm: NULL input");
  check_sizes(n_bases, n_scalars);
  std::vector<uint32_t> rank;
  if (density) {
    if (density_words != (n_scalars + 63) / 64)
      fail(GPUC2_ERR_INVALID_ARGUMENT, "msm: density_words != ceil(n_scalars/64)");
    if (n_scalars % 64 && (density[n_scalars / 64] >> (n_scalars % 64)) != 0)
      fail(GPUC2_ERR_INVALID_ARGUMENT, "msm: density has bits beyond n_scalars");
    rank.resize(density_words);
    uint64_t c = 0;
    for (uint64_t w = 0; w < density_words; w++) {
      rank[w] = (uint32_t)c;
      c += (uint64_t)__builtin_popcountll(density[w]);
    }
    if (c != n_bases) fail(GPUC2_ERR_INVALID_ARGUMENT, "msm: density popcount != n_bases");
  } else if (n_bases != n_scalars) {
    fail(GPUC2_ERR_INVALID_ARGUMENT, "msm: n_bases != n_scalars");
  }
  set_device(device);
  StreamScope scope((cudaStream_t)stream);
  XYZZ<F> r = XYZZ<F>::inf();
  if (n_bases > 0) {
    DeviceBuffer<Affine<F>> up_bases;
    DeviceBuffer<Fr> up_scalars;
    DeviceBuffer<uint64_t> d_density;
    DeviceBuffer<uint32_t> d_rank;
    const Affine<F>* d_bases = (const Affine<F>*)bases;
    const Fr* d_scalars = (const Fr*)scalars;
    if (!resident) {
      up_bases.alloc(n_bases);
      CUDA_CHECK(cudaMemcpyAsync(up_bases.get(), bases, sizeof(Affine<F>) * n_bases, cudaMemcpyHostToDevice,
                                 cur_stream()));
      d_bases = up_bases.get();
    }
    if (!resident || !o.canonical) {
      up_scalars.alloc(n_scalars);
      CUDA_CHECK(cudaMemcpyAsync(up_scalars.get(), scalars, sizeof(Fr) * n_scalars,
                                 resident ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice, cur_stream()));
      if (!o.canonical) {
        k_scalars_from_mont<<<blocks_for(n_scalars, 256), 256, 0, cur_stream()>>>(up_scalars.get(), n_scalars);
        KERNEL_CHECK();
      }
      d_scalars = up_scalars.get();
    }
    if (density) {
      d_density.alloc(density_words);
      d_rank.alloc(density_words);
      CUDA_CHECK(cudaMemcpyAsync(d_density.get(), density, 8 * density_words, cudaMemcpyHostToDevice, cur_stream()));
      CUDA_CHECK(cudaMemcpyAsync(d_rank.get(), rank.data(), 4 * density_words, cudaMemcpyHostToDevice, cur_stream()));
    }
    r = msm_device<F>(d_bases, d_scalars, n_scalars, density ? d_density.get() : nullptr,
                      density ? d_rank.get() : nullptr, n_bases, o);
  }
  F jac[3];
  r.to_jacobian(jac[0], jac[1], jac[2]);
  memcpy(out_jac, jac, sizeof jac);  // caller memory need not be 16-byte aligned
}

// msm_scratch mirrors msm_call over device buffers: the converted copy of
// Montgomery scalars, the density bitmap's copy (counted whether or not a
// call passes one), then msm_device. The split runs only when its model
// peaks no higher than Pippenger over every scalar, so the latter bounds any
// scalars.
template <class F>
uint64_t msm_scratch(int32_t device, uint64_t n_bases, uint64_t n_scalars, uint32_t flags) {
  const MsmOptions o(flags);
  check_sizes(n_bases, n_scalars);
  set_device(device);
  StreamScope scope(nullptr);
  if (n_bases == 0) return 0;
  PoolModel pm;
  if (!o.canonical) pm.alloc<Fr>(n_scalars);
  const uint64_t words = (n_scalars + 63) / 64;
  pm.alloc<uint64_t>(words);
  pm.alloc<uint32_t>(words);
  msm_device_model<F>(pm, n_scalars, n_bases, o, false, 0, 0);
  return pm.peak;
}

void fr_from_mont_device(int32_t device, void* stream, void* data, uint64_t n) {
  if (n && !data) fail(GPUC2_ERR_INVALID_ARGUMENT, "fr_from_mont: data is NULL");
  set_device(device);
  StreamScope scope((cudaStream_t)stream);
  if (n == 0) return;
  k_scalars_from_mont<<<blocks_for(n, 256), 256, 0, cur_stream()>>>((Fr*)data, n);
  KERNEL_CHECK();
}

template <class F>
void msm_bench(int32_t device, const void* bases, const void* scalars, uint64_t n, uint32_t iters, uint32_t flags,
               float* ms) {
  const MsmOptions o(flags);
  if (!bases || !scalars || n == 0) fail(GPUC2_ERR_INVALID_ARGUMENT, "bench: bad arguments");
  set_device(device);
  StreamScope scope(nullptr);
  DeviceBuffer<Affine<F>> d_bases(n);
  DeviceBuffer<Fr> d_scalars(n);
  CUDA_CHECK(cudaMemcpyAsync(d_bases.get(), bases, sizeof(Affine<F>) * n, cudaMemcpyHostToDevice, cur_stream()));
  CUDA_CHECK(cudaMemcpyAsync(d_scalars.get(), scalars, sizeof(Fr) * n, cudaMemcpyHostToDevice, cur_stream()));
  if (!o.canonical) {
    k_scalars_from_mont<<<blocks_for(n, 256), 256, 0, cur_stream()>>>(d_scalars.get(), n);
    KERNEL_CHECK();
  }
  Event a, b;
  for (uint32_t it = 0; it < iters; it++) {
    a.record();
    msm_device<F>(d_bases.get(), d_scalars.get(), n, nullptr, nullptr, n, o);
    b.record();
    CUDA_CHECK(cudaEventSynchronize(b.e));
    CUDA_CHECK(cudaEventElapsedTime(&ms[it], a.e, b.e));
  }
}

template void msm_call<Fp>(int32_t, void*, bool, const void*, uint64_t, const void*, uint64_t, const uint64_t*,
                           uint64_t, uint32_t, void*);
template void msm_call<Fp2>(int32_t, void*, bool, const void*, uint64_t, const void*, uint64_t, const uint64_t*,
                            uint64_t, uint32_t, void*);
template uint64_t msm_scratch<Fp>(int32_t, uint64_t, uint64_t, uint32_t);
template uint64_t msm_scratch<Fp2>(int32_t, uint64_t, uint64_t, uint32_t);
template void msm_bench<Fp>(int32_t, const void*, const void*, uint64_t, uint32_t, uint32_t, float*);
template void msm_bench<Fp2>(int32_t, const void*, const void*, uint64_t, uint32_t, uint32_t, float*);

}  // namespace gpuc2
