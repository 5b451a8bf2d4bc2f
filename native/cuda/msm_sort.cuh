// Pippenger, stage 1: the window plan, signed digits and their sort.
//
// Windows are processed in groups that bound the sort size. For a group,
// one thread per scalar writes (key = window*H + |digit|-1, value = base
// index | sign<<31) for each of its windows; zero digits and unused scalars
// get a sentinel key. A radix sort by key puts each bucket's entries
// together, and the valid prefix (keys below the sentinel) goes on to the
// accumulation (msm_accumulate.cuh).
#pragma once
#include "msm_common.cuh"
#include "msm_digits.cuh"

namespace gpuc2 {

namespace {

constexpr uint64_t MAX_ENTRIES = GPUC2_MSM_GROUP_ENTRIES;  // sort size bound per window group

int bits_for(uint64_t v) {
  int b = 0;
  while (b < 64 && (v >> b) != 0) b++;
  return b;
}

// WindowPlan is one Pippenger's layout over ns scalars and np points: window
// c (the forced one, else chosen for np), W windows of H buckets, groups of
// wg windows whose N = wg*ns digits (at most max_entries, unless one window
// of ns is more) are sorted at once.
struct WindowPlan {
  int c, W;
  uint32_t H;
  int wg;
  uint64_t N;
  WindowPlan(uint64_t ns, uint64_t np, const MsmOptions& o, uint64_t max_entries = MAX_ENTRIES) {
    c = o.window ? o.window : choose_window(np);
    W = msm_num_windows(c);
    H = 1u << (c - 1);
    wg = (int)std::max<uint64_t>(1, std::min<uint64_t>((uint64_t)W, max_entries / ns));
    N = (uint64_t)wg * ns;
  }
  // End bit of the sort of a group of g windows: keys are below g*H.
  int end_bit(int g) const { return bits_for((uint64_t)g * H); }
};

// One thread per scalar: entries for windows [w0, w0+wg) at local window lw
// go to index lw*ns + i.
__global__ void k_digits(const Fr* __restrict__ scalars, uint64_t ns, const uint64_t* __restrict__ density,
                         const uint32_t* __restrict__ rank, int c, int w0, int wg, uint32_t* __restrict__ keys,
                         uint32_t* __restrict__ vals) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= ns) return;
  const uint32_t H = 1u << (c - 1);
  const uint32_t sentinel = (uint32_t)wg * H;
  bool used;
  const uint32_t base = base_index(i, density, rank, used);
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

// sort_temp_bytes is the temporary storage of the radix sort of n
// (key, value) pairs up to end_bit (a host query of the current device).
size_t sort_temp_bytes(uint64_t n, int end_bit) {
  size_t bytes = 0;
  cub::DoubleBuffer<uint32_t> k(nullptr, nullptr), v(nullptr, nullptr);
  CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, k, v, (int)n, 0, end_bit, cur_stream()));
  return bytes;
}

// sort_pairs sorts n pairs by key up to end_bit; tmp grows to the largest
// sort it served. The sorted pairs end in dk.Current(), dv.Current().
void sort_pairs(cub::DoubleBuffer<uint32_t>& dk, cub::DoubleBuffer<uint32_t>& dv, uint64_t n, int end_bit,
                DeviceBuffer<uint8_t>& tmp) {
  size_t bytes = sort_temp_bytes(n, end_bit);
  if (tmp.n < bytes) tmp.alloc(bytes);
  CUDA_CHECK(cub::DeviceRadixSort::SortPairs(tmp.get(), bytes, dk, dv, (int)n, 0, end_bit, cur_stream()));
}

// sort_temp_max is the largest sort temporary over a plan's groups (the
// first groups hold wg windows, the last one may hold fewer).
size_t sort_temp_max(const WindowPlan& p, uint64_t ns) {
  size_t m = 0;
  for (int w0 = 0; w0 < p.W; w0 += p.wg) {
    const int g = std::min(p.wg, p.W - w0);
    m = std::max(m, sort_temp_bytes((uint64_t)g * ns, p.end_bit(g)));
  }
  return m;
}

}  // namespace

}  // namespace gpuc2
