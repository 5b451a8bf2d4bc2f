// Host test of the NTT's passes (ntt_pass.cuh): each block's threads run
// one after another at every step (the kernels' barriers), whole
// transforms laid out as ntt.cu's NttPlan lays them out, against a textbook
// transform. Included by hosttest.cu.
#pragma once
#include <vector>
#include "ntt_pass.cuh"

namespace ntt_host_test {

using namespace gpuc2;

// The tables NttPlan builds on the device, here on the host.
struct Tables {
  uint32_t log_m;
  uint64_t m;
  std::vector<Fr> tw, ghi, gihi, lo;  // lo: G, G_MINV, GI_MINV, GI_MINV_ZINV
  Fr minv;
  enum { G, G_MINV, GI_MINV, GI_MINV_ZINV };
  explicit Tables(uint32_t lg) : log_m(lg), m(1ull << lg) {
    const Fr w = root_of_unity(lg), g = load_fr(FR_COSET_GEN), gi = load_fr(FR_COSET_GEN_INV);
    minv = fr_from_u64(m).inverse();
    Fr wi = Fr::one();
    for (uint64_t i = 0; i <= m / 2; i++) tw.push_back(wi), wi = wi * w;
    for (uint64_t i = 0; i < (m + 1023) / 1024; i++) ghi.push_back(g.pow_u64(1024 * i)), gihi.push_back(gi.pow_u64(1024 * i));
    const Fr scales[4] = {Fr::one(), minv, minv, minv * vanishing_inverse(lg)};
    const Fr bases[4] = {g, g, gi, gi};
    for (int t = 0; t < 4; t++)
      for (uint32_t i = 0; i < 1024; i++) lo.push_back(scales[t] * bases[t].pow_u64(i));
  }
  PassScale by(Fr c) const { return PassScale{c, nullptr, nullptr, log_m, false}; }
  PassScale by(const std::vector<Fr>& hi, int which, bool brev) const {
    return PassScale{Fr::one(), hi.data(), lo.data() + 1024 * which, log_m, brev};
  }
};

// Step k of b's thread, its twiddles loaded just before (the kernels load
// them a step ahead).
template <bool DIF>
void host_step(const PassBlock& b, uint32_t k, bool inverse) {
  b.step<DIF>(k, b.step_twiddles<DIF>(k, inverse), inverse, b.unit_step<DIF>(k));
}

// One pass over d, every block, its threads in turn at each step.
inline void run_pass(PassKind kind, const Tables& tb, const Pass& p, Fr* d, bool inverse, bool scaled, const PassScale& scale) {
  const uint32_t E = (1u << p.ns) << p.logL, T = pass_threads(E);
  std::vector<uint4> shared(2 * E);
  for (uint64_t b = 0; b < tb.m / E; b++) {
    auto each = [&](auto f) {
      for (uint32_t t = 0; t < T; t++) f(PassBlock::at(shared.data(), tb.tw.data(), tb.log_m, p, b, t, T));
    };
    const uint32_t n = PassBlock::at(shared.data(), tb.tw.data(), tb.log_m, p, b, 0, T).nsteps();
    each([&](const PassBlock& k) { k.load(d); });
    const bool dif = kind != PassKind::Dit;
    for (uint32_t s = 0; s < n; s++)
      each([&](const PassBlock& k) { dif ? host_step<true>(k, s, inverse) : host_step<false>(k, s, inverse); });
    if (kind == PassKind::DifDit) {
      each([&](const PassBlock& k) { k.scale_shared(scale); });
      for (uint32_t s = 0; s < n; s++) each([&](const PassBlock& k) { host_step<false>(k, s, false); });
    }
    each([&](const PassBlock& k) { k.store(d, scale, scaled && kind != PassKind::DifDit); });
  }
}

// NttPlan's layouts: run (plain and coset, either direction), to_coset,
// combine_to_coefficients; ps the passes.
struct Plan {
  const Tables& tb;
  std::vector<Pass> ps;
  void bitrev(std::vector<Fr>& d, const std::vector<Fr>& in) const {
    for (uint64_t i = 0; i < tb.m; i++) d[rev_bits64(i, tb.log_m)] = in[i];
  }
  void dit(std::vector<Fr>& d, bool inverse, const PassScale& scale) const {
    for (size_t i = 0; i < ps.size(); i++) run_pass(PassKind::Dit, tb, ps[i], d.data(), inverse, inverse && i + 1 == ps.size(), scale);
  }
  void run(std::vector<Fr>& d, bool inverse, bool coset) const {
    std::vector<Fr> in = d;
    if (coset && !inverse)
      for (uint64_t k = 0; k < tb.m; k++) in[k] = in[k] * split_pow(tb.ghi.data(), tb.lo.data(), k);
    bitrev(d, in);
    dit(d, inverse, coset ? tb.by(tb.gihi, Tables::GI_MINV, false) : tb.by(tb.minv));
  }
  void to_coset(std::vector<Fr>& d) const {
    const PassScale coeff = tb.by(tb.ghi, Tables::G_MINV, true);
    for (size_t i = ps.size(); i-- > 1;) run_pass(PassKind::Dif, tb, ps[i], d.data(), true, false, coeff);
    run_pass(PassKind::DifDit, tb, ps[0], d.data(), true, true, coeff);
    for (size_t i = 1; i < ps.size(); i++) run_pass(PassKind::Dit, tb, ps[i], d.data(), false, false, coeff);
  }
  void combine(std::vector<Fr>& a, const std::vector<Fr>& b, const std::vector<Fr>& c) const {
    std::vector<Fr> in(tb.m);
    for (uint64_t k = 0; k < tb.m; k++) in[k] = a[k] * b[k] - c[k];
    bitrev(a, in);
    dit(a, true, tb.by(tb.gihi, Tables::GI_MINV_ZINV, false));
  }
};

// The textbook transform: X[k] = sum_j x[j] w^(jk), w of order m (its
// inverse for inverse, then 1/m), iterative radix 2 after a bit reversal.
inline std::vector<Fr> textbook(std::vector<Fr> x, uint32_t lg, bool inverse) {
  const uint64_t m = 1ull << lg;
  std::vector<Fr> a(m);
  for (uint64_t i = 0; i < m; i++) a[rev_bits64(i, lg)] = x[i];
  for (uint32_t s = 1; s <= lg; s++) {
    const uint64_t len = 1ull << s;
    Fr wl = root_of_unity(s);
    if (inverse) wl = wl.inverse();
    for (uint64_t i = 0; i < m; i += len) {
      Fr w = Fr::one();
      for (uint64_t j = 0; j < len / 2; j++) {
        const Fr u = a[i + j], v = a[i + j + len / 2] * w;
        a[i + j] = u + v, a[i + j + len / 2] = u - v;
        w = w * wl;
      }
    }
  }
  if (inverse) {
    const Fr minv = fr_from_u64(m).inverse();
    for (auto& e : a) e = e * minv;
  }
  return a;
}

// The naive sum, to check textbook itself on small sizes.
inline std::vector<Fr> naive(const std::vector<Fr>& x, uint32_t lg) {
  const uint64_t m = 1ull << lg;
  const Fr w = root_of_unity(lg);
  std::vector<Fr> out(m, Fr::zero());
  for (uint64_t k = 0; k < m; k++) {
    const Fr wk = w.pow_u64(k);
    Fr p = Fr::one();
    for (uint64_t j = 0; j < m; j++) out[k] = out[k] + x[j] * p, p = p * wk;
  }
  return out;
}

inline std::vector<Fr> coset_scaled(std::vector<Fr> x, bool inverse) {
  const Fr g = load_fr(inverse ? FR_COSET_GEN_INV : FR_COSET_GEN);
  Fr p = Fr::one();
  for (auto& e : x) e = e * p, p = p * g;
  return x;
}

inline std::vector<Fr> random_vec(uint64_t m, uint64_t& seed) {
  std::vector<Fr> v(m);
  for (auto& e : v) {
    for (int i = 0; i < 8; i++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      e.v[i] = (uint32_t)(seed >> 32);
    }
    e.v[7] &= 0x0fffffff;  // below the modulus
  }
  return v;
}

// run checks every layout at log_m with passes of at most shared_log
// stages first, pass_log later; check(what, ok) records a result.
template <class Check>
void run(uint32_t lg, uint32_t shared_log, uint32_t pass_log, uint64_t seed, Check check) {
  const Tables tb(lg);
  const Plan plan{tb, ntt_passes(lg, shared_log, pass_log)};
  const uint64_t m = tb.m;
  const std::vector<Fr> x = random_vec(m, seed), y = random_vec(m, seed), z = random_vec(m, seed);
  const std::vector<Fr> fwd = textbook(x, lg, false), inv = textbook(x, lg, true);
  if (lg <= 6) check("textbook = naive", fwd == naive(x, lg));
  auto got = [&](bool inverse, bool coset) {
    std::vector<Fr> d = x;
    plan.run(d, inverse, coset);
    return d;
  };
  check("forward", got(false, false) == fwd);
  check("inverse", got(true, false) == inv);
  check("coset forward", got(false, true) == textbook(coset_scaled(x, false), lg, false));
  check("coset inverse", got(true, true) == coset_scaled(inv, true));
  // H: a, b, c to the coset, (a*b - c)/Z back to coefficients.
  auto coset_evals = [&](const std::vector<Fr>& v) { return textbook(coset_scaled(textbook(v, lg, true), false), lg, false); };
  std::vector<Fr> a = x, b = y, c = z;
  for (auto* v : {&a, &b, &c}) plan.to_coset(*v);
  const std::vector<Fr> ea = coset_evals(x), eb = coset_evals(y), ec = coset_evals(z);
  check("to_coset", a == ea && b == eb && c == ec);
  plan.combine(a, b, c);
  Fr gm = load_fr(FR_COSET_GEN);
  for (uint32_t i = 0; i < lg; i++) gm = gm.sqr();
  const Fr zinv = (gm - Fr::one()).inverse();
  std::vector<Fr> q(m);
  for (uint64_t k = 0; k < m; k++) q[k] = (ea[k] * eb[k] - ec[k]) * zinv;
  check("combine_to_coefficients", a == coset_scaled(textbook(q, lg, true), true));
}

}  // namespace ntt_host_test
