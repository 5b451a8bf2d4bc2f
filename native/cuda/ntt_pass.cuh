// The NTT's shared-memory passes as one thread of a block sees them, in
// __host__ __device__ code: the kernels in ntt.cu run them with a barrier
// between steps, hosttest.cu runs a block's threads one after another at
// each step (hosttest_ntt.cuh) and checks whole transforms against a
// textbook one.
#pragma once
#include <vector>
#include "field.cuh"

namespace gpuc2 {

// A pass holds a block of at most 2^SHARED_LOG elements in shared memory
// (32 KiB). The first pass (logL = 0) runs up to SHARED_LOG stages on
// consecutive elements; the later ones up to PASS_LOG stages over runs of at
// least 2^(SHARED_LOG - PASS_LOG) consecutive elements (64 bytes). 2^27 takes
// 10 + 9 + 8 stages.
constexpr uint32_t SHARED_LOG = 10;
constexpr uint32_t PASS_LOG = 9;
// A block has E/4 threads; at 128 registers a thread, two blocks fit an SM.
// (Capping the plain passes at 64 or 80 registers, 4 or 3 blocks, made the
// plain transforms up to 1 % faster but H 2-5 % slower: NOTES.md.)
constexpr uint32_t STAGES_THREADS_MAX = 1u << (SHARED_LOG - 2);
constexpr uint32_t STAGES_BLOCKS_MIN = 2;

// One shared-memory pass of a transform over 2^log_m elements: stages
// [s0, s0+ns) (1-based) in blocks of 2^(ns+logL) elements.
struct Pass {
  uint32_t s0, ns, logL;
};

// ntt_passes splits log_m stages into passes: the first of up to
// shared_log stages, the later ones of up to pass_log.
inline std::vector<Pass> ntt_passes(uint32_t log_m, uint32_t shared_log = SHARED_LOG, uint32_t pass_log = PASS_LOG) {
  std::vector<Pass> out;
  for (uint32_t s0 = 1; s0 <= log_m;) {
    const uint32_t left = log_m - s0 + 1;
    Pass p{s0, 0, 0};
    if (s0 == 1) {
      p.ns = left < shared_log ? left : shared_log;
    } else {
      p.ns = left < pass_log ? left : pass_log;
      p.logL = shared_log - p.ns < s0 - 1 ? shared_log - p.ns : s0 - 1;
    }
    out.push_back(p);
    s0 += p.ns;
  }
  return out;
}

// The threads of a pass's block of E elements: a thread takes four
// elements through a step.
GPUC2_HD uint32_t pass_threads(uint32_t E) { return E >= 4 ? E / 4 : 1; }

// x's low nbits bits reversed.
GPUC2_HD uint64_t rev_bits64(uint64_t x, uint32_t nbits) {
  if (!nbits) return 0;
#ifdef __CUDA_ARCH__
  return __brevll(x) >> (64 - nbits);
#else
  uint64_t r = 0;
  for (uint32_t i = 0; i < nbits; i++) r |= ((x >> i) & 1) << (nbits - 1 - i);
  return r;
#endif
}

// Host-side constants of the transforms (NttPlan's tables; hosttest's).
inline Fr load_fr(const uint32_t* w) {
  Fr r;
  for (int i = 0; i < 8; i++) r.v[i] = w[i];
  return r;
}

inline Fr fr_from_u64(uint64_t x) {
  Fr r = Fr::zero();
  r.v[0] = (uint32_t)x;
  r.v[1] = (uint32_t)(x >> 32);
  return r.to_mont();
}

// A root of unity of order 2^lg.
inline Fr root_of_unity(uint32_t lg) {
  Fr w = load_fr(FR_ROOT_2_32);
  for (uint32_t i = lg; i < 32; i++) w = w.sqr();
  return w;
}

// Z(g w^j) = g^m - 1 for every j: the vanishing polynomial on the coset.
inline Fr vanishing_inverse(uint32_t log_m) {
  Fr gm = load_fr(FR_COSET_GEN);
  for (uint32_t i = 0; i < log_m; i++) gm = gm.sqr();
  return (gm - Fr::one()).inverse();
}

// Split power tables: x^k = hi[k >> SPLIT_LOG] * lo[k & (SPLIT - 1)], lo of
// SPLIT entries x^j, hi of split_hi(n) entries x^(SPLIT*i) for k < n.
constexpr uint32_t SPLIT_LOG = 10;
constexpr uint32_t SPLIT = 1u << SPLIT_LOG;
GPUC2_HD uint64_t split_hi(uint64_t n) { return (n + SPLIT - 1) >> SPLIT_LOG; }

// x^k from split power tables. The copies keep the loads 32 bytes wide
// (through a reference they split into 4-byte loads).
GPUC2_HD Fr split_pow(const Fr* __restrict__ hi, const Fr* __restrict__ lo, uint64_t k) {
  const Fr h = hi[k >> SPLIT_LOG], l = lo[k & (SPLIT - 1)];
  return h * l;
}

// A block's elements sit in shared memory as two arrays of 16-byte halves, so
// that consecutive threads read consecutive 16 bytes: whole 32-byte elements
// put two threads of each quarter warp on the same banks.
struct SharedFr {
  uint4* lo;  // E entries, then E for the high halves
  uint32_t E;
  GPUC2_HD Fr get(uint32_t e) const {
    const uint4 a = lo[e], b = lo[E + e];
    Fr r;
    r.v[0] = a.x, r.v[1] = a.y, r.v[2] = a.z, r.v[3] = a.w;
    r.v[4] = b.x, r.v[5] = b.y, r.v[6] = b.z, r.v[7] = b.w;
    return r;
  }
  GPUC2_HD void set(uint32_t e, const Fr& x) const {
    lo[e] = make_uint4(x.v[0], x.v[1], x.v[2], x.v[3]);
    lo[E + e] = make_uint4(x.v[4], x.v[5], x.v[6], x.v[7]);
  }
};

// The twiddle table's entry for w^idx, or for w^-idx = -w^(m/2-idx) when
// inverse (tw[m/2] = -1 covers idx 0): the minus sign is left to the
// butterfly. Each load is one 32-byte copy: read through a reference the
// table split into eight 4-byte loads.
GPUC2_HD Fr twiddle(const Fr* tw, uint64_t idx, uint64_t half_m, bool inverse) {
  const Fr x = tw[inverse ? half_m - idx : idx];
  return x;
}

// One butterfly; neg: w is the negated twiddle; unit: the twiddle is 1
// (w^0, or w^-0 as the table's -1 negated), so there is no product and no
// sign. DIT: (u, v) -> (u + wv, u - wv); DIF: (u, v) -> (u + v, (u - v)w).
template <bool DIF>
GPUC2_HD void butterfly(Fr& u, Fr& v, const Fr& w, bool neg, bool unit) {
  if (unit) neg = false;
  if (DIF) {
    Fr d = neg ? v - u : u - v;
    u = u + v;
    if (!unit) d = d * w;
    v = d;
  } else {
    Fr t = v;
    if (!unit) t = t * w;
    const Fr lo = u + t, hi = u - t;
    u = neg ? hi : lo;
    v = neg ? lo : hi;
  }
}

// What a pass kernel does with its block: DIT or DIF stages, or (the first
// pass of H's domain-to-coset step) DIF inverse stages, the scaling, then
// DIT forward stages, without a trip through global memory in between.
enum class PassKind { Dit, Dif, DifDit };

// The scaling a pass applies to element gi: by g^k (k = gi, or its log_m-bit
// reversal with brev) as split_pow(ghi, glo, k), the constant folded into
// glo; without ghi, by c.
struct PassScale {
  Fr c;
  const Fr* ghi;
  const Fr* glo;
  uint32_t log_m;
  bool brev;
  GPUC2_HD Fr apply(const Fr& x, uint64_t gi) const {
    if (!ghi) return x * c;
    const uint64_t k = brev ? rev_bits64(gi, log_m) : gi;
    return x * split_pow(ghi, glo, k);
  }
};

// Stages [s0, s0+ns) (1-based) of a radix-2 transform in shared memory, as
// thread t of T sees them. A block holds 2^ns positions at stride 2^(s0-1)
// for L = 2^logL consecutive low offsets: global index = hi*2^(s0-1+ns) +
// mi*2^(s0-1) + lo_g*L + l, stored at sh[mi*L + l].
// DIT runs the stages upwards with (u, v) -> (u + wv, u - wv); DIF runs them
// downwards with (u, v) -> (u + v, (u - v)w), which undoes DIT's stages up
// to a factor 2 each: DIF with inverse twiddles maps natural order to m times
// the bit-reversed inverse transform. An inverse twiddle is the table's entry
// negated: DIT swaps its two outputs, DIF takes v - u.
// Stages go two at a time (radix 4): a thread takes four elements through
// both stages in registers, so each pair costs one shared-memory round trip
// and one barrier; an odd count leaves stage 0 as a radix-2 step of two
// butterflies per thread. A step's twiddles load during the step before.

// A step's twiddles: radix 4 at lower stage sl uses a for stage sl, b and c
// for stage sl+1 at in-group offsets j and j + 2^sl; radix 2 uses a and b
// for its two butterflies.
struct StepTwiddles {
  Fr a, b, c;
};

struct PassBlock {
  SharedFr sh;
  const Fr* tw;
  uint64_t lo_g, half_m, base;
  uint32_t log_m, s0, ns, logL, L, E, T, t, l, q;

  // Block b of the pass (of m / E), as thread t of T (pass_threads(E))
  // sees it; shared holds 2E halves.
  GPUC2_HD static PassBlock at(uint4* shared, const Fr* tw, uint32_t log_m, const Pass& p, uint64_t b, uint32_t t,
                               uint32_t T) {
    PassBlock k;
    k.L = 1u << p.logL;
    k.E = k.L << p.ns;
    k.sh = SharedFr{shared, k.E};
    k.tw = tw;
    k.log_m = log_m, k.s0 = p.s0, k.ns = p.ns, k.logL = p.logL;
    const uint64_t groups_lo = (1ull << (p.s0 - 1)) >> p.logL;
    k.lo_g = b % groups_lo;
    const uint64_t hi = b / groups_lo;
    k.base = (hi << (p.s0 - 1 + p.ns)) | (k.lo_g << p.logL);
    k.half_m = 1ull << (log_m - 1);
    k.t = t, k.T = T;
    k.l = t & (k.L - 1), k.q = t >> p.logL;
    return k;
  }

  GPUC2_HD uint64_t global_index(uint32_t e) const { return base + ((uint64_t)(e >> logL) << (s0 - 1)) + (e & (L - 1)); }

  // The twiddle table's entry of local stage S at in-group offset j, lane ll.
  GPUC2_HD Fr tw_at(uint32_t S, uint32_t j, uint32_t ll, bool inverse) const {
    const uint64_t g = ((uint64_t)j << (s0 - 1)) + (lo_g << logL) + ll;
    return twiddle(tw, g << (log_m - (s0 + S)), half_m, inverse);
  }

  // Every stage of the pass, DIT upwards or DIF downwards, as steps: in
  // DIT order stage 0 alone when ns is odd, then pairs; DIF reverses them.
  GPUC2_HD uint32_t nsteps() const { return (ns + 1) / 2; }
  template <bool DIF>
  GPUC2_HD uint32_t dit_step(uint32_t k) const { return DIF ? nsteps() - 1 - k : k; }
  template <bool DIF>
  GPUC2_HD bool radix2(uint32_t k) const { return (ns & 1) && dit_step<DIF>(k) == 0; }
  template <bool DIF>
  GPUC2_HD uint32_t lower(uint32_t k) const {
    const uint32_t i = dit_step<DIF>(k);
    return (ns & 1) ? (i == 0 ? 0 : 2 * i - 1) : 2 * i;
  }

  // Step k's twiddles. Radix 2 at stage 0: butterflies t and t + T, lane =
  // id & (L-1).
  template <bool DIF>
  GPUC2_HD StepTwiddles step_twiddles(uint32_t k, bool inverse) const {
    StepTwiddles w;
    if (radix2<DIF>(k)) {
      w.a = tw_at(0, 0, t & (L - 1), inverse);
      w.b = tw_at(0, 0, (t + T) & (L - 1), inverse);
      w.c = w.b;
    } else {
      const uint32_t sl = lower<DIF>(k), jm = q & ((1u << sl) - 1);
      w.a = tw_at(sl, jm, l, inverse);
      w.b = tw_at(sl + 1, jm, l, inverse);
      w.c = tw_at(sl + 1, jm + (1u << sl), l, inverse);
    }
    return w;
  }

  // The transform's stage 0 and stage 1's first twiddle are w^0: in the
  // first pass, the step holding stage 0 skips those products.
  template <bool DIF>
  GPUC2_HD bool unit_step(uint32_t k) const { return s0 == 1 && lower<DIF>(k) == 0; }

  // Step k with its twiddles w (unit: unit_step(k)).
  template <bool DIF>
  GPUC2_HD void step(uint32_t k, const StepTwiddles& w, bool inverse, bool unit) const {
    if (radix2<DIF>(k)) {
      const uint32_t half = E / 2;
      for (uint32_t r = 0; r < 2; r++) {
        const uint32_t id = t + r * T;
        if (id >= half) break;
        const uint32_t i0 = (id >> logL) * 2 * L + (id & (L - 1)), i1 = i0 + L;
        Fr u = sh.get(i0), v = sh.get(i1);
        butterfly<DIF>(u, v, r ? w.b : w.a, inverse, unit);
        sh.set(i0, u);
        sh.set(i1, v);
      }
    } else {
      const uint32_t sl = lower<DIF>(k);
      const uint32_t jm = q & ((1u << sl) - 1), km = (q >> sl) << (sl + 2);
      const uint32_t i0 = (km + jm) * L + l, step = L << sl;
      Fr x0 = sh.get(i0), x1 = sh.get(i0 + step), x2 = sh.get(i0 + 2 * step), x3 = sh.get(i0 + 3 * step);
      if (DIF) {
        butterfly<true>(x0, x2, w.b, inverse, unit);
        butterfly<true>(x1, x3, w.c, inverse, false);
        butterfly<true>(x0, x1, w.a, inverse, unit);
        butterfly<true>(x2, x3, w.a, inverse, unit);
      } else {
        butterfly<false>(x0, x1, w.a, inverse, unit);
        butterfly<false>(x2, x3, w.a, inverse, unit);
        butterfly<false>(x0, x2, w.b, inverse, unit);
        butterfly<false>(x1, x3, w.c, inverse, false);
      }
      sh.set(i0, x0);
      sh.set(i0 + step, x1);
      sh.set(i0 + 2 * step, x2);
      sh.set(i0 + 3 * step, x3);
    }
  }

  // This thread's share of the block: in from d, scaled in shared memory,
  // out to d (scaled on the way when scaled).
  GPUC2_HD void load(const Fr* d) const {
    for (uint32_t e = t; e < E; e += T) sh.set(e, d[global_index(e)]);
  }
  GPUC2_HD void scale_shared(PassScale scale) const {
    for (uint32_t e = t; e < E; e += T) sh.set(e, scale.apply(sh.get(e), global_index(e)));
  }
  GPUC2_HD void store(Fr* d, PassScale scale, bool scaled) const {
    for (uint32_t e = t; e < E; e += T) {
      const uint64_t gi = global_index(e);
      Fr x = sh.get(e);
      if (scaled) x = scale.apply(x, gi);
      d[gi] = x;
    }
  }
};

}  // namespace gpuc2
