// Host-only unit test of the field and curve arithmetic against vectors from
// gnark-crypto (native/internal/gen -vectors). Built with nvcc or as plain C++
// (g++ -x c++ -D__host__= -D__device__= -D__forceinline__=inline).
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <string>
#include <sstream>
#include <fstream>
#include <vector>
#include "curve.cuh"
#include "msm_digits.cuh"
#include "hosttest_ntt.cuh"

using namespace gpuc2;

static int failures = 0;
static int checks = 0;

template <class T>
static void read_words(std::istringstream& in, T& out) {
  uint64_t w[sizeof(T) / 8];
  for (size_t i = 0; i < sizeof(T) / 8; i++) {
    std::string s;
    in >> s;
    w[i] = strtoull(s.c_str(), nullptr, 16);
  }
  memcpy(&out, w, sizeof(T));
}

template <class T>
static void check(const char* what, int line, const T& got, const T& want) {
  checks++;
  if (memcmp(&got, &want, sizeof(T)) != 0) {
    failures++;
    if (failures < 20) fprintf(stderr, "FAIL %s (line %d)\n", what, line);
  }
}

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "build/vectors.txt";
  std::ifstream f(path);
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    return 2;
  }
  std::string line;
  int ln = 0;
  while (std::getline(f, line)) {
    ln++;
    std::istringstream in(line);
    std::string name;
    in >> name;
    if (name == "fpmul" || name == "fpadd" || name == "fpsub") {
      Fp a, b, c;
      read_words(in, a);
      read_words(in, b);
      read_words(in, c);
      Fp got = name == "fpmul" ? a * b : name == "fpadd" ? a + b : a - b;
      check(name.c_str(), ln, got, c);
      if (name == "fpsub") check("fpneg", ln, (b - a), c.neg());
    } else if (name == "fpinv") {
      Fp a, c;
      read_words(in, a);
      read_words(in, c);
      check("fpinv", ln, a.inverse(), c);
    } else if (name == "frmul" || name == "frsub") {
      Fr a, b, c;
      read_words(in, a);
      read_words(in, b);
      read_words(in, c);
      check(name.c_str(), ln, name == "frmul" ? a * b : a - b, c);
    } else if (name == "frcanon") {
      Fr a, c;
      read_words(in, a);
      read_words(in, c);
      check("frcanon", ln, a.from_mont(), c);
      check("frtomont", ln, c.to_mont(), a);
      // signed digits reconstruct the canonical scalar
      for (int cbits = 4; cbits <= 20; cbits++) {
        int nw = msm_num_windows(cbits);
        // sum digits * 2^(c*w) mod r, computed in Fr
        Fr acc = Fr::zero();
        Fr two_c = Fr::zero();
        two_c.v[0] = 1u << cbits;
        two_c = two_c.to_mont();
        for (int w = nw - 1; w >= 0; w--) {
          acc = acc * two_c;
          int32_t d = msm_digit(c.v, cbits, w);
          if (d > (1 << (cbits - 1)) || d < -(1 << (cbits - 1))) {
            failures++;
            fprintf(stderr, "digit out of range c=%d\n", cbits);
          }
          Fr dd = Fr::zero();
          dd.v[0] = (uint32_t)(d < 0 ? -d : d);
          dd = dd.to_mont();
          acc = d < 0 ? acc - dd : acc + dd;
        }
        check("digits", ln, acc, a);
      }
    } else if (name == "g1add") {
      G1Affine p, q, sum, dbl;
      read_words(in, p);
      read_words(in, q);
      read_words(in, sum);
      read_words(in, dbl);
      G1XYZZ P = G1XYZZ::from_affine(p);
      check("g1 madd", ln, P.add_affine(q).to_affine().x, sum.x);
      check("g1 madd y", ln, P.add_affine(q).to_affine().y, sum.y);
      check("g1 add", ln, P.add(G1XYZZ::from_affine(q)).to_affine().y, sum.y);
      check("g1 add same", ln, P.add_affine(p).to_affine().y, dbl.y);
      check("g1 add same xyzz", ln, P.add(P).to_affine().x, dbl.x);
      check("g1 dbl", ln, P.dbl().to_affine().y, dbl.y);
      check("g1 mdbl", ln, G1XYZZ::dbl_affine(p).to_affine().x, dbl.x);
      check("g1 add neg", ln, P.add_affine(p.neg()).is_inf(), true);
      check("g1 add inf", ln, P.add_affine(G1Affine{Fp::zero(), Fp::zero()}).to_affine().y, p.y);
      // (P+Q) + Q in xyzz with non-trivial Z on both sides, vs P + 2Q
      G1XYZZ PQ = P.add_affine(q);
      G1XYZZ Q2 = G1XYZZ::from_affine(q).dbl();
      G1Affine a1 = PQ.add(G1XYZZ::from_affine(q)).to_affine();
      G1Affine a2 = P.add(Q2).to_affine();
      check("g1 assoc", ln, a1.x, a2.x);
      // jacobian conversion: x = X/Z^2
      Fp X, Y, Z;
      PQ.to_jacobian(X, Y, Z);
      Fp zi = Z.inverse();
      check("g1 jac x", ln, X * zi.sqr(), sum.x);
      check("g1 jac y", ln, Y * zi.sqr() * zi, sum.y);
    } else if (name == "g1smul") {
      G1Affine p, kp;
      read_words(in, p);
      uint64_t k;
      std::string s;
      in >> s;
      k = strtoull(s.c_str(), nullptr, 16);
      read_words(in, kp);
      G1Affine got = G1XYZZ::from_affine(p).mul_small((uint32_t)k).to_affine();
      check("g1 smul x", ln, got.x, kp.x);
      check("g1 smul y", ln, got.y, kp.y);
    } else if (name == "g2add") {
      G2Affine p, q, sum, dbl;
      read_words(in, p);
      read_words(in, q);
      read_words(in, sum);
      read_words(in, dbl);
      G2XYZZ P = G2XYZZ::from_affine(p);
      G2Affine s1 = P.add_affine(q).to_affine();
      check("g2 madd x", ln, s1.x, sum.x);
      check("g2 madd y", ln, s1.y, sum.y);
      check("g2 add", ln, P.add(G2XYZZ::from_affine(q)).to_affine().y, sum.y);
      check("g2 dbl", ln, P.dbl().to_affine().x, dbl.x);
      check("g2 same", ln, P.add_affine(p).to_affine().y, dbl.y);
      check("g2 neg", ln, P.add_affine(p.neg()).is_inf(), true);
    }
  }
  // The header's promises about windows: the library's choice stays in
  // [WINDOW_MIN, WINDOW_MAX] and does not shrink as n grows, and the bucket
  // table ceil(256/c)·2^(c-1) grows with c, so it is largest at WINDOW_MAX.
  for (int c = GPUC2_MSM_WINDOW_MIN; c < GPUC2_MSM_WINDOW_MAX; c++)
    check("bucket table grows with c", __LINE__,
          (uint64_t)msm_num_windows(c) << (c - 1) < (uint64_t)msm_num_windows(c + 1) << c, true);
  int prev = GPUC2_MSM_WINDOW_MIN;
  for (uint64_t n = 1; n < (1ull << 32); n += n / 8 + 1) {
    const int c = choose_window(n);
    check("window in range", __LINE__, c >= GPUC2_MSM_WINDOW_MIN && c <= GPUC2_MSM_WINDOW_MAX, true);
    check("window grows with n", __LINE__, c >= prev, true);
    prev = c;
  }
  // The NTT's passes in the device's schedule, every layout: the kernels'
  // pass shapes up to 2^11, other limits to reach every step shape on
  // small transforms, and 2^27's later passes (9 stages over pairs, 8 over
  // fours) at 2^19 and 2^18; 2^0 (no passes) too.
  uint64_t seed = 1;
  struct {
    uint32_t shared_log, pass_log, lg_max;
  } shapes[] = {{SHARED_LOG, PASS_LOG, 11}, {4, 3, 11}, {5, 2, 11}, {6, 5, 12}, {3, 3, 9}, {4, 1, 8}};
  for (const auto& sh : shapes) {
    for (uint32_t lg = 0; lg <= sh.lg_max; lg++) {
      ntt_host_test::run(lg, sh.shared_log, sh.pass_log, seed, [&](const char* what, bool ok) {
        char name[128];
        snprintf(name, sizeof name, "ntt 2^%u, passes of %u then %u: %s", lg, sh.shared_log, sh.pass_log, what);
        check(name, __LINE__, ok, true);
      });
    }
  }
  for (uint32_t lg : {18u, 19u}) {
    ntt_host_test::run(lg, SHARED_LOG, lg == 18 ? 8 : PASS_LOG, seed, [&](const char* what, bool ok) {
      char name[128];
      snprintf(name, sizeof name, "ntt 2^%u: %s", lg, what);
      check(name, __LINE__, ok, true);
    });
  }
  printf("hosttest: %d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
