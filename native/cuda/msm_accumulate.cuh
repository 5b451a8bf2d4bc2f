// Pippenger, stage 2: bucket accumulation. Sorted (key, base index | sign)
// entries are summed per key by a segmented reduction that splits long runs
// across threads: chunks of S entries, each chunk emitting one partial sum
// per run it touches, repeated on the partials until one point per key
// remains (chunk boundaries shifted on alternate levels so every level
// progresses). A bucket holding most of the points (Filecoin's 0/1 scalars)
// is so still spread over many threads.
#pragma once
#include "msm_common.cuh"

namespace gpuc2 {

namespace {

// Level-1 threads at most, so that the partial sums (at most two per
// thread) stay within the header's bound.
constexpr uint64_t LEVEL1_THREADS_MAX = GPUC2_MSM_PARTIALS_MAX / 2;
static_assert(LEVEL1_THREADS_MAX >= TARGET_THREADS, "level-1 thread bound");

// Count of distinct keys in sorted keys[0, n).
__global__ void k_count_distinct(const uint32_t* keys, uint64_t n, unsigned long long* out) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = 0;
  if (i < n) v = (i == 0 || keys[i] != keys[i - 1]) ? 1u : 0u;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0 && v) atomicAdd(out, (unsigned long long)v);
}

__device__ __forceinline__ void chunk_range(uint64_t t, uint64_t S, uint64_t off, uint64_t L, uint64_t& b,
                                            uint64_t& e) {
  uint64_t s = t * S;
  b = s > off ? s - off : 0;
  e = (t + 1) * S - off;
  if (e > L) e = L;
}

__global__ void k_count_runs(const uint32_t* __restrict__ keys, uint64_t L, uint64_t S, uint64_t off, uint64_t NT,
                             uint32_t* __restrict__ cnt) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= NT) return;
  uint64_t b, e;
  chunk_range(t, S, off, L, b, e);
  uint32_t r = 0;
  if (b < e) {
    r = 1;
    uint32_t prev = keys[b];
    for (uint64_t i = b + 1; i < e; i++) {
      uint32_t k = keys[i];
      r += k != prev;
      prev = k;
    }
  }
  cnt[t] = r;
}

// Level 1 only: number of runs in chunk t that may continue into a neighbour
// chunk (0, 1 or 2). Runs wholly inside the chunk are complete buckets.
__device__ __forceinline__ bool run_is_partial(const uint32_t* keys, uint64_t L, uint64_t b, uint64_t e, uint64_t rb,
                                               uint64_t re) {
  return (rb == b && b > 0 && keys[b - 1] == keys[b]) || (re == e && e < L && keys[e] == keys[e - 1]);
}

__global__ void k_count_partial(const uint32_t* __restrict__ keys, uint64_t L, uint64_t S, uint64_t NT,
                                uint32_t* __restrict__ cnt) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= NT) return;
  uint64_t b, e;
  chunk_range(t, S, 0, L, b, e);
  uint32_t r = 0;
  if (b < e) {
    // first run
    uint64_t re = b + 1;
    while (re < e && keys[re] == keys[b]) re++;
    r += run_is_partial(keys, L, b, e, b, re);
    if (re < e) {  // last run differs from the first
      uint64_t rb = e - 1;
      while (keys[rb - 1] == keys[e - 1]) rb--;
      r += run_is_partial(keys, L, b, e, rb, e);
    }
  }
  cnt[t] = r;
}

// Level 1: sorted (key, base|sign) -> complete runs straight into their
// bucket (buckets[bucket_base + key]); runs that may continue into a
// neighbouring chunk become partial sums at pos[t]... for the later levels.
// SEEDED: each run's sum starts from its bucket's value, in the thread that
// holds the run's first entry (the others start from infinity), so that a
// later add of a streamed MSM sums into the table it shares with earlier
// adds: a load, no addition of two XYZZ points in this loop.
template <class F, bool SEEDED>
__global__ void k_accumulate_affine(const uint32_t* __restrict__ keys, const uint32_t* __restrict__ vals,
                                    const Affine<F>* __restrict__ bases, uint64_t L, uint64_t S, uint64_t NT,
                                    const uint32_t* __restrict__ pos, uint32_t* __restrict__ okeys,
                                    XYZZ<F>* __restrict__ opts, XYZZ<F>* __restrict__ buckets, uint64_t bucket_base) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= NT) return;
  uint64_t b, e;
  chunk_range(t, S, 0, L, b, e);
  if (b >= e) return;
  uint32_t o = pos[t];
  uint32_t cur = keys[b];
  uint64_t rb = b;
  auto start = [&](uint32_t key, bool first) -> XYZZ<F> {
    if (SEEDED && first) {
      const XYZZ<F> seed = buckets[bucket_base + key];  // by value: 16-byte loads
      return seed;
    }
    return XYZZ<F>::inf();
  };
  XYZZ<F> acc = start(cur, b == 0 || keys[b - 1] != cur);
  for (uint64_t i = b; i <= e; i++) {
    uint32_t k = i < e ? keys[i] : 0xffffffffu;
    if (i == e || k != cur) {
      if (run_is_partial(keys, L, b, e, rb, i)) {
        okeys[o] = cur;
        opts[o] = acc;
        o++;
      } else {
        buckets[bucket_base + cur] = acc;
      }
      if (i == e) break;
      cur = k;
      rb = i;
      acc = start(cur, true);
    }
    uint32_t v = vals[i];
    Affine<F> p = bases[v & ~SIGN_BIT];
    if (v & SIGN_BIT) p = p.neg();
    acc = dev_add_affine(acc, p);
  }
}

// Later levels: sorted (key, XYZZ) -> one partial per (chunk, run).
template <class F>
__global__ void k_accumulate_xyzz(const uint32_t* __restrict__ keys, const XYZZ<F>* __restrict__ pts, uint64_t L,
                                  uint64_t S, uint64_t off, uint64_t NT, const uint32_t* __restrict__ pos,
                                  uint32_t* __restrict__ okeys, XYZZ<F>* __restrict__ opts) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= NT) return;
  uint64_t b, e;
  chunk_range(t, S, off, L, b, e);
  if (b >= e) return;
  uint32_t o = pos[t];
  uint32_t cur = keys[b];
  XYZZ<F> acc = pts[b];
  for (uint64_t i = b + 1; i < e; i++) {
    uint32_t k = keys[i];
    if (k != cur) {
      okeys[o] = cur;
      opts[o] = acc;
      o++;
      cur = k;
      acc = pts[i];
    } else {
      const XYZZ<F> p = pts[i];  // by value: through a reference, 4-byte loads
      acc = dev_add(acc, p);
    }
  }
  okeys[o] = cur;
  opts[o] = acc;
}

template <class F>
__global__ void k_scatter(const uint32_t* __restrict__ keys, const XYZZ<F>* __restrict__ pts, uint64_t L,
                          uint64_t base, XYZZ<F>* __restrict__ buckets) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= L) return;
  buckets[base + keys[i]] = pts[i];
}

// RunAccumulator sums sorted (key, base index | sign) entries per key into
// buckets[key]: level 1 adds the affine points of each chunk of entries,
// complete runs go straight to their bucket, runs that may continue into a
// neighbouring chunk become partial sums; later levels add the partials
// (chunk boundaries shifted on alternate levels) until one point per key is
// left, which is scattered to its bucket. Its buffers are reused across
// calls; model() mirrors their allocations.
template <class F>
struct RunAccumulator {
  typedef XYZZ<F> P;
  DeviceBuffer<uint8_t> tmp;
  DeviceBuffer<unsigned long long> d_count;
  DeviceBuffer<uint32_t> cnt, ka, kb;
  DeviceBuffer<P> pa, pb;

  // release frees all but d_count (freed with the accumulator).
  void release() {
    cnt.release();
    ka.release();
    kb.release();
    pa.release();
    pb.release();
    tmp.release();
  }

  // resident_threads is the number of level-1 threads the current device
  // runs at once (0 when the query fails: then the chunks keep their
  // default size, which is still correct).
  static uint64_t resident_threads() {
    int dev = 0, sms = 0, per_sm = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_accumulate_affine<F, false>, 128, 0) != cudaSuccess ||
        sms <= 0 || per_sm <= 0) {
      cudaGetLastError();  // clear it
      return 0;
    }
    return (uint64_t)sms * (uint64_t)per_sm * 128;
  }

  // level1_chunk returns the entries per level-1 thread: about L/2^19,
  // adjusted so the threads fill a whole number of waves of the kernel's
  // resident threads R. They do equal work, so a last wave a third full would
  // idle two thirds of the GPU for a wave's time (~6 % of G1 2^26). The
  // threads are then at most NT0 + R/2 (NT0 <= 2^19 the unadjusted count),
  // and never more than LEVEL1_THREADS_MAX.
  static uint64_t level1_chunk(uint64_t L, uint64_t R) {
    const uint64_t S0 = std::max<uint64_t>(1, (L + TARGET_THREADS - 1) / TARGET_THREADS);
    const uint64_t NT0 = (L + S0 - 1) / S0;
    if (R == 0 || NT0 <= R) return S0;  // a single wave
    const uint64_t waves = (NT0 + R / 2) / R;
    if (waves * R > LEVEL1_THREADS_MAX) return S0;
    return (L + waves * R - 1) / (waves * R);
  }

  // level1_threads_max bounds the level-1 threads of any L' <= L (see
  // level1_chunk).
  static uint64_t level1_threads_max(uint64_t L, uint64_t R) {
    return std::min(L, R == 0 ? TARGET_THREADS : std::min(TARGET_THREADS + R / 2, LEVEL1_THREADS_MAX));
  }

  // run sums the entries into buckets: their runs' sums replace the
  // buckets' values, or with seeded are added to them (a bucket no entry
  // names keeps its value either way).
  void run(const uint32_t* keys, const uint32_t* vals, uint64_t T, const Affine<F>* d_bases, P* buckets,
           bool seeded = false) {
    const unsigned TPB = 256;
    if (T == 0) return;
    if (!d_count.p) d_count.alloc(1);
    // Level 1: affine entries -> complete buckets and boundary partials.
    uint64_t L = T;
    uint64_t S = level1_chunk(L, resident_threads());
    uint64_t NT = (L + S - 1) / S;
    cnt.alloc(NT + 1);
    CUDA_CHECK(cudaMemsetAsync(cnt.get(), 0, sizeof(uint32_t) * (NT + 1), cur_stream()));
    k_count_partial<<<blocks_for(NT, TPB), TPB, 0, cur_stream()>>>(keys, L, S, NT, cnt.get());
    KERNEL_CHECK();
    scan_exclusive(cnt.get(), NT + 1, tmp);
    uint64_t L1 = read_back(cnt.get() + NT);
    if (ka.n < L1 || !ka.p) {
      ka.alloc(L1);
      kb.alloc(L1);
      pa.alloc(L1);
      pb.alloc(L1);
    }
    const auto level1 = seeded ? k_accumulate_affine<F, true> : k_accumulate_affine<F, false>;
    level1<<<blocks_for(NT, 128), 128, 0, cur_stream()>>>(keys, vals, d_bases, L, S, NT, cnt.get(), ka.get(), pa.get(),
                                                          buckets, 0);
    KERNEL_CHECK();
    L = L1;
    uint32_t* ck = ka.get();
    P* cp = pa.get();
    uint32_t* nk = kb.get();
    P* np = pb.get();
    // distinct keys among the partials (they stay sorted)
    CUDA_CHECK(cudaMemsetAsync(d_count.get(), 0, sizeof(unsigned long long), cur_stream()));
    if (L > 0) {
      k_count_distinct<<<blocks_for(L, TPB), TPB, 0, cur_stream()>>>(ck, L, d_count.get());
      KERNEL_CHECK();
    }
    const uint64_t D = read_back(d_count.get());
    int level = 1;
    while (L > D) {
      if (level > 200) fail(GPUC2_ERR_INTERNAL, "msm: bucket reduction did not converge");
      S = later_chunk(L);
      uint64_t off = (level & 1) ? S / 2 : 0;
      NT = (L + off + S - 1) / S;
      cnt.alloc(NT + 1);
      CUDA_CHECK(cudaMemsetAsync(cnt.get(), 0, sizeof(uint32_t) * (NT + 1), cur_stream()));
      k_count_runs<<<blocks_for(NT, TPB), TPB, 0, cur_stream()>>>(ck, L, S, off, NT, cnt.get());
      KERNEL_CHECK();
      scan_exclusive(cnt.get(), NT + 1, tmp);
      uint64_t Ln = read_back(cnt.get() + NT);
      k_accumulate_xyzz<F><<<blocks_for(NT, 128), 128, 0, cur_stream()>>>(ck, cp, L, S, off, NT, cnt.get(), nk, np);
      KERNEL_CHECK();
      std::swap(ck, nk);
      std::swap(cp, np);
      L = Ln;
      level++;
    }
    if (L > 0) {
      k_scatter<F><<<blocks_for(L, TPB), TPB, 0, cur_stream()>>>(ck, cp, L, 0, buckets);
      KERNEL_CHECK();
    }
  }

  // Chunk size of the later levels: at least 4 partials per thread.
  static uint64_t later_chunk(uint64_t L) {
    return std::max<uint64_t>(4, std::min<uint64_t>(256, (L + TARGET_THREADS - 1) / TARGET_THREADS));
  }

  // Charged is what model() allocated: the part release() frees, and d_count.
  struct Charged {
    uint64_t released = 0, kept = 0;
  };

  // model allocates in pm what run() holds at most over any number of calls
  // with up to T entries each: level 1 has at most level1_threads_max
  // threads and at most two partials per thread (and no more partials than
  // entries); a later level's chunks hold at least 4 of the (never more)
  // partials, so its threads are at most L1/4 + 2.
  static Charged model(PoolModel& pm, uint64_t T) {
    Charged c;
    if (T == 0) return c;
    const uint64_t nt = level1_threads_max(T, resident_threads());
    const uint64_t l1 = std::min(T, 2 * nt);
    const uint64_t counts = std::max(nt, l1 / 4 + 2) + 1;
    c.kept = pm.alloc<unsigned long long>(1);
    c.released += pm.alloc<uint32_t>(counts);
    c.released += pm.alloc<uint8_t>(scan_temp_bytes(counts));
    for (int i = 0; i < 2; i++) c.released += pm.alloc<uint32_t>(l1);  // ka, kb
    for (int i = 0; i < 2; i++) c.released += pm.alloc<P>(l1);         // pa, pb
    return c;
  }
};

}  // namespace

}  // namespace gpuc2
