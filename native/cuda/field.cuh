// Montgomery arithmetic over the BLS12-381 base field Fp and scalar field Fr,
// with 32-bit limbs in little-endian order. The Montgomery radix is 2^(32N),
// the same as gnark-crypto's (2^384 for Fp, 2^256 for Fr), so elements move
// between Go and the GPU unchanged. Everything is __host__ __device__ so the
// host unit test (hosttest.cu) checks the same code the kernels run.
#pragma once
#include <stdint.h>

#ifndef GPUC2_HD
#define GPUC2_HD __host__ __device__ __forceinline__
#endif

#include <type_traits>
#include "constants.cuh"
#include "ptx.cuh"

namespace gpuc2 {

// 16-byte alignment lets the device use 128-bit loads and stores; device
// buffers come from cudaMalloc. Host code must not cast caller memory to
// Field (copy with memcpy instead).
template <class P>
struct alignas(16) Field {
  static constexpr int N = P::N;
  uint32_t v[N];

  GPUC2_HD static Field zero() {
    Field r;
#pragma unroll
    for (int i = 0; i < N; i++) r.v[i] = 0;
    return r;
  }
  GPUC2_HD static Field one() {
    Field r;
#pragma unroll
    for (int i = 0; i < N; i++) r.v[i] = P::one(i);
    return r;
  }
  GPUC2_HD static Field r2() {
    Field r;
#pragma unroll
    for (int i = 0; i < N; i++) r.v[i] = P::r2(i);
    return r;
  }
  GPUC2_HD bool is_zero() const {
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < N; i++) acc |= v[i];
    return acc == 0;
  }
  GPUC2_HD bool operator==(const Field& o) const {
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < N; i++) acc |= v[i] ^ o.v[i];
    return acc == 0;
  }
  GPUC2_HD bool operator!=(const Field& o) const { return !(*this == o); }

  // geq_mod reports whether x >= modulus.
  GPUC2_HD static bool geq_mod(const uint32_t* x) {
    bool gt = false, decided = false;
#pragma unroll
    for (int i = N - 1; i >= 0; i--) {
      if (!decided && x[i] != P::mod(i)) {
        gt = x[i] > P::mod(i);
        decided = true;
      }
    }
    return decided ? gt : true;
  }
  // sub_mod_inplace: x -= modulus (x assumed >= modulus or with extra top carry).
  GPUC2_HD static void sub_mod_inplace(uint32_t* x) {
    uint64_t borrow = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
      uint64_t d = (uint64_t)x[i] - P::mod(i) - borrow;
      x[i] = (uint32_t)d;
      borrow = (d >> 63) & 1;
    }
  }

  GPUC2_HD friend Field operator+(const Field& a, const Field& b) {
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_same<P, FpParams>::value) {
      Field r;
      ptx::fp_add(r.v, a.v, b.v);
      return r;
    } else if constexpr (std::is_same<P, FrParams>::value) {
      Field r;
      ptx::fr_add(r.v, a.v, b.v);
      return r;
    } else {
      return add_generic(a, b);
    }
#else
    return add_generic(a, b);
#endif
  }
  GPUC2_HD static Field add_generic(const Field& a, const Field& b) {
    Field r;
    uint64_t c = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
      c += (uint64_t)a.v[i] + b.v[i];
      r.v[i] = (uint32_t)c;
      c >>= 32;
    }
    if (c || geq_mod(r.v)) sub_mod_inplace(r.v);
    return r;
  }
  GPUC2_HD friend Field operator-(const Field& a, const Field& b) {
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_same<P, FpParams>::value) {
      Field r;
      ptx::fp_sub(r.v, a.v, b.v);
      return r;
    } else if constexpr (std::is_same<P, FrParams>::value) {
      Field r;
      ptx::fr_sub(r.v, a.v, b.v);
      return r;
    } else {
      return sub_generic(a, b);
    }
#else
    return sub_generic(a, b);
#endif
  }
  GPUC2_HD static Field sub_generic(const Field& a, const Field& b) {
    Field r;
    uint64_t borrow = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
      uint64_t d = (uint64_t)a.v[i] - b.v[i] - borrow;
      r.v[i] = (uint32_t)d;
      borrow = (d >> 63) & 1;
    }
    if (borrow) {
      uint64_t c = 0;
#pragma unroll
      for (int i = 0; i < N; i++) {
        c += (uint64_t)r.v[i] + P::mod(i);
        r.v[i] = (uint32_t)c;
        c >>= 32;
      }
    }
    return r;
  }
  GPUC2_HD Field neg() const {
    if (is_zero()) return *this;
    Field r;
    uint64_t borrow = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
      uint64_t d = (uint64_t)P::mod(i) - v[i] - borrow;
      r.v[i] = (uint32_t)d;
      borrow = (d >> 63) & 1;
    }
    return r;
  }
  GPUC2_HD Field dbl() const { return *this + *this; }

  // Montgomery multiplication, CIOS.
  GPUC2_HD friend Field operator*(const Field& a, const Field& b) {
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_same<P, FpParams>::value) {
      Field r;
      ptx::fp_mul(r.v, a.v, b.v);
      return r;
    } else if constexpr (std::is_same<P, FrParams>::value) {
      Field r;
      ptx::fr_mul(r.v, a.v, b.v);
      return r;
    } else {
      return mul_generic(a, b);
    }
#else
    return mul_generic(a, b);
#endif
  }
  GPUC2_HD static Field mul_generic(const Field& a, const Field& b) {
    uint32_t t[N + 2];
#pragma unroll
    for (int i = 0; i < N + 2; i++) t[i] = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
      uint64_t c = 0;
      const uint32_t bi = b.v[i];
#pragma unroll
      for (int j = 0; j < N; j++) {
        c += (uint64_t)a.v[j] * bi + t[j];
        t[j] = (uint32_t)c;
        c >>= 32;
      }
      c += t[N];
      t[N] = (uint32_t)c;
      t[N + 1] = (uint32_t)(c >> 32);
      const uint32_t m = t[0] * P::INV;
      c = (uint64_t)m * P::mod(0) + t[0];
      c >>= 32;
#pragma unroll
      for (int j = 1; j < N; j++) {
        c += (uint64_t)m * P::mod(j) + t[j];
        t[j - 1] = (uint32_t)c;
        c >>= 32;
      }
      c += t[N];
      t[N - 1] = (uint32_t)c;
      t[N] = t[N + 1] + (uint32_t)(c >> 32);
    }
    Field r;
#pragma unroll
    for (int i = 0; i < N; i++) r.v[i] = t[i];
    if (t[N] || geq_mod(r.v)) sub_mod_inplace(r.v);
    return r;
  }
  GPUC2_HD Field sqr() const { return *this * *this; }

  // from_mont: Montgomery form -> canonical integer (multiply by 1).
  GPUC2_HD Field from_mont() const {
    Field one_plain = zero();
    one_plain.v[0] = 1;
    return *this * one_plain;
  }
  // to_mont: canonical integer -> Montgomery form.
  GPUC2_HD Field to_mont() const { return *this * r2(); }

  // pow by a little-endian exponent of nw 32-bit words.
  GPUC2_HD Field pow(const uint32_t* e, int nw) const {
    Field r = one();
    for (int i = nw - 1; i >= 0; i--) {
      for (int b = 31; b >= 0; b--) {
        r = r.sqr();
        if ((e[i] >> b) & 1) r = r * *this;
      }
    }
    return r;
  }
  GPUC2_HD Field pow_u64(uint64_t e) const {
    uint32_t w[2] = {(uint32_t)e, (uint32_t)(e >> 32)};
    return pow(w, 2);
  }
  // inverse by Fermat (a^(p-2)); zero maps to zero. Slow; host / rare use.
  GPUC2_HD Field inverse() const {
    uint32_t e[N];
    uint64_t borrow = 2;
#pragma unroll
    for (int i = 0; i < N; i++) {
      uint64_t d = (uint64_t)P::mod(i) - borrow;
      e[i] = (uint32_t)d;
      borrow = (d >> 63) & 1;
    }
    return pow(e, N);
  }
};

typedef Field<FpParams> Fp;
typedef Field<FrParams> Fr;

// Fp2 = Fp[u]/(u^2+1), gnark E2 layout (A0, A1).
struct Fp2 {
  Fp a0, a1;
  GPUC2_HD static Fp2 zero() { return Fp2{Fp::zero(), Fp::zero()}; }
  GPUC2_HD static Fp2 one() { return Fp2{Fp::one(), Fp::zero()}; }
  GPUC2_HD bool is_zero() const { return a0.is_zero() && a1.is_zero(); }
  GPUC2_HD bool operator==(const Fp2& o) const { return a0 == o.a0 && a1 == o.a1; }
  GPUC2_HD bool operator!=(const Fp2& o) const { return !(*this == o); }
  GPUC2_HD friend Fp2 operator+(const Fp2& a, const Fp2& b) { return Fp2{a.a0 + b.a0, a.a1 + b.a1}; }
  GPUC2_HD friend Fp2 operator-(const Fp2& a, const Fp2& b) { return Fp2{a.a0 - b.a0, a.a1 - b.a1}; }
  GPUC2_HD Fp2 neg() const { return Fp2{a0.neg(), a1.neg()}; }
  GPUC2_HD Fp2 dbl() const { return *this + *this; }
  // Karatsuba: three Fp multiplications.
  GPUC2_HD static Fp2 mul_inline(const Fp2& a, const Fp2& b) {
    Fp v0 = a.a0 * b.a0;
    Fp v1 = a.a1 * b.a1;
    Fp s = (a.a0 + a.a1) * (b.a0 + b.a1);
    return Fp2{v0 - v1, s - v0 - v1};
  }
  // (a0 + a1 u)^2 = (a0+a1)(a0-a1) + 2 a0 a1 u
  GPUC2_HD static Fp2 sqr_inline(const Fp2& a) {
    Fp t = a.a0 * a.a1;
    return Fp2{(a.a0 + a.a1) * (a.a0 - a.a1), t + t};
  }
#ifdef __CUDA_ARCH__
  // On the device these are calls: a G2 point addition holds ~10 of them,
  // and inlined they outgrow the instruction cache (ncu on an H200: 39 % of
  // the G2 accumulation's stalls were instruction fetch; G2 2^22 MSM 198 ->
  // 120 ms as calls).
  __device__ __noinline__ static Fp2 mul_call(Fp2 a, Fp2 b) { return mul_inline(a, b); }
  __device__ __noinline__ static Fp2 sqr_call(Fp2 a) { return sqr_inline(a); }
  GPUC2_HD friend Fp2 operator*(const Fp2& a, const Fp2& b) { return mul_call(a, b); }
  GPUC2_HD Fp2 sqr() const { return sqr_call(*this); }
#else
  GPUC2_HD friend Fp2 operator*(const Fp2& a, const Fp2& b) { return mul_inline(a, b); }
  GPUC2_HD Fp2 sqr() const { return sqr_inline(*this); }
#endif
  GPUC2_HD Fp2 inverse() const {
    Fp n = a0.sqr() + a1.sqr();
    Fp ni = n.inverse();
    return Fp2{a0 * ni, (a1 * ni).neg()};
  }
};

}  // namespace gpuc2
