// The 0/1 split. Filecoin witnesses are mostly bits: a scalar 0 adds nothing
// and a scalar 1 adds its point once, so those are summed as one bucket and
// only the other scalars (about 1 % in a PoRep partition) go through
// Pippenger's windows, instead of sorting every window of every scalar.
#pragma once
#include "msm_common.cuh"

namespace gpuc2 {

namespace {

// classify_scalar says whether scalar i is used and 1 (one) or used and
// neither 0 nor 1 (other).
__device__ __forceinline__ void classify_scalar(const Fr* __restrict__ scalars, uint64_t i,
                                                const uint64_t* __restrict__ density, bool& one, bool& other) {
  bool used = true;
  if (density) used = (density[i >> 6] >> (i & 63)) & 1;
  const Fr s = scalars[i];
  uint32_t high = 0;
#pragma unroll
  for (int k = 1; k < Fr::N; k++) high |= s.v[k];
  const bool zero = high == 0 && s.v[0] == 0;
  const bool is1 = high == 0 && s.v[0] == 1;
  one = used && is1;
  other = used && !zero && !is1;
}

// is_one[i] (unless is_one is null), is_other[i] (i < ns; entry ns is 0
// for the exclusive scans).
__global__ void k_classify(const Fr* __restrict__ scalars, uint64_t ns, const uint64_t* __restrict__ density,
                           uint32_t* __restrict__ is_one, uint32_t* __restrict__ is_other) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i > ns) return;
  bool one = false, other = false;
  if (i < ns) classify_scalar(scalars, i, density, one, other);
  if (is_one) is_one[i] = one;
  is_other[i] = other;
}

// counts[0] += used scalars equal to 1, counts[1] += the other used nonzero
// ones: the split's decision without its arrays (streamed MSMs).
__global__ void k_count_classes(const Fr* __restrict__ scalars, uint64_t ns, const uint64_t* __restrict__ density,
                                unsigned long long* __restrict__ counts) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  bool one = false, other = false;
  if (i < ns) classify_scalar(scalars, i, density, one, other);
  unsigned n1 = one, n2 = other;
  for (int o = 16; o > 0; o >>= 1) {
    n1 += __shfl_down_sync(0xffffffffu, n1, o);
    n2 += __shfl_down_sync(0xffffffffu, n2, o);
  }
  if ((threadIdx.x & 31) == 0) {
    if (n1) atomicAdd(&counts[0], (unsigned long long)n1);
    if (n2) atomicAdd(&counts[1], (unsigned long long)n2);
  }
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

// The streamed MSM's batched split, per chunk and without host waits: the
// ones are summed into per-thread partials kept across chunks (k_sum_ones,
// folded once at the end by k_fold_points), the others gathered after
// those of earlier chunks (k_classify without is_one, a scan,
// k_gather_others) until enough have gathered for one Pippenger add.

// After the exclusive scan of k_classify's is_other: the others' scalars
// and bases at their positions in out_scalars, out_bases.
template <class F>
__global__ void k_gather_others(const Fr* __restrict__ scalars, uint64_t ns, const uint64_t* __restrict__ density,
                                const uint32_t* __restrict__ rank, const uint32_t* __restrict__ other_pos,
                                const Affine<F>* __restrict__ bases, Fr* __restrict__ out_scalars,
                                Affine<F>* __restrict__ out_bases) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= ns || other_pos[i + 1] == other_pos[i]) return;
  bool used;
  const uint32_t b = base_index(i, density, rank, used);
  out_scalars[other_pos[i]] = scalars[i];
  out_bases[other_pos[i]] = bases[b];
}

// partials[t] += the bases of the used scalars equal to 1 among scalars
// t, t + nt, t + 2nt, ... (coalesced reads of the scalars).
template <class F>
__global__ void k_sum_ones(const Fr* __restrict__ scalars, uint64_t ns, const uint64_t* __restrict__ density,
                           const uint32_t* __restrict__ rank, const Affine<F>* __restrict__ bases,
                           XYZZ<F>* __restrict__ partials, uint64_t nt) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nt) return;
  XYZZ<F> acc = XYZZ<F>::inf();
  for (uint64_t i = t; i < ns; i += nt) {
    bool one, other;
    classify_scalar(scalars, i, density, one, other);
    if (!one) continue;
    bool used;
    const Affine<F> p = bases[base_index(i, density, rank, used)];  // by value: 16-byte loads
    acc = dev_add_affine(acc, p);
  }
  if (acc.is_inf()) return;
  const XYZZ<F> old = partials[t];
  partials[t] = dev_add(old, acc);
}

// In place, for t < m: pts[t] = pts[t] + pts[t + m] + pts[t + 2m] + ...
// (below n). Thread t alone reads those entries and writes pts[t].
template <class F>
__global__ void k_fold_points(XYZZ<F>* pts, uint64_t n, uint64_t m) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= m) return;
  XYZZ<F> acc = pts[t];
  for (uint64_t i = t + m; i < n; i += m) {
    const XYZZ<F> p = pts[i];
    acc = dev_add(acc, p);
  }
  pts[t] = acc;
}

// ONES_THREADS_MAX bounds the ones' partial sums of a streamed MSM.
constexpr uint64_t ONES_THREADS_MAX = 1ull << 17;

// ones_threads is the partial sums a streamed MSM with chunks of nb bases
// keeps for its ones: a few dozen ones per thread in a full chunk.
uint64_t ones_threads(uint64_t nb) {
  return std::min<uint64_t>(ONES_THREADS_MAX, (std::max<uint64_t>(nb / 16, 1) + 255) / 256 * 256);
}

// fold_points sums pts[0, n) into pts[0] on the current stream, a few
// levels of 64 (no host waits).
template <class F>
void fold_points(XYZZ<F>* pts, uint64_t n) {
  while (n > 1) {
    const uint64_t m = (n + 63) / 64;
    k_fold_points<F><<<blocks_for(m, 128), 128, 0, cur_stream()>>>(pts, n, m);
    KERNEL_CHECK();
    n = m;
  }
}

}  // namespace

}  // namespace gpuc2
