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

// Pippenger sums (scalar, base) pairs into one bucket table over one or
// more calls of add (one per chunk of a streamed MSM; its window is chosen
// for np_plan points, each add's window groups for its own scalars, at most
// max_entries digits sorted at once), and finish reduces the table once.
// The first add writes the buckets it touches; a later one starts each
// bucket's run from the bucket's value (RunAccumulator's seeded runs: the
// earlier way, a zeroed table per group merged in, cost a full addition and
// three passes over the group's buckets per add).
template <class F>
struct Pippenger {
  typedef XYZZ<F> P;
  const MsmOptions& o;
  const uint64_t np_plan, max_entries;
  const WindowPlan layout;  // c, W, H
  DeviceBuffer<P> buckets;
  DeviceBuffer<uint32_t> k0, k1, v0, v1;
  DeviceBuffer<uint64_t> d_u64;
  DeviceBuffer<uint8_t> tmp;
  RunAccumulator<F> runs;
  bool touched = false;
  Trace tr;
  int ngroups = 0;

  Pippenger(uint64_t np, const MsmOptions& opts, uint64_t max_ent = MAX_ENTRIES)
      : o(opts), np_plan(np), max_entries(max_ent), layout(1, np, opts), tr(opts.trace) {
    const uint64_t nb = (uint64_t)layout.W * layout.H;
    buckets.alloc(nb);
    CUDA_CHECK(cudaMemsetAsync(buckets.get(), 0, sizeof(P) * nb, cur_stream()));
  }

  // add sums ns scalars (canonical) with their bases into the table.
  void add(const Affine<F>* d_bases, const Fr* d_scalars, uint64_t ns, const uint64_t* d_density,
           const uint32_t* d_rank) {
    if (ns == 0) return;
    const WindowPlan p(ns, np_plan, o, max_entries);
    if (p.N > (1ull << 31) - 1) fail(GPUC2_ERR_NOT_SUPPORTED, "msm: too many scalars");
    if (k0.n < p.N) {
      k0.alloc(p.N);
      k1.alloc(p.N);
      v0.alloc(p.N);
      v1.alloc(p.N);
    }
    if (!d_u64.p) d_u64.alloc(1);
    const unsigned TPB = 256;
    for (int w0 = 0; w0 < p.W; w0 += p.wg) {
      const int g = std::min(p.wg, p.W - w0);
      const uint64_t n = (uint64_t)g * ns;
      const uint32_t sentinel = (uint32_t)g * p.H;
      ngroups++;
      tr.mark(0);
      k_digits<<<blocks_for(ns, TPB), TPB, 0, cur_stream()>>>(d_scalars, ns, d_density, d_rank, p.c, w0, g,
                                                              k0.get(), v0.get());
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
      runs.run(keys, vals, T, d_bases, buckets.get() + (uint64_t)w0 * p.H, touched);
      tr.mark(3);
    }
    touched = true;
  }

  // finish frees the sort buffers, reduces each window's buckets and
  // combines the windows by Horner's rule; the result as XYZZ on the host.
  P finish() {
    tr.mark(5);
    k0.release();
    k1.release();
    v0.release();
    v1.release();
    runs.release();
    const std::vector<P> win = window_sums<F>(buckets.get(), layout.H, (uint32_t)layout.W);
    buckets.release();
    tr.mark(6);
    P acc = P::inf();
    for (int w = layout.W - 1; w >= 0; w--) {
      for (int i = 0; i < layout.c; i++) acc = acc.dbl();
      acc = acc.add(win[w]);
    }
    tr.mark(7);
    tr.print(np_plan, layout.c, layout.W, ngroups);
    return acc;
  }
};

// Pippenger over bases and scalars already on the device (scalars in
// canonical form). Returns the result as XYZZ on the host.
template <class F>
XYZZ<F> msm_pippenger(const Affine<F>* d_bases, const Fr* d_scalars, uint64_t ns, const uint64_t* d_density,
                      const uint32_t* d_rank, uint64_t n_points, const MsmOptions& o) {
  if (ns == 0 || n_points == 0) return XYZZ<F>::inf();
  Pippenger<F> pip(n_points, o);
  pip.add(d_bases, d_scalars, ns, d_density, d_rank);
  return pip.finish();
}

// pippenger_model mirrors msm_pippenger's allocations for any scalars.
// (max_entries as for Pippenger: the sort buffers of one add of ns scalars.)
template <class F>
void pippenger_model(PoolModel& pm, uint64_t ns, uint64_t np, const MsmOptions& o,
                     uint64_t max_entries = MAX_ENTRIES) {
  if (ns == 0 || np == 0) return;
  const WindowPlan p(ns, np, o, max_entries);
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

// classify_scan fills one_pos and other_pos (ns + 1 entries each) with the
// exclusive prefix counts of the used scalars equal to 1 and of the other
// nonzero ones, and reads back their totals: the 0/1 split's positions.
// tmp is the scans' scratch, the caller's, so that it lives as long as the
// caller's pool model says.
inline void classify_scan(const Fr* scalars, uint64_t ns, const uint64_t* density, uint32_t* one_pos,
                          uint32_t* other_pos, DeviceBuffer<uint8_t>& tmp, uint64_t& n_one, uint64_t& n_other) {
  k_classify<<<blocks_for(ns + 1, 256), 256, 0, cur_stream()>>>(scalars, ns, density, one_pos, other_pos);
  KERNEL_CHECK();
  scan_exclusive(one_pos, ns + 1, tmp);
  scan_exclusive(other_pos, ns + 1, tmp);
  n_one = read_back(one_pos + ns);
  n_other = read_back(other_pos + ns);
}

// sum_ones sums the n bases listed in idx as one bucket (key 0, zeros: n
// keys of scratch) accumulated into *bucket, and reads it back.
template <class F>
XYZZ<F> sum_ones(RunAccumulator<F>& acc, uint32_t* zeros, const uint32_t* idx, uint64_t n, const Affine<F>* bases,
                 XYZZ<F>* bucket) {
  CUDA_CHECK(cudaMemsetAsync(zeros, 0, sizeof(uint32_t) * n, cur_stream()));
  CUDA_CHECK(cudaMemsetAsync(bucket, 0, sizeof(XYZZ<F>), cur_stream()));  // all-zero XYZZ: infinity
  acc.run(zeros, idx, n, bases, bucket);
  return read_back(bucket);
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
  DeviceBuffer<uint8_t> tmp;
  uint64_t n_one, n_other;
  classify_scan(d_scalars, ns, d_density, one_pos.get(), other_pos.get(), tmp, n_one, n_other);
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
    DeviceBuffer<P> bucket(1);
    RunAccumulator<F> acc;
    ones = sum_ones<F>(acc, zeros.get(), one_idx.get(), n_one, d_bases, bucket.get());
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

// density_rank checks the density bitmap against the sizes and returns its
// per-word prefix popcounts (empty without a bitmap).
std::vector<uint32_t> density_rank(uint64_t n_bases, uint64_t n_scalars, const uint64_t* density,
                                   uint64_t density_words) {
  std::vector<uint32_t> rank;
  if (!density) {
    if (n_bases != n_scalars) fail(GPUC2_ERR_INVALID_ARGUMENT, "msm: n_bases != n_scalars");
    return rank;
  }
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
  return rank;
}

// A chunk of a streamed MSM: scalars [s0, s1) and their bases [b0, b1).
struct Chunk {
  uint64_t s0, s1, b0, b1;
};

// stream_chunk_points is the chunk size a call of chunk_points really uses
// (a multiple of 64, so that chunks start on density words).
uint64_t stream_chunk_points(uint64_t chunk_points) {
  if (chunk_points < GPUC2_MSM_STREAM_CHUNK_MIN)
    fail(GPUC2_ERR_INVALID_ARGUMENT, "msm: chunk_points < GPUC2_MSM_STREAM_CHUNK_MIN");
  return std::min<uint64_t>(chunk_points, 1ull << 31) / 64 * 64;
}

// stream_scalars_max bounds the scalars of one chunk: with a sparse
// density a chunk of cp bases may span many more scalars, whose per-chunk
// arrays (the split's positions) are capped so.
uint64_t stream_scalars_max(uint64_t cp) { return 4 * cp; }

// stream_chunks cuts the scalars into chunks of at most cp bases and
// stream_scalars_max(cp) scalars, whole density words each; chunks
// without bases are left out.
std::vector<Chunk> stream_chunks(uint64_t n_bases, uint64_t n_scalars, const std::vector<uint32_t>& rank,
                                 uint64_t cp) {
  std::vector<Chunk> out;
  if (rank.empty()) {
    for (uint64_t s0 = 0; s0 < n_scalars; s0 += cp) {
      const uint64_t s1 = std::min(n_scalars, s0 + cp);
      out.push_back({s0, s1, s0, s1});
    }
    return out;
  }
  const uint64_t words = rank.size();
  const uint64_t max_words = stream_scalars_max(cp) / 64;
  auto rank_at = [&](uint64_t w) -> uint64_t { return w < words ? rank[w] : n_bases; };
  for (uint64_t w0 = 0; w0 < words;) {
    uint64_t w = w0 + 1;  // a word holds at most 64 <= cp bases
    while (w < words && w + 1 - w0 <= max_words && rank_at(w + 1) - rank_at(w0) <= cp) w++;
    if (rank_at(w) > rank_at(w0)) out.push_back({w0 * 64, std::min(n_scalars, w * 64), rank_at(w0), rank_at(w)});
    w0 = w;
  }
  return out;
}

// An event for ordering streams (no timing).
struct OrderEvent {
  cudaEvent_t e = nullptr;
  OrderEvent() { CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming)); }
  ~OrderEvent() {
    if (e) cudaEventDestroy(e);
  }
  OrderEvent(const OrderEvent&) = delete;
  OrderEvent& operator=(const OrderEvent&) = delete;
};

// CopyDrain waits, when it goes out of scope (also on an error), for the
// copy stream's work: no copy may still write into a chunk buffer freed
// after it, or read host bases the caller frees after the call.
struct CopyDrain {
  cudaStream_t s;
  ~CopyDrain() {
    if (cudaStreamSynchronize(s) != cudaSuccess) cudaGetLastError();
  }
};

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
  const std::vector<uint32_t> rank = density_rank(n_bases, n_scalars, density, density_words);
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

// split_chunk is msm_stream's unbatched 0/1 split of one chunk: classify
// and scan its scalars, read back the two counts, gather, sum its ones into
// ones (read back into ones_sum) and, once used is recorded (the chunk's
// bases are no longer read), add its others to pip.
template <class F>
void split_chunk(Pippenger<F>& pip, RunAccumulator<F>& ones_acc, XYZZ<F>* ones, XYZZ<F>& ones_sum,
                 const Affine<F>* bases, const Fr* sc, uint64_t ns, const uint64_t* dd, const uint32_t* dr,
                 cudaEvent_t used) {
  DeviceBuffer<uint32_t> one_pos(ns + 1), other_pos(ns + 1);
  DeviceBuffer<uint8_t> tmp;
  uint64_t n1, n2;
  classify_scan(sc, ns, dd, one_pos.get(), other_pos.get(), tmp, n1, n2);
  DeviceBuffer<uint32_t> one_idx(n1), zeros(n1);
  DeviceBuffer<Fr> other_scalars(n2);
  DeviceBuffer<Affine<F>> other_bases(n2);
  k_split<F><<<blocks_for(ns, 256), 256, 0, cur_stream()>>>(sc, ns, dd, dr, one_pos.get(), other_pos.get(), bases,
                                                            one_idx.get(), other_scalars.get(), other_bases.get());
  KERNEL_CHECK();
  one_pos.release();
  other_pos.release();
  if (n1 > 0) ones_sum = ones_sum.add(sum_ones<F>(ones_acc, zeros.get(), one_idx.get(), n1, bases, ones));
  CUDA_CHECK(cudaEventRecord(used, cur_stream()));  // the chunk's bases are gathered
  one_idx.release();
  zeros.release();
  pip.add(other_bases.get(), other_scalars.get(), n2, nullptr, nullptr);
}

// One MSM with the bases in host memory, streamed through two device
// buffers of at most chunk_points points: chunk j+1 is copied on the copy
// stream while chunk j's digits are sorted and accumulated on the call's
// stream, all into one bucket table (Pippenger) reduced once at the end.
// With the 0/1 split (decided from the counts over all scalars) each chunk
// adds its ones to one bucket and its other scalars to the table, waiting
// on the host for their counts; with GPUC2_MSM_BATCHED_SPLIT it adds its
// ones to per-thread partial sums and gathers its other scalars for the
// table's next add instead, and the host waits only in those adds.
template <class F>
void msm_stream(int32_t device, void* stream, void* copy, const void* host_bases, uint64_t n_bases,
                const void* scalars, uint64_t n_scalars, const uint64_t* density, uint64_t density_words,
                uint32_t flags, uint64_t chunk_points, void* out_jac) {
  typedef XYZZ<F> P;
  const MsmOptions o(flags);
  if (!out_jac) fail(GPUC2_ERR_INVALID_ARGUMENT, "msm: out is NULL");
  if ((n_bases && !host_bases) || (n_scalars && !scalars)) fail(GPUC2_ERR_INVALID_ARGUMENT, "msm: NULL input");
  if (!stream || !copy || stream == copy)
    fail(GPUC2_ERR_INVALID_ARGUMENT, "msm: a streamed MSM needs two distinct streams");
  check_sizes(n_bases, n_scalars);
  const uint64_t cp = stream_chunk_points(chunk_points);
  const std::vector<uint32_t> rank = density_rank(n_bases, n_scalars, density, density_words);
  set_device(device);
  StreamScope scope((cudaStream_t)stream);
  const cudaStream_t cs = (cudaStream_t)copy;
  P r = P::inf();
  if (n_bases > 0) {
    const Fr* d_scalars = (const Fr*)scalars;
    DeviceBuffer<Fr> converted;
    if (!o.canonical) {
      converted.alloc(n_scalars);
      CUDA_CHECK(cudaMemcpyAsync(converted.get(), scalars, sizeof(Fr) * n_scalars, cudaMemcpyDeviceToDevice,
                                 cur_stream()));
      k_scalars_from_mont<<<blocks_for(n_scalars, 256), 256, 0, cur_stream()>>>(converted.get(), n_scalars);
      KERNEL_CHECK();
      d_scalars = converted.get();
    }
    DeviceBuffer<uint64_t> d_density;
    DeviceBuffer<uint32_t> d_rank;
    if (density) {
      d_density.alloc(density_words);
      d_rank.alloc(density_words);
      CUDA_CHECK(cudaMemcpyAsync(d_density.get(), density, 8 * density_words, cudaMemcpyHostToDevice, cur_stream()));
      CUDA_CHECK(cudaMemcpyAsync(d_rank.get(), rank.data(), 4 * density_words, cudaMemcpyHostToDevice, cur_stream()));
    }
    bool split = false;
    uint64_t n_other = n_bases, n_one = 0;
    if (!o.no_split && !o.batched_split) {
      DeviceBuffer<unsigned long long> counts(2);
      CUDA_CHECK(cudaMemsetAsync(counts.get(), 0, 2 * sizeof(unsigned long long), cur_stream()));
      k_count_classes<<<blocks_for(n_scalars, 256), 256, 0, cur_stream()>>>(d_scalars, n_scalars, d_density.get(),
                                                                           counts.get());
      KERNEL_CHECK();
      unsigned long long c[2];
      CUDA_CHECK(cudaMemcpyAsync(c, counts.get(), sizeof c, cudaMemcpyDeviceToHost, cur_stream()));
      sync_stream();
      split = c[1] * 4 <= n_bases;
      if (split) n_other = c[1];
    }
    const std::vector<Chunk> chunks = stream_chunks(n_bases, n_scalars, rank, cp);
    const uint64_t nbuf = std::min(cp, n_bases);
    DeviceBuffer<Affine<F>> buf[2];
    buf[0].alloc(nbuf);
    if (chunks.size() > 1) buf[1].alloc(nbuf);
    OrderEvent ready, copied[2], used[2];
    CopyDrain drain{cs};
    CUDA_CHECK(cudaEventRecord(ready.e, cur_stream()));  // the buffers exist in the call's stream order
    CUDA_CHECK(cudaStreamWaitEvent(cs, ready.e, 0));
    const Affine<F>* hb = (const Affine<F>*)host_bases;
    auto enqueue_copy = [&](size_t j) {
      const Chunk& k = chunks[j];
      const int i = (int)(j & 1);
      if (j >= 2) CUDA_CHECK(cudaStreamWaitEvent(cs, used[i].e, 0));
      CUDA_CHECK(cudaMemcpyAsync(buf[i].get(), hb + k.b0, sizeof(Affine<F>) * (k.b1 - k.b0), cudaMemcpyHostToDevice,
                                 cs));
      CUDA_CHECK(cudaEventRecord(copied[i].e, cs));
    };
    for (size_t j = 0; j < chunks.size() && j < 2; j++) enqueue_copy(j);
    // Batched: the split's counts per chunk, read back once (while the
    // first chunks copy): they decide the split (over all scalars) and plan
    // its adds, so no chunk waits on the host.
    std::vector<unsigned long long> counts(2 * chunks.size(), 0);
    if (!o.no_split && o.batched_split) {
      DeviceBuffer<unsigned long long> d_counts(counts.size());
      CUDA_CHECK(cudaMemsetAsync(d_counts.get(), 0, sizeof(unsigned long long) * counts.size(), cur_stream()));
      for (size_t j = 0; j < chunks.size(); j++) {
        const Chunk& k = chunks[j];
        k_count_classes<<<blocks_for(k.s1 - k.s0, 256), 256, 0, cur_stream()>>>(
            d_scalars + k.s0, k.s1 - k.s0, density ? d_density.get() + k.s0 / 64 : nullptr, d_counts.get() + 2 * j);
        KERNEL_CHECK();
      }
      CUDA_CHECK(cudaMemcpyAsync(counts.data(), d_counts.get(), sizeof(unsigned long long) * counts.size(),
                                 cudaMemcpyDeviceToHost, cur_stream()));
      sync_stream();
      uint64_t ones = 0, others = 0;
      for (size_t j = 0; j < chunks.size(); j++) {
        ones += counts[2 * j];
        others += counts[2 * j + 1];
      }
      split = others * 4 <= n_bases;
      if (split) n_other = others, n_one = ones;
    }
    // With the split, a chunk's others are gathered after those of earlier
    // chunks and added once a quarter of all others have gathered (or the
    // next chunk's would not fit in nbuf): a few adds of many points, each
    // beside a copy, instead of one small add per chunk (a 2^25 G2 MSM in
    // 12 chunks spent 2.4 ms a window group on such adds: BENCHMARKS.md).
    // The last chunk's others are added alone: that add follows the last
    // copy, with nothing left to hide it.
    std::vector<bool> add_after(chunks.size(), false);
    uint64_t gathered_max = 0, max_ns = 0;
    if (split && o.batched_split) {
      const uint64_t quarter = (n_other + 3) / 4;
      uint64_t held = 0;
      for (size_t j = 0; j < chunks.size(); j++) {
        held += counts[2 * j + 1];
        const bool last = j + 2 >= chunks.size();  // the last two: see above
        if (last || held >= quarter || held + counts[2 * j + 3] > nbuf) {
          add_after[j] = held > 0;
          gathered_max = std::max(gathered_max, held);
          held = 0;
        }
        max_ns = std::max(max_ns, chunks[j].s1 - chunks[j].s0);
      }
    }
    Pippenger<F> pip(std::max<uint64_t>(n_other, 1), o, stream_scalars_max(cp));
    DeviceBuffer<P> ones;  // unbatched: a chunk's ones, summed into ones_sum
    if (!o.batched_split) ones.alloc(1);
    P ones_sum = P::inf();
    RunAccumulator<F> ones_acc;
    const uint64_t nt = ones_threads(nbuf);
    DeviceBuffer<P> partials;                // the ones' sums, per thread
    DeviceBuffer<Fr> other_scalars;          // the others gathered since the last add
    DeviceBuffer<Affine<F>> other_bases;
    DeviceBuffer<uint32_t> other_pos;        // a chunk's, scanned
    DeviceBuffer<uint8_t> scan_tmp;
    if (split && o.batched_split && n_one > 0) {
      partials.alloc(nt);
      CUDA_CHECK(cudaMemsetAsync(partials.get(), 0, sizeof(P) * nt, cur_stream()));  // all-zero XYZZ: infinity
    }
    if (split && o.batched_split && n_other > 0) {
      other_scalars.alloc(gathered_max);
      other_bases.alloc(gathered_max);
      other_pos.alloc(max_ns + 1);
      scan_tmp.alloc(scan_temp_bytes(max_ns + 1));
    }
    uint64_t held = 0;  // others gathered
    for (size_t j = 0; j < chunks.size(); j++) {
      const Chunk& k = chunks[j];
      const int i = (int)(j & 1);
      CUDA_CHECK(cudaStreamWaitEvent(cur_stream(), copied[i].e, 0));
      // Base index b of the chunk lives at buf[b - b0]: with a bitmap the
      // digits find global ranks, without one chunk-local indices.
      const Affine<F>* bases = density ? buf[i].get() - k.b0 : buf[i].get();
      const Fr* sc = d_scalars + k.s0;
      const uint64_t ns = k.s1 - k.s0;
      const uint64_t* dd = density ? d_density.get() + k.s0 / 64 : nullptr;
      const uint32_t* dr = density ? d_rank.get() + k.s0 / 64 : nullptr;
      if (!split) {
        pip.add(bases, sc, ns, dd, dr);
      } else if (!o.batched_split) {
        split_chunk<F>(pip, ones_acc, ones.get(), ones_sum, bases, sc, ns, dd, dr, used[i].e);
      } else {
        if (counts[2 * j] > 0) {
          k_sum_ones<F><<<blocks_for(nt, 128), 128, 0, cur_stream()>>>(sc, ns, dd, dr, bases, partials.get(), nt);
          KERNEL_CHECK();
        }
        if (counts[2 * j + 1] > 0) {
          k_classify<<<blocks_for(ns + 1, 256), 256, 0, cur_stream()>>>(sc, ns, dd, nullptr, other_pos.get());
          KERNEL_CHECK();
          scan_exclusive(other_pos.get(), ns + 1, scan_tmp);
          k_gather_others<F><<<blocks_for(ns, 256), 256, 0, cur_stream()>>>(
              sc, ns, dd, dr, other_pos.get(), bases, other_scalars.get() + held, other_bases.get() + held);
          KERNEL_CHECK();
          held += counts[2 * j + 1];
        }
      }
      if (!split || o.batched_split)
        CUDA_CHECK(cudaEventRecord(used[i].e, cur_stream()));  // the chunk's bases are read or gathered
      if (j + 2 < chunks.size()) enqueue_copy(j + 2);
      if (add_after[j]) {
        pip.add(other_bases.get(), other_scalars.get(), held, nullptr, nullptr);
        held = 0;
      }
    }
    if (partials.p) {
      fold_points<F>(partials.get(), nt);
      ones_sum = read_back(partials.get());
    }
    partials.release();
    other_scalars.release();
    other_bases.release();
    other_pos.release();
    scan_tmp.release();
    r = pip.finish().add(ones_sum);
  }
  F jac[3];
  r.to_jacobian(jac[0], jac[1], jac[2]);
  memcpy(out_jac, jac, sizeof jac);
}

// msm_stream_scratch bounds msm_stream's pool use for any scalars and
// bitmap: the converted scalars, the bitmap's copies, the two chunk
// buffers, the bucket table and the sort buffers kept across chunks, and
// the split's buffers (counted whether or not the split runs, unless
// GPUC2_MSM_NO_SPLIT rules it out): unbatched, the ones' bucket and
// accumulator and one chunk's split arrays; batched, the counts per chunk
// (at most one chunk per density word), the ones' partial sums, a chunk of
// gathered others, a chunk's positions and their scan. Then the bucket
// reduction.
template <class F>
uint64_t msm_stream_scratch(int32_t device, uint64_t n_bases, uint64_t n_scalars, uint32_t flags,
                            uint64_t chunk_points) {
  typedef XYZZ<F> P;
  const MsmOptions o(flags);
  check_sizes(n_bases, n_scalars);
  const uint64_t cp = stream_chunk_points(chunk_points);
  set_device(device);
  StreamScope scope(nullptr);
  if (n_bases == 0) return 0;
  PoolModel pm;
  if (!o.canonical) pm.alloc<Fr>(n_scalars);
  const uint64_t words = (n_scalars + 63) / 64;
  pm.alloc<uint64_t>(words);
  pm.alloc<uint32_t>(words);
  const bool split_any = !o.no_split, batched = split_any && o.batched_split;
  if (split_any && !batched) {
    const uint64_t counts = pm.alloc<unsigned long long>(2);
    pm.free(counts);
  }
  const uint64_t nb = std::min(cp, n_bases);  // bases of a chunk
  const uint64_t ns = std::min(n_scalars, stream_scalars_max(cp));  // scalars of a chunk
  for (int i = 0; i < (n_bases > cp ? 2 : 1); i++) pm.alloc<Affine<F>>(nb);
  if (batched) {
    const uint64_t counts = pm.alloc<unsigned long long>(2 * words);
    pm.free(counts);
  }
  // Pippenger: the table for n_bases points (the window grows with the
  // points), the sort buffers of the largest add (a chunk's scalars, or a
  // chunk's bases of gathered others), kept until finish.
  const uint64_t max_entries = stream_scalars_max(cp);
  const WindowPlan p(ns, n_bases, o, max_entries);
  const uint64_t buckets = pm.alloc<P>((uint64_t)p.W * p.H);
  uint64_t split = 0;
  if (batched) {
    split += pm.alloc<P>(ones_threads(nb));
    split += pm.alloc<Fr>(nb);
    split += pm.alloc<Affine<F>>(nb);
    split += pm.alloc<uint32_t>(ns + 1);
    split += pm.alloc<uint8_t>(scan_temp_bytes(ns + 1));
  }
  const uint64_t N = std::min((uint64_t)p.W * ns, std::max(max_entries, ns));  // wg*ns for any add's ns <= this one
  uint64_t sort = 0;
  for (int i = 0; i < 4; i++) sort += pm.alloc<uint32_t>(N);
  sort += pm.alloc<uint64_t>(1);
  sort += pm.alloc<uint8_t>(sort_temp_bytes(N, p.end_bit(p.W)));  // the most key bits any add sorts
  const auto runs = RunAccumulator<F>::model(pm, N);
  uint64_t ones = 0;
  if (!o.batched_split) {
    pm.alloc<P>(1);  // the ones' bucket
    if (split_any) {
      const auto acc = RunAccumulator<F>::model(pm, nb);  // kept across chunks
      ones = acc.released + acc.kept;
      // one chunk's split
      uint64_t pos = pm.alloc<uint32_t>(ns + 1);
      pos += pm.alloc<uint32_t>(ns + 1);
      const uint64_t scan = pm.alloc<uint8_t>(scan_temp_bytes(ns + 1));
      uint64_t idx = pm.alloc<uint32_t>(nb);
      idx += pm.alloc<uint32_t>(nb);
      uint64_t others = pm.alloc<Fr>(nb);
      others += pm.alloc<Affine<F>>(nb);
      pm.free(pos + scan + idx + others);
    }
  }
  pm.free(split + sort + runs.released + runs.kept + ones);
  window_sums_model<F>(pm, p.H, (uint32_t)p.W);
  pm.free(buckets);
  return pm.peak;
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
template void msm_stream<Fp>(int32_t, void*, void*, const void*, uint64_t, const void*, uint64_t, const uint64_t*,
                             uint64_t, uint32_t, uint64_t, void*);
template void msm_stream<Fp2>(int32_t, void*, void*, const void*, uint64_t, const void*, uint64_t,
                              const uint64_t*, uint64_t, uint32_t, uint64_t, void*);
template uint64_t msm_stream_scratch<Fp>(int32_t, uint64_t, uint64_t, uint32_t, uint64_t);
template uint64_t msm_stream_scratch<Fp2>(int32_t, uint64_t, uint64_t, uint32_t, uint64_t);
template uint64_t msm_scratch<Fp>(int32_t, uint64_t, uint64_t, uint32_t);
template uint64_t msm_scratch<Fp2>(int32_t, uint64_t, uint64_t, uint32_t);
template void msm_bench<Fp>(int32_t, const void*, const void*, uint64_t, uint32_t, uint32_t, float*);
template void msm_bench<Fp2>(int32_t, const void*, const void*, uint64_t, uint32_t, uint32_t, float*);

}  // namespace gpuc2
