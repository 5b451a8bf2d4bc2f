// Host test of the NTT's passes (ntt_pass.cuh) in the device's own schedule
// (ntt_schedule.cuh): each block's threads run one after another at every
// step (the kernels' barriers); whole transforms and H against a textbook
// transform. Included by hosttest.cu.
#pragma once
#include <vector>
#include "ntt_schedule.cuh"

namespace ntt_host_test {

using namespace gpuc2;

// The tables NttPlan builds on the device, here on the host.
struct Tables {
  uint32_t log_m;
  uint64_t m;
  std::vector<Fr> tw, ghi, gihi, lo;
  Fr minv;
  explicit Tables(uint32_t lg) : log_m(lg), m(1ull << lg) {
    const Fr w = root_of_unity(lg), g = load_fr(FR_COSET_GEN), gi = load_fr(FR_COSET_GEN_INV);
    minv = fr_from_u64(m).inverse();
    Fr wi = Fr::one();
    for (uint64_t i = 0; i <= m / 2; i++) tw.push_back(wi), wi = wi * w;
    for (uint64_t i = 0; i < split_hi(m); i++) ghi.push_back(g.pow_u64(SPLIT * i)), gihi.push_back(gi.pow_u64(SPLIT * i));
    const NttLoParams lp(lg);
    for (int t = 0; t < LO_TABLES; t++)
      for (uint32_t i = 0; i < SPLIT; i++) lo.push_back(lp.scale[t] * lp.base[t].pow_u64(i));
  }
  NttTables view() const { return NttTables{log_m, m, tw.data(), ghi.data(), gihi.data(), lo.data(), minv}; }
};

// Step k of b's thread, its twiddles loaded just before (the kernels load
// them a step ahead).
template <bool DIF>
void host_step(const PassBlock& b, uint32_t k, bool inverse) {
  b.step<DIF>(k, b.step_twiddles<DIF>(k, inverse), inverse, b.unit_step<DIF>(k));
}

// The executor of ntt_schedule.cuh on the host: a pass runs every block,
// its threads in turn at each step (the kernels' barriers between).
struct HostExec {
  template <PassKind KIND>
  static void pass(const NttTables& tb, const Pass& p, Fr* d, bool inverse, bool scaled, const PassScale& scale) {
    const uint32_t E = (1u << p.ns) << p.logL, T = pass_threads(E);
    std::vector<uint4> shared(2 * E);
    for (uint64_t b = 0; b < tb.m / E; b++) {
      auto each = [&](auto f) {
        for (uint32_t t = 0; t < T; t++) f(PassBlock::at(shared.data(), tb.tw, tb.log_m, p, b, t, T));
      };
      const uint32_t n = PassBlock::at(shared.data(), tb.tw, tb.log_m, p, b, 0, T).nsteps();
      each([&](const PassBlock& k) { k.load(d); });
      constexpr bool dif = KIND != PassKind::Dit;
      for (uint32_t s = 0; s < n; s++) each([&](const PassBlock& k) { host_step<dif>(k, s, inverse); });
      if (KIND == PassKind::DifDit) {
        each([&](const PassBlock& k) { k.scale_shared(scale); });
        for (uint32_t s = 0; s < n; s++) each([&](const PassBlock& k) { host_step<false>(k, s, false); });
      }
      each([&](const PassBlock& k) { k.store(d, scale, scaled && KIND != PassKind::DifDit); });
    }
  }
  template <class Load>
  static void bitrev(const NttTables& tb, Fr* d, const Load& load) {
    std::vector<Fr> in(tb.m);
    for (uint64_t k = 0; k < tb.m; k++) in[k] = load(k);
    for (uint64_t k = 0; k < tb.m; k++) d[rev_bits64(k, tb.log_m)] = in[k];
  }
  static void scale(const NttTables&, Fr* d, const PassScale& scale) { d[0] = scale.apply(d[0], 0); }
  static void mul(const NttTables& tb, Fr* a, const Fr* b) {
    for (uint64_t i = 0; i < tb.m; i++) a[i] = a[i] * b[i];
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
  typedef NttSchedule<HostExec> S;
  const S sched{tb.view(), ntt_passes(lg, shared_log, pass_log)};
  const uint64_t m = tb.m;
  const std::vector<Fr> x = random_vec(m, seed), y = random_vec(m, seed), z = random_vec(m, seed);
  const std::vector<Fr> fwd = textbook(x, lg, false), inv = textbook(x, lg, true);
  if (lg <= 6) check("textbook = naive", fwd == naive(x, lg));
  auto got = [&](bool inverse, bool coset) {
    std::vector<Fr> d = x;
    sched.run(d.data(), inverse, coset);
    return d;
  };
  check("forward", got(false, false) == fwd);
  check("inverse", got(true, false) == inv);
  check("coset forward", got(false, true) == textbook(coset_scaled(x, false), lg, false));
  check("coset inverse", got(true, true) == coset_scaled(inv, true));
  // H: a, b, c to the coset, (a*b - c)/Z back to coefficients.
  auto coset_evals = [&](const std::vector<Fr>& v) { return textbook(coset_scaled(textbook(v, lg, true), false), lg, false); };
  std::vector<Fr> a = x, b = y, c = z;
  for (auto* v : {&a, &b, &c}) sched.to_coset(v->data());
  const std::vector<Fr> ea = coset_evals(x), eb = coset_evals(y), ec = coset_evals(z);
  check("to_coset", a == ea && b == eb && c == ec);
  const Fr zinv = vanishing_inverse(lg);
  std::vector<Fr> q(m), qc(m);
  for (uint64_t k = 0; k < m; k++) q[k] = (ea[k] * eb[k] - ec[k]) * zinv, qc[k] = (ea[k] - ec[k]) * zinv;
  const std::vector<Fr> h = coset_scaled(textbook(q, lg, true), true);
  sched.combine_to_coefficients(a.data(), b.data(), c.data());
  check("combine_to_coefficients", a == h);
  a = x, c = z;
  sched.to_coset(a.data());
  sched.to_coset(c.data());
  sched.combine_to_coefficients(a.data(), nullptr, c.data());
  check("combine_to_coefficients without b", a == coset_scaled(textbook(qc, lg, true), true));
  a = x, b = y, c = z;
  sched.h(a.data(), b.data(), c.data());
  check("h", a == h);
  a = x, b = y, c = z;
  sched.h_step(a.data(), nullptr, S::STEP_A);
  sched.h_step(a.data(), b.data(), S::STEP_B);
  sched.h_step(a.data(), c.data(), S::STEP_C);
  check("h in steps", a == h);
}

}  // namespace ntt_host_test
