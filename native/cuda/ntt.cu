// Number-theoretic transforms over Fr (BLS12-381 scalar field) with
// gnark-crypto's fft.Domain semantics, and bellperson's H pipeline.
//
// Natural order in and out: bit-reversal permutation (in place, by tiles),
// then a decimation-in-time Cooley-Tukey in a few passes of up to 10 stages
// in shared memory, two stages per step (the passes: ntt_pass.cuh). H's
// domain-to-coset steps skip the bit reversal: a DIF inverse leaves the
// coefficients bit-reversed and a DIT forward takes them so. Twiddles w^i
// (i <= m/2) are built per call from two small power tables; an inverse
// twiddle w^-i = -w^(m/2-i) is the table's entry with the sign left to the
// butterfly. The transforms' order of passes: ntt_schedule.cuh, run here by
// DeviceExec.
#include <vector>
#include "common.cuh"
#include "field.cuh"
#include "msm.cuh"
#include "ntt_schedule.cuh"

namespace gpuc2 {

namespace {

// out[i] = scale * base^i for i < n.
__global__ void k_pow_table(Fr base, Fr scale, Fr* out, uint64_t n) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = scale * base.pow_u64(i);
}

// tw[i] = hi[i >> SPLIT_LOG] * lo[i & (SPLIT - 1)]
__global__ void k_combine(const Fr* __restrict__ hi, const Fr* __restrict__ lo, Fr* __restrict__ tw, uint64_t n) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  tw[i] = split_pow(hi, lo, i);
}

// The bit reversal by tiles. An index of log_m bits splits into (row, mid,
// col), row and col of tlog bits each: rev(row, mid, col) = (rev col,
// rev mid, rev row). So the block of middle value mid swaps its tile (every
// row and col) with the tile of rev mid, transposed, through shared memory,
// reading and writing rows of 2^tlog consecutive elements (1 KiB at
// tlog 5). Each element is taken through the loader on the way in (the coset
// shift, H's pointwise step). A scattered swap per element ran at memory
// latency (6.1 ms at 2^27, 0.04 instructions issued per cycle).
constexpr uint32_t TILE_LOG = 5;
constexpr uint32_t TILE_ELEMS = 1u << (2 * TILE_LOG);
constexpr uint32_t TILE_THREADS = 256;
constexpr uint32_t TILE_PER_THREAD = TILE_ELEMS / TILE_THREADS;

// The tiles' side is 2^tile_log: up to 32, and at most half the index bits.
__host__ __device__ constexpr uint32_t tile_log(uint32_t log_m) { return log_m / 2 < TILE_LOG ? log_m / 2 : TILE_LOG; }

__device__ __forceinline__ uint32_t rev_bits(uint32_t x, uint32_t nbits) { return nbits ? __brev(x) >> (32 - nbits) : 0; }

// A tile's shared slot: rows of 32 entries, the column XORed with bits 2..4
// of the row, so that a quarter warp reading a column (rows rev c for eight
// consecutive c) and one reading a row both hit eight distinct bank groups.
__device__ __forceinline__ uint32_t tile_slot(uint32_t row, uint32_t col) {
  return (row << TILE_LOG) + (col ^ ((row >> 2) & 7));
}

// d = bit reversal of load(0..m), in place (the loader may read d). One
// block per middle value mid; a block whose rev mid is smaller has nothing
// to do (its pair's block swaps both tiles).
template <class Load>
__global__ void __launch_bounds__(TILE_THREADS) k_bitrev(Fr* d, uint32_t log_m, Load load) {
  __shared__ uint4 halves[2 * TILE_ELEMS];
  const SharedFr sh{halves, TILE_ELEMS};
  const uint32_t tlog = tile_log(log_m);
  const uint32_t mid_log = log_m - 2 * tlog;
  const uint64_t mid = blockIdx.x;
  const uint64_t rmid = mid_log ? __brevll(mid) >> (64 - mid_log) : 0;
  if (rmid < mid) return;
  const uint32_t E = 1u << (2 * tlog), cmask = (1u << tlog) - 1;
  auto at = [&](uint64_t tile, uint32_t row, uint32_t col) {
    return ((uint64_t)row << (log_m - tlog)) | (tile << tlog) | col;
  };
  // Tile mid in, tile rmid held in registers.
  Fr held[TILE_PER_THREAD];
#pragma unroll
  for (uint32_t r = 0; r < TILE_PER_THREAD; r++) {
    const uint32_t e = threadIdx.x + r * TILE_THREADS;
    if (e >= E) break;
    const uint32_t row = e >> tlog, col = e & cmask;
    sh.set(tile_slot(row, col), load(at(mid, row, col)));
    if (rmid != mid) held[r] = load(at(rmid, row, col));
  }
  // Tile t's (row, col) is the shared tile's (rev col, rev row).
  auto store_transposed = [&](uint64_t t) {
#pragma unroll
    for (uint32_t r = 0; r < TILE_PER_THREAD; r++) {
      const uint32_t e = threadIdx.x + r * TILE_THREADS;
      if (e >= E) break;
      const uint32_t row = e >> tlog, col = e & cmask;
      d[at(t, row, col)] = sh.get(tile_slot(rev_bits(col, tlog), rev_bits(row, tlog)));
    }
  };
  __syncthreads();
  store_transposed(rmid);
  if (rmid == mid) return;
  __syncthreads();
#pragma unroll
  for (uint32_t r = 0; r < TILE_PER_THREAD; r++) {
    const uint32_t e = threadIdx.x + r * TILE_THREADS;
    if (e >= E) break;
    sh.set(tile_slot(e >> tlog, e & cmask), held[r]);
  }
  __syncthreads();
  store_transposed(mid);
}

// A block's DIT (upwards) or DIF (downwards) stages, a barrier after each
// step; the next step's twiddles load while one computes.
template <bool DIF>
__device__ __forceinline__ void block_stages(const PassBlock& b, bool inverse) {
  const uint32_t nsteps = b.nsteps();
  StepTwiddles w = b.step_twiddles<DIF>(0, inverse);
  for (uint32_t k = 0; k < nsteps; k++) {
    const bool unit = b.unit_step<DIF>(k);
    StepTwiddles wn = w;
    if (k + 1 < nsteps) wn = b.step_twiddles<DIF>(k + 1, inverse);
    b.step<DIF>(k, w, inverse, unit);
    __syncthreads();
    w = wn;
  }
}

// One pass; with scaled, the DIF stages' results are scaled (DifDit: before
// the DIT stages, in shared memory; otherwise on the way out).
template <PassKind KIND>
__global__ void __launch_bounds__(STAGES_THREADS_MAX, STAGES_BLOCKS_MIN)
    k_stages(Fr* d, uint32_t log_m, uint32_t s0, uint32_t ns, uint32_t logL, const Fr* __restrict__ tw,
             bool inverse, bool scaled, PassScale scale) {
  extern __shared__ uint4 shared_halves[];
  const PassBlock b = PassBlock::at(shared_halves, tw, log_m, Pass{s0, ns, logL}, blockIdx.x, threadIdx.x,
                                      blockDim.x);
  b.load(d);
  __syncthreads();
  block_stages<KIND != PassKind::Dit>(b, inverse);
  if (KIND == PassKind::DifDit) {
    b.scale_shared(scale);
    __syncthreads();
    block_stages<false>(b, false);
  }
  b.store(d, scale, scaled && KIND != PassKind::DifDit);
}

// d[i] = scale.apply(d[i], i)
__global__ void k_scale(Fr* d, uint64_t m, PassScale scale) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  d[i] = scale.apply(d[i], i);
}

// a[i] *= b[i]
__global__ void k_mul(Fr* a, const Fr* __restrict__ b, uint64_t m) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const Fr x = a[i], y = b[i];
  a[i] = x * y;
}

// The executor of ntt_schedule.cuh on the device: kernels on the current
// stream.
struct DeviceExec {
  template <PassKind KIND>
  static void pass(const NttTables& t, const Pass& p, Fr* d, bool inverse, bool scaled, const PassScale& scale) {
    const uint32_t E = (1u << p.ns) << p.logL;
    k_stages<KIND><<<(unsigned)(t.m / E), pass_threads(E), sizeof(Fr) * E, cur_stream()>>>(
        d, t.log_m, p.s0, p.ns, p.logL, t.tw, inverse, scaled, scale);
    KERNEL_CHECK();
  }
  template <class Load>
  static void bitrev(const NttTables& t, Fr* d, const Load& load) {
    const uint32_t tlog = tile_log(t.log_m);
    k_bitrev<Load><<<(unsigned)(1ull << (t.log_m - 2 * tlog)), TILE_THREADS, 0, cur_stream()>>>(d, t.log_m, load);
    KERNEL_CHECK();
  }
  static void scale(const NttTables&, Fr* d, const PassScale& scale) {
    k_scale<<<1, 1, 0, cur_stream()>>>(d, 1, scale);
    KERNEL_CHECK();
  }
  static void mul(const NttTables& t, Fr* a, const Fr* b) {
    k_mul<<<blocks_for(t.m, 256), 256, 0, cur_stream()>>>(a, b, t.m);
    KERNEL_CHECK();
  }
};

// Per-size tables for one call (or one H pipeline), and their schedule.
struct NttPlan {
  uint32_t log_m;
  uint64_t m;
  DeviceBuffer<Fr> tw;         // w^i, i <= m/2
  DeviceBuffer<Fr> ghi, gihi;  // g^(SPLIT*i), g^-(SPLIT*i)
  DeviceBuffer<Fr> lo;         // LO_TABLES tables of SPLIT
  Fr minv;

  // out[i] = scale * base^i, i < n.
  static void pow_table(Fr base, Fr scale, Fr* out, uint64_t n) {
    k_pow_table<<<blocks_for(n, 256), 256, 0, cur_stream()>>>(base, scale, out, n);
    KERNEL_CHECK();
  }

  NttPlan(uint32_t lg, bool need_coset) : log_m(lg), m(1ull << lg) {
    const Fr w = root_of_unity(lg);
    minv = fr_from_u64(m).inverse();
    const Fr one = Fr::one();
    if (m >= 2) {
      const uint64_t n = m / 2 + 1;
      DeviceBuffer<Fr> wlo(SPLIT), whi(split_hi(n));
      pow_table(w, one, wlo.get(), SPLIT);
      pow_table(w.pow_u64(SPLIT), one, whi.get(), split_hi(n));
      tw.alloc(n);
      k_combine<<<blocks_for(n, 256), 256, 0, cur_stream()>>>(whi.get(), wlo.get(), tw.get(), n);
      KERNEL_CHECK();
    }
    if (need_coset) {
      const Fr g = load_fr(FR_COSET_GEN), gi = load_fr(FR_COSET_GEN_INV);
      const uint64_t nh = split_hi(m);
      ghi.alloc(nh);
      gihi.alloc(nh);
      pow_table(g.pow_u64(SPLIT), one, ghi.get(), nh);
      pow_table(gi.pow_u64(SPLIT), one, gihi.get(), nh);
      lo.alloc(SPLIT * LO_TABLES);
      const NttLoParams lp(lg);
      for (int i = 0; i < LO_TABLES; i++) pow_table(lp.base[i], lp.scale[i], lo.get() + SPLIT * i, SPLIT);
    }
  }

  NttSchedule<DeviceExec> schedule() const {
    return NttSchedule<DeviceExec>{NttTables{log_m, m, tw.get(), ghi.get(), gihi.get(), lo.get(), minv},
                                   ntt_passes(log_m)};
  }
};

void check_log(uint32_t log_m) {
  if (log_m > 28) fail(GPUC2_ERR_NOT_SUPPORTED, "ntt: log_m > 28");
}

}  // namespace

void ntt_host(int32_t device, void* data, uint32_t log_m, int32_t dir) {
  check_log(log_m);
  if (!data) fail(GPUC2_ERR_INVALID_ARGUMENT, "ntt: data is NULL");
  if (dir < GPUC2_NTT_FORWARD || dir > GPUC2_NTT_COSET_INVERSE) fail(GPUC2_ERR_INVALID_ARGUMENT, "ntt: bad direction");
  set_device(device);
  StreamScope scope(nullptr);
  const bool coset = dir == GPUC2_NTT_COSET_FORWARD || dir == GPUC2_NTT_COSET_INVERSE;
  const bool inverse = dir == GPUC2_NTT_INVERSE || dir == GPUC2_NTT_COSET_INVERSE;
  NttPlan plan(log_m, coset);
  DeviceBuffer<Fr> d(plan.m);
  CUDA_CHECK(cudaMemcpyAsync(d.get(), data, sizeof(Fr) * plan.m, cudaMemcpyHostToDevice, cur_stream()));
  plan.schedule().run(d.get(), inverse, coset);
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
  plan.schedule().h(da.get(), db.get(), dc.get());
  CUDA_CHECK(cudaMemcpyAsync(h_out, da.get(), sizeof(Fr) * m, cudaMemcpyDeviceToHost, cur_stream()));
  sync_stream();
}

void h_resident(int32_t device, void* stream, void* a, void* b, void* c, uint32_t log_m) {
  check_log(log_m);
  if (!a || !b || !c) fail(GPUC2_ERR_INVALID_ARGUMENT, "h: NULL buffer");
  set_device(device);
  StreamScope scope((cudaStream_t)stream);
  NttPlan plan(log_m, true);
  plan.schedule().h((Fr*)a, (Fr*)b, (Fr*)c);
  // The plan's tables are freed stream-ordered after the enqueued work.
}

// h_scratch bounds what an NttPlan with coset tables allocates from the pool
// (each allocation rounded up to the pool's 2 MiB granule): the twiddles,
// the two split tables of their construction (freed before the coset
// tables are made), and the coset tables (two hi tables and one buffer of lo
// tables, no larger than two split tables).
uint64_t h_scratch(uint32_t log_m) {
  check_log(log_m);
  const uint64_t granule = 2ull << 20;
  auto charged = [&](uint64_t count) { return (count * sizeof(Fr) + granule - 1) / granule * granule; };
  const uint64_t m = 1ull << log_m;
  const uint64_t split = charged(SPLIT) + charged(split_hi(m));  // covers the twiddles' too
  return charged(m / 2 + 1) + 2 * split;
}

void h_step(int32_t device, void* stream, void* acc, void* x, uint32_t log_m, int32_t step) {
  check_log(log_m);
  if (!acc || (step != GPUC2_H_STEP_A && !x)) fail(GPUC2_ERR_INVALID_ARGUMENT, "h_step: NULL buffer");
  if (step < GPUC2_H_STEP_A || step > GPUC2_H_STEP_C) fail(GPUC2_ERR_INVALID_ARGUMENT, "h_step: bad step");
  set_device(device);
  StreamScope scope((cudaStream_t)stream);
  typedef NttSchedule<DeviceExec> S;
  const S::HStep steps[] = {S::STEP_A, S::STEP_B, S::STEP_C};
  NttPlan plan(log_m, true);
  plan.schedule().h_step((Fr*)acc, (Fr*)x, steps[step - GPUC2_H_STEP_A]);
  // The plan's tables are freed stream-ordered after the enqueued work.
}

void ntt_bench(int32_t device, int32_t dir, const void* data, uint32_t log_m, uint32_t iters, float* ms) {
  check_log(log_m);
  set_device(device);
  StreamScope scope(nullptr);
  const uint64_t m = 1ull << log_m;
  const bool coset = dir == GPUC2_NTT_COSET_FORWARD || dir == GPUC2_NTT_COSET_INVERSE;
  const bool inverse = dir == GPUC2_NTT_INVERSE || dir == GPUC2_NTT_COSET_INVERSE;
  NttPlan plan(log_m, coset);
  const NttSchedule<DeviceExec> sched = plan.schedule();
  Event e0, e1;
  DeviceBuffer<Fr> d(m);
  CUDA_CHECK(cudaMemcpyAsync(d.get(), data, sizeof(Fr) * m, cudaMemcpyHostToDevice, cur_stream()));
  for (uint32_t it = 0; it < iters; it++) {
    e0.record();
    sched.run(d.get(), inverse, coset);
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
  const NttSchedule<DeviceExec> sched = plan.schedule();
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
    sched.h(wa.get(), wb.get(), wc.get());
    e1.record();
    CUDA_CHECK(cudaEventSynchronize(e1.e));
    CUDA_CHECK(cudaEventElapsedTime(&ms[it], e0.e, e1.e));
  }
}

}  // namespace gpuc2
