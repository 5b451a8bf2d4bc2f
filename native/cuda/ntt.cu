// Number-theoretic transforms over Fr (BLS12-381 scalar field) with
// gnark-crypto's fft.Domain semantics, and bellperson's H pipeline.
//
// Natural order in and out: bit-reversal permutation (in place), then a
// radix-2 decimation-in-time Cooley-Tukey: the first up to 10 stages of each
// 1024-element block in shared memory, the remaining stages one global pass
// each. Twiddles w^i (i < m/2) are built per call from two small power tables;
// inverse twiddles are read as w^-i = -w^(m/2-i).
#include <vector>
#include "common.cuh"
#include "field.cuh"
#include "msm.cuh"

namespace gpuc2 {

namespace {

constexpr int SHARED_LOG = 10;

// out[i] = base^i for i < n.
__global__ void k_pow_table(Fr base, Fr* out, uint64_t n) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = base.pow_u64(i);
}

// tw[i] = hi[i >> 10] * lo[i & 1023]
__global__ void k_combine(const Fr* __restrict__ hi, const Fr* __restrict__ lo, Fr* __restrict__ tw, uint64_t n) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  tw[i] = hi[i >> 10] * lo[i & 1023];
}

// Bit-reversal permutation in place; with ghi/glo, each element is first
// multiplied by g^i for its source index i (the forward coset shift).
__global__ void k_bitrev(Fr* d, uint32_t log_m, const Fr* __restrict__ ghi, const Fr* __restrict__ glo) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >> log_m) return;
  uint64_t j = __brevll(i) >> (64 - log_m);
  if (i < j) {
    Fr x = d[i], y = d[j];
    if (ghi) {
      x = x * (ghi[i >> 10] * glo[i & 1023]);
      y = y * (ghi[j >> 10] * glo[j & 1023]);
    }
    d[i] = y;
    d[j] = x;
  } else if (i == j && ghi) {
    d[i] = d[i] * (ghi[i >> 10] * glo[i & 1023]);
  }
}

__device__ __forceinline__ Fr twiddle(const Fr* tw, uint64_t idx, uint64_t half_m, bool inverse) {
  if (!inverse) return tw[idx];
  if (idx == 0) return Fr::one();
  return tw[half_m - idx].neg();
}

// DIT stages [s0, s0+ns) (1-based) in shared memory. A block holds 2^ns
// positions at stride 2^(s0-1) for L = 2^logL consecutive low offsets:
// global index = hi*2^(s0-1+ns) + mi*2^(s0-1) + lo_g*L + l, stored at
// sh[mi*L + l]. With post, the results are multiplied by
// c * ghi[i>>10]*glo[i&1023] (or c alone when ghi is null) on the way out.
__global__ void k_dit_multi(Fr* d, uint32_t log_m, uint32_t s0, uint32_t ns, uint32_t logL,
                            const Fr* __restrict__ tw, bool inverse, bool post, Fr c,
                            const Fr* __restrict__ ghi, const Fr* __restrict__ glo) {
  extern __shared__ Fr sh[];
  const uint32_t L = 1u << logL;
  const uint32_t E = L << ns;
  const uint64_t groups_lo = (1ull << (s0 - 1)) >> logL;
  const uint64_t lo_g = blockIdx.x % groups_lo, hi = blockIdx.x / groups_lo;
  const uint64_t base = (hi << (s0 - 1 + ns)) | (lo_g << logL);
  const uint64_t half_m = 1ull << (log_m - 1);
  for (uint32_t e = threadIdx.x; e < E; e += blockDim.x)
    sh[e] = d[base + ((uint64_t)(e >> logL) << (s0 - 1)) + (e & (L - 1))];
  __syncthreads();
  for (uint32_t s = 0; s < ns; s++) {
    for (uint32_t t = threadIdx.x; t < E / 2; t += blockDim.x) {
      const uint32_t l = t & (L - 1), q = t >> logL;
      const uint32_t jm = q & ((1u << s) - 1), km = (q >> s) << (s + 1);
      const uint32_t i0 = (km + jm) * L + l, i1 = i0 + (L << s);
      const uint64_t j = ((uint64_t)jm << (s0 - 1)) + (lo_g << logL) + l;
      Fr w = twiddle(tw, j << (log_m - (s0 + s)), half_m, inverse);
      Fr u = sh[i0];
      Fr v = sh[i1] * w;
      sh[i0] = u + v;
      sh[i1] = u - v;
    }
    __syncthreads();
  }
  for (uint32_t e = threadIdx.x; e < E; e += blockDim.x) {
    uint64_t gi = base + ((uint64_t)(e >> logL) << (s0 - 1)) + (e & (L - 1));
    Fr x = sh[e];
    if (post) {
      x = x * c;
      if (ghi) x = x * (ghi[gi >> 10] * glo[gi & 1023]);
    }
    d[gi] = x;
  }
}

// d[i] *= c * ghi[i>>10] * glo[i&1023] (ghi/glo may be null: then only c).
__global__ void k_scale(Fr* d, uint64_t m, Fr c, const Fr* __restrict__ ghi, const Fr* __restrict__ glo) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  Fr x = d[i] * c;
  if (ghi) x = x * (ghi[i >> 10] * glo[i & 1023]);
  d[i] = x;
}

// a[i] = (a[i]*b[i] - c[i]) * zinv
__global__ void k_h_combine(Fr* a, const Fr* __restrict__ b, const Fr* __restrict__ c, uint64_t m, Fr zinv) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  a[i] = (a[i] * b[i] - c[i]) * zinv;
}

// a[i] *= b[i]
__global__ void k_mul(Fr* a, const Fr* __restrict__ b, uint64_t m) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  a[i] = a[i] * b[i];
}

// a[i] = (a[i] - c[i]) * zinv
__global__ void k_sub_scale(Fr* a, const Fr* __restrict__ c, uint64_t m, Fr zinv) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  a[i] = (a[i] - c[i]) * zinv;
}

Fr load_fr(const uint32_t* w) {
  Fr r;
  for (int i = 0; i < 8; i++) r.v[i] = w[i];
  return r;
}

Fr fr_from_u64(uint64_t x) {
  Fr r = Fr::zero();
  r.v[0] = (uint32_t)x;
  r.v[1] = (uint32_t)(x >> 32);
  return r.to_mont();
}

// Per-size tables for one call (or one H pipeline).
struct NttPlan {
  uint32_t log_m;
  uint64_t m;
  DeviceBuffer<Fr> tw;                  // w^i, i < m/2
  DeviceBuffer<Fr> glo, ghi;            // g^i split tables
  DeviceBuffer<Fr> gilo, gihi;          // g^-i split tables
  Fr minv;

  static void pow_split(Fr base, uint64_t n, DeviceBuffer<Fr>& lo, DeviceBuffer<Fr>& hi) {
    lo.alloc(1024);
    uint64_t nh = (n + 1023) / 1024;
    hi.alloc(nh);
    k_pow_table<<<4, 256, 0, cur_stream()>>>(base, lo.get(), 1024);
    KERNEL_CHECK();
    Fr b1024 = base.pow_u64(1024);
    k_pow_table<<<blocks_for(nh, 256), 256, 0, cur_stream()>>>(b1024, hi.get(), nh);
    KERNEL_CHECK();
  }

  NttPlan(uint32_t lg, bool need_coset) : log_m(lg), m(1ull << lg) {
    Fr root = load_fr(FR_ROOT_2_32);
    Fr w = root;
    for (uint32_t i = lg; i < 32; i++) w = w.sqr();  // order 2^lg
    minv = fr_from_u64(m).inverse();
    if (m >= 2) {
      uint64_t half = m / 2;
      DeviceBuffer<Fr> lo, hi;
      pow_split(w, half, lo, hi);
      tw.alloc(half);
      k_combine<<<blocks_for(half, 256), 256, 0, cur_stream()>>>(hi.get(), lo.get(), tw.get(), half);
      KERNEL_CHECK();
    }
    if (need_coset) {
      pow_split(load_fr(FR_COSET_GEN), m, glo, ghi);
      pow_split(load_fr(FR_COSET_GEN_INV), m, gilo, gihi);
    }
  }

  void run(Fr* d, int32_t dir) const {
    const bool inverse = dir == GPUC2_NTT_INVERSE || dir == GPUC2_NTT_COSET_INVERSE;
    const bool coset = dir == GPUC2_NTT_COSET_FORWARD || dir == GPUC2_NTT_COSET_INVERSE;
    const Fr* pre_hi = coset && !inverse ? ghi.get() : nullptr;
    const Fr* pre_lo = coset && !inverse ? glo.get() : nullptr;
    const Fr* post_hi = coset && inverse ? gihi.get() : nullptr;
    const Fr* post_lo = coset && inverse ? gilo.get() : nullptr;
    if (m == 1) {
      if (inverse) {
        k_scale<<<1, 1, 0, cur_stream()>>>(d, 1, minv, post_hi, post_lo);
        KERNEL_CHECK();
      }
      return;
    }
    k_bitrev<<<blocks_for(m, 256), 256, 0, cur_stream()>>>(d, log_m, pre_hi, pre_lo);
    KERNEL_CHECK();
    uint32_t s0 = 1;
    while (s0 <= log_m) {
      uint32_t left = log_m - s0 + 1;
      uint32_t ns, logL;
      if (s0 == 1) {
        ns = left < SHARED_LOG ? left : SHARED_LOG;
        logL = 0;
      } else {
        ns = left < 8 ? left : 8;
        logL = SHARED_LOG - ns;
        if (logL > s0 - 1) logL = s0 - 1;
      }
      const bool last = s0 + ns > log_m;
      const uint32_t E = (1u << ns) << logL;
      const uint32_t threads = E / 2 < 512 ? E / 2 : 512;
      const uint64_t blocks = m / E;
      k_dit_multi<<<(unsigned)blocks, threads, sizeof(Fr) * E, cur_stream()>>>(d, log_m, s0, ns, logL, tw.get(), inverse,
                                                                  last && inverse, minv, post_hi, post_lo);
      KERNEL_CHECK();
      s0 += ns;
    }
  }
};

void check_log(uint32_t log_m) {
  if (log_m > 28) fail(GPUC2_ERR_NOT_SUPPORTED, "ntt: log_m > 28");
}

// Z(g w^j) = g^m - 1 for every j: the vanishing polynomial on the coset.
Fr vanishing_inverse(uint32_t log_m) {
  Fr gm = load_fr(FR_COSET_GEN);
  for (uint32_t i = 0; i < log_m; i++) gm = gm.sqr();
  return (gm - Fr::one()).inverse();
}

// to_coset takes x from evaluations on the domain to evaluations on the coset.
void to_coset(const NttPlan& plan, Fr* x) {
  plan.run(x, GPUC2_NTT_INVERSE);
  plan.run(x, GPUC2_NTT_COSET_FORWARD);
}

void h_device(const NttPlan& plan, Fr* a, Fr* b, Fr* c) {
  for (Fr* x : {a, b, c}) to_coset(plan, x);
  const Fr zinv = vanishing_inverse(plan.log_m);
  k_h_combine<<<blocks_for(plan.m, 256), 256, 0, cur_stream()>>>(a, b, c, plan.m, zinv);
  KERNEL_CHECK();
  plan.run(a, GPUC2_NTT_COSET_INVERSE);
}

}  // namespace

void ntt_host(int32_t device, void* data, uint32_t log_m, int32_t dir) {
  check_log(log_m);
  if (!data) fail(GPUC2_ERR_INVALID_ARGUMENT, "ntt: data is NULL");
  if (dir < GPUC2_NTT_FORWARD || dir > GPUC2_NTT_COSET_INVERSE) fail(GPUC2_ERR_INVALID_ARGUMENT, "ntt: bad direction");
  set_device(device);
  StreamScope scope(nullptr);
  const bool coset = dir == GPUC2_NTT_COSET_FORWARD || dir == GPUC2_NTT_COSET_INVERSE;
  NttPlan plan(log_m, coset);
  DeviceBuffer<Fr> d(plan.m);
  CUDA_CHECK(cudaMemcpyAsync(d.get(), data, sizeof(Fr) * plan.m, cudaMemcpyHostToDevice, cur_stream()));
  plan.run(d.get(), dir);
  CUDA_CHECK(cudaMemcpyAsync(data, d.get(), sizeof(Fr) * plan.m, cudaMemcpyDeviceToHost, cur_stream()));
  sync_stream();
}

void h_host(int32_t device, const void* a, const void* b, const void* c, uint64_t n, uint32_t log_m, void* h_out) {
  check_log(log_m);
  const uint64_t m = 1ull << log_m;
  if (n > m) fail(GPUC2_ERR_INVALID_ARGUMENT, "h: n > 2^log_m");
  if (!h_out || (n && (!a || !b || !c))) fail(GPUC2_ERR_INVALID_ARGUMENT, "h: NULL buffer");
  set_device(device);
  StreamScope scope(nullptr);
  NttPlan plan(log_m, true);
  DeviceBuffer<Fr> da(m), db(m), dc(m);
  const void* src[3] = {a, b, c};
  Fr* dst[3] = {da.get(), db.get(), dc.get()};
  for (int i = 0; i < 3; i++) {
    if (n) CUDA_CHECK(cudaMemcpyAsync(dst[i], src[i], sizeof(Fr) * n, cudaMemcpyHostToDevice, cur_stream()));
    if (n < m) CUDA_CHECK(cudaMemsetAsync(dst[i] + n, 0, sizeof(Fr) * (m - n), cur_stream()));
  }
  h_device(plan, da.get(), db.get(), dc.get());
  CUDA_CHECK(cudaMemcpyAsync(h_out, da.get(), sizeof(Fr) * m, cudaMemcpyDeviceToHost, cur_stream()));
  sync_stream();
}

void h_resident(int32_t device, void* stream, void* a, void* b, void* c, uint32_t log_m) {
  check_log(log_m);
  if (!a || !b || !c) fail(GPUC2_ERR_INVALID_ARGUMENT, "h: NULL buffer");
  set_device(device);
  StreamScope scope((cudaStream_t)stream);
  NttPlan plan(log_m, true);
  h_device(plan, (Fr*)a, (Fr*)b, (Fr*)c);
  // The plan's tables are freed stream-ordered after the enqueued work.
}

// h_scratch bounds what an NttPlan with coset tables allocates from the pool
// (each allocation rounded up to the pool's 2 MiB granule): the twiddles,
// the two split tables of their construction (freed before the coset
// tables are made), and the four coset tables.
uint64_t h_scratch(uint32_t log_m) {
  check_log(log_m);
  const uint64_t granule = 2ull << 20;
  auto charged = [&](uint64_t count) { return (count * sizeof(Fr) + granule - 1) / granule * granule; };
  const uint64_t m = 1ull << log_m;
  const uint64_t split = charged(1024) + charged((m + 1023) / 1024);
  return charged(m / 2) + 2 * split;
}

void h_step(int32_t device, void* stream, void* acc, void* x, uint32_t log_m, int32_t step) {
  check_log(log_m);
  if (!acc || (step != GPUC2_H_STEP_A && !x)) fail(GPUC2_ERR_INVALID_ARGUMENT, "h_step: NULL buffer");
  if (step < GPUC2_H_STEP_A || step > GPUC2_H_STEP_C) fail(GPUC2_ERR_INVALID_ARGUMENT, "h_step: bad step");
  set_device(device);
  StreamScope scope((cudaStream_t)stream);
  NttPlan plan(log_m, true);
  Fr* a = (Fr*)acc;
  Fr* v = (Fr*)x;
  switch (step) {
    case GPUC2_H_STEP_A:
      to_coset(plan, a);
      break;
    case GPUC2_H_STEP_B:
      to_coset(plan, v);
      k_mul<<<blocks_for(plan.m, 256), 256, 0, cur_stream()>>>(a, v, plan.m);
      KERNEL_CHECK();
      break;
    case GPUC2_H_STEP_C:
      to_coset(plan, v);
      k_sub_scale<<<blocks_for(plan.m, 256), 256, 0, cur_stream()>>>(a, v, plan.m, vanishing_inverse(log_m));
      KERNEL_CHECK();
      plan.run(a, GPUC2_NTT_COSET_INVERSE);
      break;
  }
  // The plan's tables are freed stream-ordered after the enqueued work.
}

void ntt_bench(int32_t device, int32_t op, const void* a, const void* b, const void* c, uint32_t log_m,
               uint32_t iters, float* ms) {
  check_log(log_m);
  set_device(device);
  StreamScope scope(nullptr);
  const uint64_t m = 1ull << log_m;
  NttPlan plan(log_m, op == 3);
  Event e0, e1;
  if (op == 2) {
    DeviceBuffer<Fr> d(m);
    CUDA_CHECK(cudaMemcpyAsync(d.get(), a, sizeof(Fr) * m, cudaMemcpyHostToDevice, cur_stream()));
    for (uint32_t it = 0; it < iters; it++) {
      e0.record();
      plan.run(d.get(), GPUC2_NTT_FORWARD);
      e1.record();
      CUDA_CHECK(cudaEventSynchronize(e1.e));
      CUDA_CHECK(cudaEventElapsedTime(&ms[it], e0.e, e1.e));
    }
    return;
  }
  // op 3: H with a, b, c resident; each run copies them (device to device) into work buffers.
  DeviceBuffer<Fr> sa(m), sb(m), sc(m), wa(m), wb(m), wc(m);
  CUDA_CHECK(cudaMemcpyAsync(sa.get(), a, sizeof(Fr) * m, cudaMemcpyHostToDevice, cur_stream()));
  CUDA_CHECK(cudaMemcpyAsync(sb.get(), b, sizeof(Fr) * m, cudaMemcpyHostToDevice, cur_stream()));
  CUDA_CHECK(cudaMemcpyAsync(sc.get(), c, sizeof(Fr) * m, cudaMemcpyHostToDevice, cur_stream()));
  for (uint32_t it = 0; it < iters; it++) {
    e0.record();
    CUDA_CHECK(cudaMemcpyAsync(wa.get(), sa.get(), sizeof(Fr) * m, cudaMemcpyDeviceToDevice, cur_stream()));
    CUDA_CHECK(cudaMemcpyAsync(wb.get(), sb.get(), sizeof(Fr) * m, cudaMemcpyDeviceToDevice, cur_stream()));
    CUDA_CHECK(cudaMemcpyAsync(wc.get(), sc.get(), sizeof(Fr) * m, cudaMemcpyDeviceToDevice, cur_stream()));
    h_device(plan, wa.get(), wb.get(), wc.get());
    e1.record();
    CUDA_CHECK(cudaEventSynchronize(e1.e));
    CUDA_CHECK(cudaEventElapsedTime(&ms[it], e0.e, e1.e));
  }
}

}  // namespace gpuc2
