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
  bool one, other;
  classify_scalar(scalars, i, density, one, other);
  is_one[i] = one;
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

}  // namespace

}  // namespace gpuc2
