// Number-theoretic transforms over Fr (BLS12-381 scalar field) with
// gnark-crypto's fft.Domain semantics, and bellperson's H pipeline.
//
// Natural order in and out: bit-reversal permutation (in place), then a
// radix-2 decimation-in-time Cooley-Tukey in a few passes, each running up
// to 8-11 stages in shared memory. H's domain-to-coset steps skip the bit
// reversal: a DIF inverse leaves the coefficients bit-reversed and a DIT
// forward takes them so. Twiddles w^i (i <= m/2) are built per call from two
// small power tables; inverse twiddles are read as w^-i = -w^(m/2-i).
#include <vector>
#include "common.cuh"
#include "field.cuh"
#include "msm.cuh"

namespace gpuc2 {

namespace {

// A transform's first pass (logL = 0) runs up to SHARED_LOG_FIRST stages in
// one block of 2^SHARED_LOG_FIRST elements (64 KiB of shared memory); the
// later passes up to PASS_LOG stages over at least 4 consecutive elements
// (128-byte runs), in blocks of 2^SHARED_LOG elements. 2^27 takes 11 + 8 + 8.
constexpr uint32_t SHARED_LOG_FIRST = 11;
constexpr uint32_t SHARED_LOG = 10;
constexpr uint32_t PASS_LOG = 8;

// out[i] = base^i for i < n.
__global__ void k_pow_table(Fr base, Fr* out, uint64_t n) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = base.pow_u64(i);
}

// g^k from split power tables: hi[k>>10] * lo[k&1023]. The copies keep the
// loads 32 bytes wide (through a reference they split into 4-byte loads).
__device__ __forceinline__ Fr split_pow(const Fr* __restrict__ hi, const Fr* __restrict__ lo, uint64_t k) {
  const Fr h = hi[k >> 10], l = lo[k & 1023];
  return h * l;
}

// tw[i] = hi[i >> 10] * lo[i & 1023]
__global__ void k_combine(const Fr* __restrict__ hi, const Fr* __restrict__ lo, Fr* __restrict__ tw, uint64_t n) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  tw[i] = split_pow(hi, lo, i);
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
      x = x * split_pow(ghi, glo, i);
      y = y * split_pow(ghi, glo, j);
    }
    d[i] = y;
    d[j] = x;
  } else if (i == j && ghi) {
    const Fr x = d[i];
    d[i] = x * split_pow(ghi, glo, i);
  }
}

// w^idx, or w^-idx = -w^(m/2-idx) when inverse (tw[m/2] = -1 covers idx 0).
// Branch-free, and each load one 32-byte copy: reading the table through
// neg() split it into eight 4-byte loads, and the inverse NTT took 1.5x the
// forward one.
__device__ __forceinline__ Fr twiddle(const Fr* tw, uint64_t idx, uint64_t half_m, bool inverse) {
  const Fr x = tw[inverse ? half_m - idx : idx];
  return inverse ? Fr::zero() - x : x;
}

// Stages [s0, s0+ns) (1-based) of a radix-2 transform in shared memory, one
// butterfly per thread per stage (blockDim = E/2). A block holds 2^ns
// positions at stride 2^(s0-1) for L = 2^logL consecutive low offsets:
// global index = hi*2^(s0-1+ns) + mi*2^(s0-1) + lo_g*L + l, stored at
// sh[mi*L + l].
// DIT runs the stages upwards with (u, v) -> (u + wv, u - wv); DIF runs them
// downwards with (u, v) -> (u + v, (u - v)w), which undoes DIT's stages up
// to a factor 2 each: DIF with inverse twiddles maps natural order to m times
// the bit-reversed inverse transform.
// With post, the results are multiplied on the way out by c and, when ghi is
// set, by g^k for k = i (or its log_m-bit reversal, with post_brev) as
// ghi[k>>10]*glo[k&1023].
// A block's elements in shared memory as two arrays of 16-byte halves, so
// that consecutive threads read consecutive 16 bytes: whole 32-byte elements
// put two threads of each quarter warp on the same banks.
struct SharedFr {
  uint4* lo;  // E entries, then E for the high halves
  uint32_t E;
  __device__ __forceinline__ Fr get(uint32_t e) const {
    const uint4 a = lo[e], b = lo[E + e];
    Fr r;
    r.v[0] = a.x, r.v[1] = a.y, r.v[2] = a.z, r.v[3] = a.w;
    r.v[4] = b.x, r.v[5] = b.y, r.v[6] = b.z, r.v[7] = b.w;
    return r;
  }
  __device__ __forceinline__ void set(uint32_t e, const Fr& x) const {
    lo[e] = make_uint4(x.v[0], x.v[1], x.v[2], x.v[3]);
    lo[E + e] = make_uint4(x.v[4], x.v[5], x.v[6], x.v[7]);
  }
};

template <bool DIF>
__global__ void __launch_bounds__(1u << (SHARED_LOG_FIRST - 1))
    k_stages(Fr* d, uint32_t log_m, uint32_t s0, uint32_t ns, uint32_t logL, const Fr* __restrict__ tw,
             bool inverse, bool post, Fr c, const Fr* __restrict__ ghi, const Fr* __restrict__ glo, bool post_brev) {
  extern __shared__ uint4 shared_halves[];
  const uint32_t L = 1u << logL;
  const uint32_t E = L << ns;
  const SharedFr sh{shared_halves, E};
  const uint64_t groups_lo = (1ull << (s0 - 1)) >> logL;
  const uint64_t lo_g = blockIdx.x % groups_lo, hi = blockIdx.x / groups_lo;
  const uint64_t base = (hi << (s0 - 1 + ns)) | (lo_g << logL);
  const uint64_t half_m = 1ull << (log_m - 1);
  const uint32_t t = threadIdx.x;
  const uint32_t l = t & (L - 1), q = t >> logL;
  // The twiddle of this thread's butterfly in stage s0+s; loaded one stage
  // ahead so that its latency hides behind the previous stage.
  auto stage_twiddle = [&](uint32_t s) {
    const uint64_t j = ((uint64_t)(q & ((1u << s) - 1)) << (s0 - 1)) + (lo_g << logL) + l;
    return twiddle(tw, j << (log_m - (s0 + s)), half_m, inverse);
  };
  uint32_t s = DIF ? ns - 1 : 0;
  Fr w = stage_twiddle(s);
  for (uint32_t e = t; e < E; e += blockDim.x)
    sh.set(e, d[base + ((uint64_t)(e >> logL) << (s0 - 1)) + (e & (L - 1))]);
  __syncthreads();
  for (uint32_t k = 0; k < ns; k++) {
    const uint32_t next = DIF ? s - 1 : s + 1;
    Fr wn = w;
    if (k + 1 < ns) wn = stage_twiddle(next);
    const uint32_t jm = q & ((1u << s) - 1), km = (q >> s) << (s + 1);
    const uint32_t i0 = (km + jm) * L + l, i1 = i0 + (L << s);
    Fr u = sh.get(i0), v = sh.get(i1);
    if (DIF) {
      sh.set(i0, u + v);
      sh.set(i1, (u - v) * w);
    } else {
      v = v * w;
      sh.set(i0, u + v);
      sh.set(i1, u - v);
    }
    __syncthreads();
    w = wn;
    s = next;
  }
  for (uint32_t e = t; e < E; e += blockDim.x) {
    uint64_t gi = base + ((uint64_t)(e >> logL) << (s0 - 1)) + (e & (L - 1));
    Fr x = sh.get(e);
    if (post) {
      x = x * c;
      if (ghi) {
        const uint64_t k = post_brev ? __brevll(gi) >> (64 - log_m) : gi;
        x = x * split_pow(ghi, glo, k);
      }
    }
    d[gi] = x;
  }
}

// d[i] *= c * ghi[i>>10] * glo[i&1023] (ghi/glo may be null: then only c).
__global__ void k_scale(Fr* d, uint64_t m, Fr c, const Fr* __restrict__ ghi, const Fr* __restrict__ glo) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  Fr x = d[i];
  x = x * c;
  if (ghi) x = x * split_pow(ghi, glo, i);
  d[i] = x;
}

// a[i] = (a[i]*b[i] - c[i]) * zinv
__global__ void k_h_combine(Fr* a, const Fr* __restrict__ b, const Fr* __restrict__ c, uint64_t m, Fr zinv) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const Fr x = a[i], y = b[i], z = c[i];
  a[i] = (x * y - z) * zinv;
}

// a[i] *= b[i]
__global__ void k_mul(Fr* a, const Fr* __restrict__ b, uint64_t m) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const Fr x = a[i], y = b[i];
  a[i] = x * y;
}

// a[i] = (a[i] - c[i]) * zinv
__global__ void k_sub_scale(Fr* a, const Fr* __restrict__ c, uint64_t m, Fr zinv) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const Fr x = a[i], z = c[i];
  a[i] = (x - z) * zinv;
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
  DeviceBuffer<Fr> tw;                  // w^i, i <= m/2
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
      const uint64_t n = m / 2 + 1;
      DeviceBuffer<Fr> lo, hi;
      pow_split(w, n, lo, hi);
      tw.alloc(n);
      k_combine<<<blocks_for(n, 256), 256, 0, cur_stream()>>>(hi.get(), lo.get(), tw.get(), n);
      KERNEL_CHECK();
    }
    allow_first_pass_shared();
    if (need_coset) {
      pow_split(load_fr(FR_COSET_GEN), m, glo, ghi);
      pow_split(load_fr(FR_COSET_GEN_INV), m, gilo, gihi);
    }
  }

  // One shared-memory pass of the transform: stages [s0, s0+ns) in blocks
  // of 2^(ns+logL) elements.
  struct Pass {
    uint32_t s0, ns, logL;
  };

  std::vector<Pass> passes() const {
    std::vector<Pass> out;
    for (uint32_t s0 = 1; s0 <= log_m;) {
      const uint32_t left = log_m - s0 + 1;
      Pass p{s0, 0, 0};
      if (s0 == 1) {
        p.ns = left < SHARED_LOG_FIRST ? left : SHARED_LOG_FIRST;
      } else {
        p.ns = left < PASS_LOG ? left : PASS_LOG;
        p.logL = SHARED_LOG - p.ns < s0 - 1 ? SHARED_LOG - p.ns : s0 - 1;
      }
      out.push_back(p);
      s0 += p.ns;
    }
    return out;
  }

  template <bool DIF>
  void launch(const Pass& p, Fr* d, bool inverse, bool post, Fr c, const Fr* ghi, const Fr* glo,
              bool post_brev) const {
    const uint32_t E = (1u << p.ns) << p.logL;
    k_stages<DIF><<<(unsigned)(m / E), E / 2, sizeof(Fr) * E, cur_stream()>>>(d, log_m, p.s0, p.ns, p.logL, tw.get(),
                                                                            inverse, post, c, ghi, glo, post_brev);
    KERNEL_CHECK();
  }

  // The first pass's blocks need more than the default 48 KiB of shared memory.
  static void allow_first_pass_shared() {
    const int bytes = (int)sizeof(Fr) << SHARED_LOG_FIRST;
    CUDA_CHECK(cudaFuncSetAttribute(k_stages<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    CUDA_CHECK(cudaFuncSetAttribute(k_stages<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  }

  // run transforms d in place, natural order in and out.
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
    const std::vector<Pass> ps = passes();
    for (size_t i = 0; i < ps.size(); i++) {
      const bool last = i + 1 == ps.size();
      launch<false>(ps[i], d, inverse, last && inverse, minv, post_hi, post_lo, false);
    }
  }

  // to_coset takes d from evaluations on the domain to evaluations on the
  // coset, natural order in and out, without a bit reversal: the inverse
  // transform by DIF leaves the coefficients bit-reversed, scaled on the way
  // out by g^i/m for their index i, which is the input order DIT wants.
  void to_coset(Fr* d) const {
    if (m == 1) return;  // one coefficient, g^0 / 1
    const std::vector<Pass> ps = passes();
    for (size_t i = ps.size(); i-- > 0;)
      launch<true>(ps[i], d, true, i == 0, minv, ghi.get(), glo.get(), true);
    for (const Pass& p : ps) launch<false>(p, d, false, false, minv, nullptr, nullptr, false);
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

void h_device(const NttPlan& plan, Fr* a, Fr* b, Fr* c) {
  for (Fr* x : {a, b, c}) plan.to_coset(x);
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
  const uint64_t split = charged(1024) + charged((m + 1023) / 1024);  // covers the twiddles' too
  return charged(m / 2 + 1) + 2 * split;
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
      plan.to_coset(a);
      break;
    case GPUC2_H_STEP_B:
      plan.to_coset(v);
      k_mul<<<blocks_for(plan.m, 256), 256, 0, cur_stream()>>>(a, v, plan.m);
      KERNEL_CHECK();
      break;
    case GPUC2_H_STEP_C:
      plan.to_coset(v);
      k_sub_scale<<<blocks_for(plan.m, 256), 256, 0, cur_stream()>>>(a, v, plan.m, vanishing_inverse(log_m));
      KERNEL_CHECK();
      plan.run(a, GPUC2_NTT_COSET_INVERSE);
      break;
  }
  // The plan's tables are freed stream-ordered after the enqueued work.
}

void ntt_bench(int32_t device, int32_t dir, const void* data, uint32_t log_m, uint32_t iters, float* ms) {
  check_log(log_m);
  set_device(device);
  StreamScope scope(nullptr);
  const uint64_t m = 1ull << log_m;
  const bool coset = dir == GPUC2_NTT_COSET_FORWARD || dir == GPUC2_NTT_COSET_INVERSE;
  NttPlan plan(log_m, coset);
  Event e0, e1;
  DeviceBuffer<Fr> d(m);
  CUDA_CHECK(cudaMemcpyAsync(d.get(), data, sizeof(Fr) * m, cudaMemcpyHostToDevice, cur_stream()));
  for (uint32_t it = 0; it < iters; it++) {
    e0.record();
    plan.run(d.get(), dir);
    e1.record();
    CUDA_CHECK(cudaEventSynchronize(e1.e));
    CUDA_CHECK(cudaEventElapsedTime(&ms[it], e0.e, e1.e));
  }
}

// h_bench times H with a, b, c resident; each run copies them (device to
// device) into work buffers.
void h_bench(int32_t device, const void* a, const void* b, const void* c, uint32_t log_m, uint32_t iters, float* ms) {
  check_log(log_m);
  set_device(device);
  StreamScope scope(nullptr);
  const uint64_t m = 1ull << log_m;
  NttPlan plan(log_m, true);
  Event e0, e1;
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
