// Shared by the MSM stages (msm_sort.cuh, msm_accumulate.cuh,
// msm_reduce.cuh, msm_split.cuh) and their driver, msm.cu, the only
// translation unit that includes them.
#pragma once
#include <cub/cub.cuh>
#include <algorithm>
#include <type_traits>
#include "common.cuh"
#include "curve.cuh"

namespace gpuc2 {

namespace {

constexpr uint32_t SIGN_BIT = 0x80000000u;     // value = base index | SIGN_BIT for a negative digit
constexpr uint64_t TARGET_THREADS = 1ull << 19;  // threads a stage aims to spread its entries over

// The header's bucket sizes (callers size memory by them) are the XYZZ points'.
static_assert(sizeof(XYZZ<Fp>) == GPUC2_MSM_BUCKET_BYTES_G1, "G1 bucket size");
static_assert(sizeof(XYZZ<Fp2>) == GPUC2_MSM_BUCKET_BYTES_G2, "G2 bucket size");

// The MSM flags of one call (gpuc2.h), checked.
struct MsmOptions {
  bool canonical = false;
  bool trace = false;
  bool no_split = false;
  bool batched_split = false;  // streamed MSMs only
  int window = 0;              // 0: the library's choice

  explicit MsmOptions(uint32_t flags) {
    const uint32_t known =
        GPUC2_MSM_SCALARS_CANONICAL | GPUC2_MSM_TRACE | GPUC2_MSM_NO_SPLIT | GPUC2_MSM_BATCHED_SPLIT |
        GPUC2_MSM_WINDOW_MASK;
    if (flags & ~known) fail(GPUC2_ERR_INVALID_ARGUMENT, "msm: unknown flags");
    canonical = flags & GPUC2_MSM_SCALARS_CANONICAL;
    trace = flags & GPUC2_MSM_TRACE;
    no_split = flags & GPUC2_MSM_NO_SPLIT;
    batched_split = flags & GPUC2_MSM_BATCHED_SPLIT;
    window = (int)((flags & GPUC2_MSM_WINDOW_MASK) >> GPUC2_MSM_WINDOW_SHIFT);
    if (window != 0 && (window < GPUC2_MSM_WINDOW_MIN || window > GPUC2_MSM_WINDOW_MAX))
      fail(GPUC2_ERR_INVALID_ARGUMENT, "msm: forced window outside [GPUC2_MSM_WINDOW_MIN, GPUC2_MSM_WINDOW_MAX]");
  }
};

// PoolModel replays allocations and frees from the stream-ordered pool to
// find their peak, for msm_scratch_bytes. Each stage keeps a model beside
// its code that makes the same allocations in the same order, with the
// largest sizes any data can give. An allocation counts rounded up to the
// pool's 2 MiB granule, an upper bound of what the pool charges for it.
struct PoolModel {
  static constexpr uint64_t GRANULE = 2ull << 20;
  uint64_t cur = 0, peak = 0;
  // alloc returns the bytes charged, to hand to free.
  template <class T>
  uint64_t alloc(uint64_t count) {
    const uint64_t b = (device_bytes<T>(count) + GRANULE - 1) / GRANULE * GRANULE;
    cur += b;
    peak = std::max(peak, cur);
    return b;
  }
  void free(uint64_t charged) { cur -= charged; }
};

template <class T>
T read_back(const T* d) {
  T h;
  CUDA_CHECK(cudaMemcpyAsync(&h, d, sizeof(T), cudaMemcpyDeviceToHost, cur_stream()));
  sync_stream();
  return h;
}

// scan_temp_bytes is the temporary storage of an exclusive sum over n
// counts (a host query of the current device).
size_t scan_temp_bytes(uint64_t n) {
  size_t bytes = 0;
  CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, (uint32_t*)nullptr, (uint32_t*)nullptr, (int)n,
                                           cur_stream()));
  return bytes;
}

// scan_exclusive replaces n counts by their exclusive prefix sums; tmp
// grows to the largest scan it served.
void scan_exclusive(uint32_t* in_out, uint64_t n, DeviceBuffer<uint8_t>& tmp) {
  size_t bytes = scan_temp_bytes(n);
  if (tmp.n < bytes) tmp.alloc(bytes);
  CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp.get(), bytes, in_out, in_out, (int)n, cur_stream()));
}

// base_index returns the base of scalar i: i itself without a density
// bitmap, else the number of used scalars before i (rank holds the per-word
// prefix counts); used says whether scalar i has a base at all.
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

}  // namespace

}  // namespace gpuc2
