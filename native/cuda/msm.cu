// Pippenger multi-scalar multiplication on G1 and G2 with signed digits.
//
// Pipeline for one call (host inputs, synchronous):
//  1. upload bases (affine), scalars (Fr) and the optional density bitmap with
//     per-word popcount prefixes (so scalar i finds its base index);
//  2. scalars to canonical form on the GPU (unless given canonical);
//  3. windows are processed in groups that bound the sort size; for a group,
//     one thread per scalar writes (key = window*H + |digit|-1, value = base
//     index | sign<<31) for each window, zero digits get a sentinel key;
//  4. radix sort by key; the valid prefix (keys below the sentinel) is summed
//     per key by a segmented reduction that splits long runs across threads
//     (chunks of S entries; each chunk emits one partial sum per run it
//     touches; repeat on the partials until one point per key remains, with
//     chunk boundaries shifted on alternate levels so every level progresses),
//     so a bucket holding most of the points (Filecoin's 0/1 scalars) is still
//     spread over many threads;
//  5. the one point per key is scattered to its bucket (W x H table);
//  6. per window, sum_b b*B_b by levels of segmented running sums (see
//     window_sums); the host combines the windows by Horner's rule and
//     converts XYZZ to Jacobian.
#include <cub/cub.cuh>
#include <vector>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include "common.cuh"
#include "curve.cuh"
#include "msm_digits.cuh"
#include "msm.cuh"

namespace gpuc2 {

namespace {

constexpr uint32_t SIGN_BIT = 0x80000000u;
constexpr uint64_t MAX_ENTRIES = 1ull << 28;  // sort size bound per window group
constexpr uint64_t TARGET_THREADS = 1ull << 19;

__global__ void k_scalars_from_mont(Fr* s, uint64_t n) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  s[i] = s[i].from_mont();
}

// One thread per scalar: entries for windows [w0, w0+wg) at local window lw
// go to index lw*ns + i.
__global__ void k_digits(const Fr* __restrict__ scalars, uint64_t ns, const uint64_t* __restrict__ density,
                         const uint32_t* __restrict__ rank, int c, int w0, int wg, uint32_t* __restrict__ keys,
                         uint32_t* __restrict__ vals) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= ns) return;
  const uint32_t H = 1u << (c - 1);
  const uint32_t sentinel = (uint32_t)wg * H;
  uint32_t base = (uint32_t)i;
  bool used = true;
  if (density) {
    uint64_t word = density[i >> 6];
    uint64_t bit = 1ull << (i & 63);
    used = (word & bit) != 0;
    base = rank[i >> 6] + (uint32_t)__popcll(word & (bit - 1));
  }
  Fr s = scalars[i];
  uint32_t carry = 0;
  const uint32_t half = H;
  for (int w = 0; w < w0 + wg; w++) {
    uint32_t v = msm_raw_window(s.v, c, w) + carry;
    carry = v > half ? 1u : 0u;
    if (w < w0) continue;
    int32_t d = carry ? (int32_t)v - (int32_t)(1u << c) : (int32_t)v;
    uint64_t idx = (uint64_t)(w - w0) * ns + i;
    if (!used || d == 0) {
      keys[idx] = sentinel;
      vals[idx] = 0;
    } else {
      uint32_t a = (uint32_t)(d < 0 ? -d : d);
      keys[idx] = (uint32_t)(w - w0) * H + (a - 1);
      vals[idx] = base | (d < 0 ? SIGN_BIT : 0u);
    }
  }
}

// lower_bound of sentinel in sorted keys (one thread).
__global__ void k_lower_bound(const uint32_t* keys, uint64_t n, uint32_t sentinel, uint64_t* out) {
  uint64_t lo = 0, hi = n;
  while (lo < hi) {
    uint64_t mid = (lo + hi) / 2;
    if (keys[mid] < sentinel)
      lo = mid + 1;
    else
      hi = mid;
  }
  *out = lo;
}

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

// Curve operations as called by the kernels: inlined for G1; calls for G2,
// whose additions inline ~10 Fp2 multiplications (themselves calls, see Fp2)
// and would otherwise leave too few registers for the kernel around them
// (measured on an H200: G2 2^24 356 ms with calls, 383 ms inlined).
template <class F>
__device__ __noinline__ XYZZ<F> dev_add_affine_call(const XYZZ<F>& acc, const Affine<F>& p) {
  return acc.add_affine(p);
}
template <class F>
__device__ __noinline__ XYZZ<F> dev_add_call(const XYZZ<F>& acc, const XYZZ<F>& p) {
  return acc.add(p);
}
template <class F>
constexpr bool point_calls = !std::is_same<F, Fp>::value;
template <class F>
__device__ __forceinline__ XYZZ<F> dev_add_affine(const XYZZ<F>& acc, const Affine<F>& p) {
  if constexpr (point_calls<F>) return dev_add_affine_call(acc, p);
  else return acc.add_affine(p);
}
template <class F>
__device__ __forceinline__ XYZZ<F> dev_add(const XYZZ<F>& acc, const XYZZ<F>& p) {
  if constexpr (point_calls<F>) return dev_add_call(acc, p);
  else return acc.add(p);
}

// Level 1: sorted (key, base|sign) -> complete runs straight into their
// bucket (buckets[bucket_base + key]); runs that may continue into a
// neighbouring chunk become partial sums at pos[t]... for the later levels.
template <class F>
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
  XYZZ<F> acc = XYZZ<F>::inf();
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
      acc = XYZZ<F>::inf();
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
      acc = dev_add(acc, pts[i]);
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
  for (uint32_t k = b; k < e; k++) acc = dev_add(acc, in[(uint64_t)w * count + k]);
  out[t] = acc;
}

int bits_for(uint64_t v) {
  int b = 0;
  while (b < 64 && (v >> b) != 0) b++;
  return b;
}

int choose_window(uint64_t n) {
  if (const char* e = getenv("GPUC2_MSM_WINDOW")) {  // experiments only
    int c = atoi(e);
    if (c >= 4 && c <= 20) return c;
  }
  int best = 4;
  double best_cost = 1e300;
  for (int c = 4; c <= 20; c++) {
    double W = (double)msm_num_windows(c);
    // a bucket costs about two full additions in window_sums, ~4 level-1 mixed additions
    double cost = W * ((double)n + 4.0 * (double)(1u << (c - 1)));
    if (cost < best_cost) {
      best_cost = cost;
      best = c;
    }
  }
  return best;
}

template <class T>
void scan_exclusive(uint32_t* in_out, uint64_t n, DeviceBuffer<uint8_t>& tmp) {
  size_t bytes = 0;
  CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in_out, in_out, (int)n, cur_stream()));
  if (tmp.n < bytes) tmp.alloc(bytes);
  CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp.get(), bytes, in_out, in_out, (int)n, cur_stream()));
}

// Phase timing to stderr when GPUC2_MSM_TRACE is set (synchronizes the device
// at each mark, so only for diagnosis).
struct Trace {
  bool on;
  std::chrono::steady_clock::time_point t0;
  double acc[8] = {0};
  Trace() : on(getenv("GPUC2_MSM_TRACE") != nullptr) {
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

template <class T>
T read_back(const T* d) {
  T h;
  CUDA_CHECK(cudaMemcpyAsync(&h, d, sizeof(T), cudaMemcpyDeviceToHost, cur_stream()));
  sync_stream();
  return h;
}

// RunAccumulator sums sorted (key, base index | sign) entries per key into
// buckets[key]: level 1 adds the affine points of each chunk of entries,
// complete runs go straight to their bucket, runs that may continue into a
// neighbouring chunk become partial sums; later levels add the partials
// (chunk boundaries shifted on alternate levels) until one point per key is
// left, which is scattered to its bucket. A bucket holding most entries
// (Filecoin's bits) is so still spread over many threads. Its buffers are
// reused across calls.
template <class F>
struct RunAccumulator {
  typedef XYZZ<F> P;
  DeviceBuffer<uint8_t> tmp;
  DeviceBuffer<unsigned long long> d_count;
  DeviceBuffer<uint32_t> cnt, ka, kb;
  DeviceBuffer<P> pa, pb;

  void release() {
    cnt.release();
    ka.release();
    kb.release();
    pa.release();
    pb.release();
    tmp.release();
  }

  // level1_chunk returns the entries per level-1 thread: about L/2^19,
  // adjusted so the threads fill a whole number of waves of the kernel's
  // resident threads. They do equal work, so a last wave a third full would
  // idle two thirds of the GPU for a wave's time (~6 % of G1 2^26).
  static uint64_t level1_chunk(uint64_t L) {
    const uint64_t S0 = std::max<uint64_t>(1, std::min<uint64_t>(1024, (L + TARGET_THREADS - 1) / TARGET_THREADS));
    int dev = 0, sms = 0, per_sm = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_accumulate_affine<F>, 128, 0) != cudaSuccess ||
        sms <= 0 || per_sm <= 0) {
      cudaGetLastError();  // clear it: the default chunk is still correct
      return S0;
    }
    const uint64_t R = (uint64_t)sms * (uint64_t)per_sm * 128;
    const uint64_t NT0 = (L + S0 - 1) / S0;
    if (NT0 <= R) return S0;  // a single wave
    uint64_t waves = (NT0 + R / 2) / R;
    uint64_t S = (L + waves * R - 1) / (waves * R);
    while (S > 1024) {
      waves++;
      S = (L + waves * R - 1) / (waves * R);
    }
    return S;
  }

  void run(const uint32_t* keys, const uint32_t* vals, uint64_t T, const Affine<F>* d_bases, P* buckets) {
    const unsigned TPB = 256;
    if (T == 0) return;
    if (!d_count.p) d_count.alloc(1);
    // Level 1: affine entries -> complete buckets and boundary partials.
    uint64_t L = T;
    uint64_t S = level1_chunk(L);
    uint64_t NT = (L + S - 1) / S;
    cnt.alloc(NT + 1);
    CUDA_CHECK(cudaMemsetAsync(cnt.get(), 0, sizeof(uint32_t) * (NT + 1), cur_stream()));
    k_count_partial<<<blocks_for(NT, TPB), TPB, 0, cur_stream()>>>(keys, L, S, NT, cnt.get());
    KERNEL_CHECK();
    scan_exclusive<uint32_t>(cnt.get(), NT + 1, tmp);
    uint64_t L1 = read_back(cnt.get() + NT);
    if (ka.n < L1 || !ka.p) {
      ka.alloc(L1);
      kb.alloc(L1);
      pa.alloc(L1);
      pb.alloc(L1);
    }
    k_accumulate_affine<F><<<blocks_for(NT, 128), 128, 0, cur_stream()>>>(keys, vals, d_bases, L, S, NT, cnt.get(),
                                                                          ka.get(), pa.get(), buckets, 0);
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
      S = std::max<uint64_t>(4, std::min<uint64_t>(256, (L + TARGET_THREADS - 1) / TARGET_THREADS));
      uint64_t off = (level & 1) ? S / 2 : 0;
      NT = (L + off + S - 1) / S;
      cnt.alloc(NT + 1);
      CUDA_CHECK(cudaMemsetAsync(cnt.get(), 0, sizeof(uint32_t) * (NT + 1), cur_stream()));
      k_count_runs<<<blocks_for(NT, TPB), TPB, 0, cur_stream()>>>(ck, L, S, off, NT, cnt.get());
      KERNEL_CHECK();
      scan_exclusive<uint32_t>(cnt.get(), NT + 1, tmp);
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
};

// The 0/1 split. Filecoin witnesses are mostly bits: a scalar 0 adds nothing
// and a scalar 1 adds its point once, so those are summed as one bucket and
// only the other scalars (about 1 % in a PoRep partition) go through
// Pippenger's windows, instead of sorting every window of every scalar.
__device__ __forceinline__ uint32_t base_index(uint64_t i, const uint64_t* density, const uint32_t* rank, bool& used) {
  if (!density) {
    used = true;
    return (uint32_t)i;
  }
  uint64_t word = density[i >> 6];
  uint64_t bit = 1ull << (i & 63);
  used = (word & bit) != 0;
  return rank[i >> 6] + (uint32_t)__popcll(word & (bit - 1));
}

// is_one[i], is_other[i] (i < ns; entry ns is 0 for the exclusive scans).
__global__ void k_classify(const Fr* __restrict__ scalars, uint64_t ns, const uint64_t* __restrict__ density,
                           uint32_t* __restrict__ is_one, uint32_t* __restrict__ is_other) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i > ns) return;
  if (i == ns) {
    is_one[i] = 0;
    is_other[i] = 0;
    return;
  }
  bool used = true;
  if (density) used = (density[i >> 6] >> (i & 63)) & 1;
  const Fr s = scalars[i];
  uint32_t high = 0;
#pragma unroll
  for (int k = 1; k < Fr::N; k++) high |= s.v[k];
  const bool zero = high == 0 && s.v[0] == 0;
  const bool one = high == 0 && s.v[0] == 1;
  is_one[i] = used && one;
  is_other[i] = used && !zero && !one;
}

// After exclusive scans: one_idx lists the bases of the ones; the others'
// scalars and bases are gathered into dense arrays.
template <class F>
__global__ void k_split(const Fr* __restrict__ scalars, uint64_t ns, const uint64_t* __restrict__ density,
                        const uint32_t* __restrict__ rank, const uint32_t* __restrict__ one_pos,
                        const uint32_t* __restrict__ other_pos, const Affine<F>* __restrict__ bases,
                        uint32_t* __restrict__ one_idx, Fr* __restrict__ other_scalars,
                        Affine<F>* __restrict__ other_bases) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= ns) return;
  bool used;
  const uint32_t b = base_index(i, density, rank, used);
  if (one_pos[i + 1] != one_pos[i]) {
    one_idx[one_pos[i]] = b;
  } else if (other_pos[i + 1] != other_pos[i]) {
    other_scalars[other_pos[i]] = scalars[i];
    other_bases[other_pos[i]] = bases[b];
  }
}

// sum_per_window writes to out[w] the sum of in[w*count ... +count) for each
// of W windows, by a tree of group sums (in is left as it was).
template <class F>
void sum_per_window(const XYZZ<F>* in, uint32_t count, uint32_t W, XYZZ<F>* out) {
  const uint32_t G = 16;
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
  // A of level l at sums[l*W + w]; levels are few (H <= 2^19, SEG >= 4).
  DeviceBuffer<P> sums((uint64_t)W * 16);
  const P* cur = buckets;
  uint32_t len = H;
  while (len > 1) {
    // Segments of 32 when that still gives 2^16 threads, else smaller.
    uint32_t SEG = 32;
    while (SEG > 4 && (uint64_t)W * len / SEG < (1u << 16)) SEG /= 2;
    const uint32_t nseg = (len + SEG - 1) / SEG;
    if (segs.size() == 16) fail(GPUC2_ERR_INTERNAL, "msm: too many bucket reduction levels");
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

}  // namespace

// Pippenger over bases and scalars already on the device (scalars in
// canonical form). Returns the result as XYZZ on the host.
template <class F>
XYZZ<F> msm_pippenger(const Affine<F>* d_bases, const Fr* d_scalars, uint64_t ns, const uint64_t* d_density,
                      const uint32_t* d_rank, uint64_t n_points) {
  typedef XYZZ<F> P;
  if (ns == 0 || n_points == 0) return P::inf();
  const int c = choose_window(n_points);
  const int W = msm_num_windows(c);
  const uint32_t H = 1u << (c - 1);
  int wg = (int)std::max<uint64_t>(1, std::min<uint64_t>((uint64_t)W, MAX_ENTRIES / ns));
  const uint64_t N = (uint64_t)wg * ns;
  if (N > (1ull << 31) - 1) fail(GPUC2_ERR_NOT_SUPPORTED, "msm: too many scalars");

  Trace tr;
  int ngroups = 0;
  DeviceBuffer<P> buckets((uint64_t)W * H);
  CUDA_CHECK(cudaMemsetAsync(buckets.get(), 0, sizeof(P) * (uint64_t)W * H, cur_stream()));
  DeviceBuffer<uint32_t> k0(N), k1(N), v0(N), v1(N);
  DeviceBuffer<uint8_t> tmp;
  DeviceBuffer<uint64_t> d_u64(1);
  RunAccumulator<F> runs;
  const unsigned TPB = 256;

  for (int w0 = 0; w0 < W; w0 += wg) {
    const int g = std::min(wg, W - w0);
    const uint64_t n = (uint64_t)g * ns;
    const uint32_t sentinel = (uint32_t)g * H;
    ngroups++;
    tr.mark(0);
    k_digits<<<blocks_for(ns, TPB), TPB, 0, cur_stream()>>>(d_scalars, ns, d_density, d_rank, c, w0, g, k0.get(), v0.get());
    KERNEL_CHECK();
    tr.mark(1);
    cub::DoubleBuffer<uint32_t> dk(k0.get(), k1.get()), dv(v0.get(), v1.get());
    size_t bytes = 0;
    int end_bit = bits_for(sentinel);
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, dk, dv, (int)n, 0, end_bit, cur_stream()));
    if (tmp.n < bytes) tmp.alloc(bytes);
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(tmp.get(), bytes, dk, dv, (int)n, 0, end_bit, cur_stream()));
    const uint32_t* keys = dk.Current();
    const uint32_t* vals = dv.Current();
    tr.mark(2);
    k_lower_bound<<<1, 1, 0, cur_stream()>>>(keys, n, sentinel, d_u64.get());
    KERNEL_CHECK();
    const uint64_t T = read_back(d_u64.get());
    if (T == 0) continue;

    runs.run(keys, vals, T, d_bases, buckets.get() + (uint64_t)w0 * H);
    tr.mark(3);
  }
  tr.mark(5);
  // release sort buffers before the bucket reduction
  k0.release();
  k1.release();
  v0.release();
  v1.release();
  runs.release();

  const std::vector<P> win = window_sums<F>(buckets.get(), H, (uint32_t)W);
  buckets.release();
  tr.mark(6);
  P acc = P::inf();
  for (int w = W - 1; w >= 0; w--) {
    for (int i = 0; i < c; i++) acc = acc.dbl();
    acc = acc.add(win[w]);
  }
  tr.mark(7);
  tr.print(n_points, c, W, ngroups);
  return acc;
}

// One MSM call. resident: bases and scalars are device pointers (scalars are
// not modified; Montgomery ones are converted into a temporary), otherwise
// host pointers uploaded here. The density bitmap is always host memory.
// The MSM of one call: the 0/1 split when most used scalars are 0 or 1,
// Pippenger on all of them otherwise.
template <class F>
XYZZ<F> msm_device(const Affine<F>* d_bases, const Fr* d_scalars, uint64_t ns, const uint64_t* d_density,
                   const uint32_t* d_rank, uint64_t n_points) {
  typedef XYZZ<F> P;
  if (ns == 0 || n_points == 0) return P::inf();
  DeviceBuffer<uint32_t> one_pos(ns + 1), other_pos(ns + 1);
  k_classify<<<blocks_for(ns + 1, 256), 256, 0, cur_stream()>>>(d_scalars, ns, d_density, one_pos.get(),
                                                                 other_pos.get());
  KERNEL_CHECK();
  DeviceBuffer<uint8_t> tmp;
  scan_exclusive<uint32_t>(one_pos.get(), ns + 1, tmp);
  scan_exclusive<uint32_t>(other_pos.get(), ns + 1, tmp);
  const uint64_t n_one = read_back(one_pos.get() + ns);
  const uint64_t n_other = read_back(other_pos.get() + ns);
  if (getenv("GPUC2_MSM_NO_SPLIT") || n_other * 4 > n_points) {  // env: experiments only
    one_pos.release();
    other_pos.release();
    return msm_pippenger<F>(d_bases, d_scalars, ns, d_density, d_rank, n_points);
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
  const P others = msm_pippenger<F>(other_bases.get(), other_scalars.get(), n_other, nullptr, nullptr, n_other);
  return ones.add(others);
}

template <class F>
void msm_call(int32_t device, void* stream, bool resident, const void* bases, uint64_t n_bases, const void* scalars,
              uint64_t n_scalars, const uint64_t* density, uint64_t density_words, uint32_t flags, void* out_jac) {
  if (!out_jac) fail(GPUC2_ERR_INVALID_ARGUMENT, "msm: out is NULL");
  if ((n_bases && !bases) || (n_scalars && !scalars)) fail(GPUC2_ERR_INVALID_ARGUMENT, "msm: NULL input");
  if (n_scalars >= (1ull << 31)) fail(GPUC2_ERR_NOT_SUPPORTED, "msm: more than 2^31-1 scalars");
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
    const bool canonical = flags & GPUC2_MSM_SCALARS_CANONICAL;
    if (!resident) {
      up_bases.alloc(n_bases);
      CUDA_CHECK(cudaMemcpyAsync(up_bases.get(), bases, sizeof(Affine<F>) * n_bases, cudaMemcpyHostToDevice,
                                 cur_stream()));
      d_bases = up_bases.get();
    }
    if (!resident || !canonical) {
      up_scalars.alloc(n_scalars);
      CUDA_CHECK(cudaMemcpyAsync(up_scalars.get(), scalars, sizeof(Fr) * n_scalars,
                                 resident ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice, cur_stream()));
      if (!canonical) {
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
                      density ? d_rank.get() : nullptr, n_bases);
  }
  F jac[3];
  r.to_jacobian(jac[0], jac[1], jac[2]);
  memcpy(out_jac, jac, sizeof jac);  // caller memory need not be 16-byte aligned
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
void msm_bench(int32_t device, const void* bases, const void* scalars, uint64_t n, uint32_t iters, float* ms) {
  set_device(device);
  StreamScope scope(nullptr);
  DeviceBuffer<Affine<F>> d_bases(n);
  DeviceBuffer<Fr> d_scalars(n);
  CUDA_CHECK(cudaMemcpyAsync(d_bases.get(), bases, sizeof(Affine<F>) * n, cudaMemcpyHostToDevice, cur_stream()));
  CUDA_CHECK(cudaMemcpyAsync(d_scalars.get(), scalars, sizeof(Fr) * n, cudaMemcpyHostToDevice, cur_stream()));
  k_scalars_from_mont<<<blocks_for(n, 256), 256, 0, cur_stream()>>>(d_scalars.get(), n);
  KERNEL_CHECK();
  Event a, b;
  for (uint32_t it = 0; it < iters; it++) {
    a.record();
    msm_device<F>(d_bases.get(), d_scalars.get(), n, nullptr, nullptr, n);
    b.record();
    CUDA_CHECK(cudaEventSynchronize(b.e));
    CUDA_CHECK(cudaEventElapsedTime(&ms[it], a.e, b.e));
  }
}

template void msm_call<Fp>(int32_t, void*, bool, const void*, uint64_t, const void*, uint64_t, const uint64_t*,
                           uint64_t, uint32_t, void*);
template void msm_call<Fp2>(int32_t, void*, bool, const void*, uint64_t, const void*, uint64_t, const uint64_t*,
                            uint64_t, uint32_t, void*);
template void msm_bench<Fp>(int32_t, const void*, const void*, uint64_t, uint32_t, float*);
template void msm_bench<Fp2>(int32_t, const void*, const void*, uint64_t, uint32_t, float*);

}  // namespace gpuc2
