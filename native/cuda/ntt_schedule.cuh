// The transforms as sequences of bit reversals and shared-memory passes,
// written once over an executor: ntt.cu's launches the kernels, hosttest's
// runs each block's threads in turn on the host (hosttest_ntt.cuh), so the
// CPU test checks the device's own schedule.
//
// An executor X provides, for the tables t of one size:
//   X::pass<KIND>(t, p, d, inverse, scaled, scale)  one pass (ntt_pass.cuh)
//   X::bitrev(t, d, load)   d[rev k] = load(k) for every k, in place
//   X::scale(t, d, scale)   d[0] = scale.apply(d[0], 0) (a transform of 1)
//   X::mul(t, a, b)         a[i] *= b[i]
#pragma once
#include <vector>
#include "ntt_pass.cuh"

namespace gpuc2 {

// Loaders: the element that index k brings into the bit reversal.
struct PlainLoad {
  const Fr* d;
  GPUC2_HD Fr operator()(uint64_t k) const {
    const Fr x = d[k];
    return x;
  }
};

// x[k] * g^k: the forward coset shift, g^k from split tables.
struct CosetLoad {
  const Fr* d;
  const Fr* __restrict__ ghi;
  const Fr* __restrict__ glo;
  GPUC2_HD Fr operator()(uint64_t k) const {
    const Fr x = d[k];
    return x * split_pow(ghi, glo, k);
  }
};

// H's pointwise step: a[k]*b[k] - c[k], or a[k] - c[k] without b. The
// division by Z is left to the transform's last scaling.
struct CombineLoad {
  const Fr* a;
  const Fr* __restrict__ b;
  const Fr* __restrict__ c;
  GPUC2_HD Fr operator()(uint64_t k) const {
    const Fr x = a[k], z = c[k];
    if (!b) return x - z;
    const Fr y = b[k];
    return x * y - z;
  }
};

// Coset powers as split tables (split_pow); each use's constant is folded
// into its own lo table, so scaling by c*g^k takes two products (forming
// g^k, applying it), not three. Lo table i holds scale_i * base_i^j for
// j < SPLIT.
enum NttLoTable { LO_G, LO_G_MINV, LO_GI_MINV, LO_GI_MINV_ZINV, LO_TABLES };

struct NttLoParams {
  Fr scale[LO_TABLES], base[LO_TABLES];
  explicit NttLoParams(uint32_t log_m) {
    const Fr g = load_fr(FR_COSET_GEN), gi = load_fr(FR_COSET_GEN_INV);
    const Fr minv = fr_from_u64(1ull << log_m).inverse();
    const Fr s[LO_TABLES] = {Fr::one(), minv, minv, minv * vanishing_inverse(log_m)};
    const Fr b[LO_TABLES] = {g, g, gi, gi};
    for (int i = 0; i < LO_TABLES; i++) scale[i] = s[i], base[i] = b[i];
  }
};

// The tables of one size, wherever they live: tw[i] = w^i for i <= m/2;
// ghi[i] = g^(SPLIT*i), gihi[i] = g^-(SPLIT*i); lo the LO_TABLES tables in
// NttLoTable's order (coset tables only where asked for).
struct NttTables {
  uint32_t log_m;
  uint64_t m;
  const Fr* tw;
  const Fr* ghi;
  const Fr* gihi;
  const Fr* lo;
  Fr minv;

  const Fr* lo_table(NttLoTable which) const { return lo + SPLIT * (size_t)which; }
  // Multiply by c, or by g^k (k = i, or its bit reversal) times lo's constant.
  PassScale scale_by(Fr c) const { return PassScale{c, nullptr, nullptr, log_m, false}; }
  PassScale scale_by(const Fr* hi, NttLoTable which, bool brev) const {
    return PassScale{Fr::one(), hi, lo_table(which), log_m, brev};
  }
  // The inverse's scaling: 1/m, times g^-i for the coset inverse.
  PassScale inverse_scale(bool coset) const { return coset ? scale_by(gihi, LO_GI_MINV, false) : scale_by(minv); }
};

// The schedules of the transforms and of H over the tables t and passes ps
// (ntt_passes), run by X.
template <class X>
struct NttSchedule {
  const NttTables t;
  const std::vector<Pass> ps;

  // DIT passes over d, already in bit-reversed order; inverse ones end with
  // the scaling.
  void dit(Fr* d, bool inverse, const PassScale& scale) const {
    for (size_t i = 0; i < ps.size(); i++)
      X::template pass<PassKind::Dit>(t, ps[i], d, inverse, inverse && i + 1 == ps.size(), scale);
  }

  // run transforms d in place, natural order in and out.
  void run(Fr* d, bool inverse, bool coset) const {
    if (t.m == 1) {
      if (inverse) X::scale(t, d, t.inverse_scale(coset));
      return;
    }
    if (coset && !inverse) X::bitrev(t, d, CosetLoad{d, t.ghi, t.lo_table(LO_G)});
    else X::bitrev(t, d, PlainLoad{d});
    dit(d, inverse, t.inverse_scale(coset));
  }

  // to_coset takes d from evaluations on the domain to evaluations on the
  // coset, natural order in and out, without a bit reversal: the inverse
  // transform by DIF leaves the coefficients bit-reversed, scaled by g^i/m
  // for their index i, which is the input order DIT wants. The first pass's
  // blocks do both directions at once.
  void to_coset(Fr* d) const {
    if (t.m == 1) return;  // one coefficient, g^0 / 1
    const PassScale coeff = t.scale_by(t.ghi, LO_G_MINV, true);
    for (size_t i = ps.size(); i-- > 1;) X::template pass<PassKind::Dif>(t, ps[i], d, true, false, coeff);
    X::template pass<PassKind::DifDit>(t, ps[0], d, true, true, coeff);
    for (size_t i = 1; i < ps.size(); i++) X::template pass<PassKind::Dit>(t, ps[i], d, false, false, coeff);
  }

  // H's last step: a = coset iNTT((a*b - c) / Z), b may be null (a - c); a,
  // b and c on the coset, natural order. The pointwise step rides on the
  // bit reversal, 1/Z on the last pass's scaling.
  void combine_to_coefficients(Fr* a, const Fr* b, const Fr* c) const {
    X::bitrev(t, a, CombineLoad{a, b, c});
    const PassScale scale = t.scale_by(t.gihi, LO_GI_MINV_ZINV, false);
    if (t.m == 1) {
      X::scale(t, a, scale);
      return;
    }
    dit(a, true, scale);
  }

  // H over a, b, c (evaluations on the domain) into a's coefficients.
  void h(Fr* a, Fr* b, Fr* c) const {
    for (Fr* x : {a, b, c}) to_coset(x);
    combine_to_coefficients(a, b, c);
  }

  // H in steps, one input vector x at a time into the accumulator acc:
  // A takes a to the coset in acc; B multiplies b's coset evaluations in;
  // C subtracts c's and ends as h's whole (acc = a*b - c on the coset,
  // then to coefficients).
  enum HStep { STEP_A, STEP_B, STEP_C };
  void h_step(Fr* acc, Fr* x, HStep step) const {
    switch (step) {
      case STEP_A:
        to_coset(acc);
        break;
      case STEP_B:
        to_coset(x);
        X::mul(t, acc, x);
        break;
      case STEP_C:
        to_coset(x);
        combine_to_coefficients(acc, nullptr, x);
        break;
    }
  }
};

}  // namespace gpuc2
