// Short Weierstrass curves y^2 = x^3 + b (a = 0) over Fp (G1) and Fp2 (G2):
// affine points in gnark-crypto's layout, where (0, 0) is the point at
// infinity, and XYZZ points (x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2) for
// accumulation, with ZZ = 0 meaning infinity. Formulas: EFD "xyzz" (madd-2008-s,
// add-2008-s, dbl-2008-s-1, mdbl-2008-s-1) with the equal / opposite special
// cases handled explicitly.
#pragma once
#include "field.cuh"

namespace gpuc2 {

template <class F>
struct Affine {
  F x, y;
  GPUC2_HD bool is_inf() const { return x.is_zero() && y.is_zero(); }
  GPUC2_HD Affine neg() const { return Affine{x, y.neg()}; }
};

template <class F>
struct XYZZ {
  F X, Y, ZZ, ZZZ;

  GPUC2_HD static XYZZ inf() { return XYZZ{F::zero(), F::zero(), F::zero(), F::zero()}; }
  GPUC2_HD bool is_inf() const { return ZZ.is_zero(); }
  GPUC2_HD static XYZZ from_affine(const Affine<F>& a) {
    if (a.is_inf()) return inf();
    return XYZZ{a.x, a.y, F::one(), F::one()};
  }
  GPUC2_HD XYZZ neg() const { return XYZZ{X, Y.neg(), ZZ, ZZZ}; }

  // mdbl-2008-s-1: 2*a for affine a.
  GPUC2_HD static XYZZ dbl_affine(const Affine<F>& a) {
    if (a.is_inf() || a.y.is_zero()) return inf();
    F U = a.y.dbl();
    F V = U.sqr();
    F W = U * V;
    F S = a.x * V;
    F xx = a.x.sqr();
    F M = xx.dbl() + xx;
    F X3 = M.sqr() - S.dbl();
    F Y3 = M * (S - X3) - W * a.y;
    return XYZZ{X3, Y3, V, W};
  }

  // dbl-2008-s-1
  GPUC2_HD XYZZ dbl() const {
    if (is_inf() || Y.is_zero()) return inf();
    F U = Y.dbl();
    F V = U.sqr();
    F W = U * V;
    F S = X * V;
    F xx = X.sqr();
    F M = xx.dbl() + xx;
    F X3 = M.sqr() - S.dbl();
    F Y3 = M * (S - X3) - W * Y;
    return XYZZ{X3, Y3, V * ZZ, W * ZZZ};
  }

  // madd-2008-s: this + a, a affine.
  GPUC2_HD XYZZ add_affine(const Affine<F>& a) const {
    if (a.is_inf()) return *this;
    if (is_inf()) return from_affine(a);
    F U2 = a.x * ZZ;
    F S2 = a.y * ZZZ;
    F P = U2 - X;
    F R = S2 - Y;
    if (P.is_zero()) {
      if (R.is_zero()) return dbl_affine(a);
      return inf();
    }
    F PP = P.sqr();
    F PPP = P * PP;
    F Q = X * PP;
    F X3 = R.sqr() - PPP - Q.dbl();
    F Y3 = R * (Q - X3) - Y * PPP;
    return XYZZ{X3, Y3, ZZ * PP, ZZZ * PPP};
  }

  // add-2008-s: this + o.
  GPUC2_HD XYZZ add(const XYZZ& o) const {
    if (o.is_inf()) return *this;
    if (is_inf()) return o;
    F U1 = X * o.ZZ;
    F U2 = o.X * ZZ;
    F S1 = Y * o.ZZZ;
    F S2 = o.Y * ZZZ;
    F P = U2 - U1;
    F R = S2 - S1;
    if (P.is_zero()) {
      if (R.is_zero()) return dbl();
      return inf();
    }
    F PP = P.sqr();
    F PPP = P * PP;
    F Q = U1 * PP;
    F X3 = R.sqr() - PPP - Q.dbl();
    F Y3 = R * (Q - X3) - S1 * PPP;
    return XYZZ{X3, Y3, ZZ * o.ZZ * PP, ZZZ * o.ZZZ * PPP};
  }

  // mul_small: k * this by double-and-add (k small, unsigned).
  GPUC2_HD XYZZ mul_small(uint32_t k) const {
    XYZZ r = inf();
    for (int b = 31; b >= 0; b--) {
      r = r.dbl();
      if ((k >> b) & 1) r = r.add(*this);
    }
    return r;
  }

  // to_affine: slow (inversion); host use.
  GPUC2_HD Affine<F> to_affine() const {
    if (is_inf()) return Affine<F>{F::zero(), F::zero()};
    F zzi = ZZ.inverse();
    F zzzi = ZZZ.inverse();
    return Affine<F>{X * zzi, Y * zzzi};
  }
  // Jacobian (X', Y', Z') with x = X'/Z'^2, y = Y'/Z'^3:
  // Z' = ZZ*ZZZ, X' = X*ZZ*ZZZ^2, Y' = Y*ZZ^3*ZZZ^2. Infinity -> Z' = 0.
  GPUC2_HD void to_jacobian(F& Xj, F& Yj, F& Zj) const {
    if (is_inf()) {
      Xj = F::one();
      Yj = F::one();
      Zj = F::zero();
      return;
    }
    F zzz2 = ZZZ.sqr();
    F zz3 = ZZ.sqr() * ZZ;
    Zj = ZZ * ZZZ;
    Xj = X * ZZ * zzz2;
    Yj = Y * zz3 * zzz2;
  }
};

typedef Affine<Fp> G1Affine;
typedef Affine<Fp2> G2Affine;
typedef XYZZ<Fp> G1XYZZ;
typedef XYZZ<Fp2> G2XYZZ;

}  // namespace gpuc2
