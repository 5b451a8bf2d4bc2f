// Signed-digit decomposition of canonical scalars (< r < 2^255) for Pippenger
// with window size c: s = sum_w d_w 2^(c w), d_w in [-2^(c-1), 2^(c-1)].
// A window's raw value plus the carry in is turned negative (and a carry
// passed up) when it exceeds 2^(c-1). With ceil(256/c) windows the top window
// holds at most c-1 bits of s, so no carry leaves it.
#pragma once
#include <stdint.h>
#include "../include/gpuc2.h"

#ifndef GPUC2_HD
#define GPUC2_HD __host__ __device__ __forceinline__
#endif

namespace gpuc2 {

GPUC2_HD int msm_num_windows(int c) { return (256 + c - 1) / c; }

// msm_raw_window returns bits [c*w, c*w+c) of the 256-bit little-endian s.
GPUC2_HD uint32_t msm_raw_window(const uint32_t* s, int c, int w) {
  int bit = c * w;
  if (bit >= 256) return 0;
  int limb = bit >> 5, off = bit & 31;
  uint64_t x = s[limb];
  if (limb + 1 < 8) x |= (uint64_t)s[limb + 1] << 32;
  return (uint32_t)(x >> off) & ((1u << c) - 1);
}

// msm_digit returns the signed digit of window w (walks the carries from window 0).
GPUC2_HD int32_t msm_digit(const uint32_t* s, int c, int w) {
  uint32_t carry = 0;
  const uint32_t half = 1u << (c - 1);
  for (int i = 0;; i++) {
    uint32_t v = msm_raw_window(s, c, i) + carry;
    carry = v > half ? 1u : 0u;
    if (i == w) return carry ? (int32_t)v - (int32_t)(1u << c) : (int32_t)v;
  }
}

// choose_window returns the window c for n points that minimizes the
// estimated additions: per window, one per point plus ~4 per bucket (a
// bucket costs about two full additions in the bucket reduction, ~4
// level-1 mixed additions). It lies in [GPUC2_MSM_WINDOW_MIN,
// GPUC2_MSM_WINDOW_MAX] and grows with n (hosttest checks both).
inline int choose_window(uint64_t n) {
  int best = GPUC2_MSM_WINDOW_MIN;
  double best_cost = 1e300;
  for (int c = GPUC2_MSM_WINDOW_MIN; c <= GPUC2_MSM_WINDOW_MAX; c++) {
    double W = (double)msm_num_windows(c);
    double cost = W * ((double)n + 4.0 * (double)(1u << (c - 1)));
    if (cost < best_cost) {
      best_cost = cost;
      best = c;
    }
  }
  return best;
}

}  // namespace gpuc2
