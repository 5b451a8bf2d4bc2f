// Fixed-base batch scalar multiplication k_i·B for one base B and many k_i,
// as a trusted setup needs (the query points of a test setup).
//
// A table of d·2^(8j)·B for the 32 byte positions j and digits d = 1..255
// (built on the GPU, one thread per position) turns each product into at
// most 32 mixed additions. Results go to affine form with one inversion per
// batch of points (Montgomery's trick). Scalars are processed in chunks so
// the device memory stays bounded whatever n is.
#include <algorithm>
#include "common.cuh"
#include "curve.cuh"
#include "msm.cuh"

namespace gpuc2 {

namespace {

constexpr int FB_POSITIONS = 32;        // bytes of a 256-bit scalar
constexpr int FB_DIGITS = 255;          // non-zero byte values
constexpr int FB_BATCH = 32;            // points per inversion
constexpr uint64_t FB_CHUNK = 1ull << 24;  // scalars per chunk

// Thread j: table[j*255 + d-1] = d·2^(8j)·B as XYZZ.
template <class F>
__global__ void k_fb_table(Affine<F> base, XYZZ<F>* __restrict__ table) {
  int j = threadIdx.x;
  if (j >= FB_POSITIONS) return;
  XYZZ<F> p = XYZZ<F>::from_affine(base);
  for (int i = 0; i < 8 * j; i++) p = p.dbl();
  XYZZ<F> acc = p;
  table[j * FB_DIGITS] = acc;
  for (int d = 2; d <= FB_DIGITS; d++) {
    acc = acc.add(p);
    table[j * FB_DIGITS + d - 1] = acc;
  }
}

// out[i] = k_i·B for Montgomery-form scalars k_i.
template <class F>
__global__ void k_fb_mul(const Affine<F>* __restrict__ table, const Fr* __restrict__ scalars, uint64_t n,
                         XYZZ<F>* __restrict__ out) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Fr s = scalars[i].from_mont();
  XYZZ<F> acc = XYZZ<F>::inf();
  for (int j = 0; j < FB_POSITIONS; j++) {
    uint32_t d = (s.v[j >> 2] >> (8 * (j & 3))) & 0xffu;
    if (d) acc = acc.add_affine(table[j * FB_DIGITS + d - 1]);
  }
  out[i] = acc;
}

// Affine form of n XYZZ points, FB_BATCH per thread sharing one inversion:
// x = X/ZZ = X·ZZZ/(ZZ·ZZZ), y = Y/ZZZ = Y·ZZ/(ZZ·ZZZ). Infinity -> (0, 0).
template <class F>
__global__ void k_to_affine(const XYZZ<F>* __restrict__ in, uint64_t n, F* __restrict__ prefix,
                            Affine<F>* __restrict__ out) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  uint64_t b = t * FB_BATCH;
  if (b >= n) return;
  uint64_t e = b + FB_BATCH < n ? b + FB_BATCH : n;
  F acc = F::one();
  for (uint64_t i = b; i < e; i++) {
    prefix[i] = acc;
    if (!in[i].is_inf()) acc = acc * (in[i].ZZ * in[i].ZZZ);
  }
  F inv = acc.inverse();
  for (uint64_t i = e; i-- > b;) {
    XYZZ<F> p = in[i];
    if (p.is_inf()) {
      out[i] = Affine<F>{F::zero(), F::zero()};
      continue;
    }
    F d = p.ZZ * p.ZZZ;
    F di = inv * prefix[i];  // 1/d
    inv = inv * d;
    out[i] = Affine<F>{p.X * p.ZZZ * di, p.Y * p.ZZ * di};
  }
}

template <class F>
void to_affine(const XYZZ<F>* in, uint64_t n, Affine<F>* out) {
  DeviceBuffer<F> prefix(n);
  const uint64_t threads = (n + FB_BATCH - 1) / FB_BATCH;
  k_to_affine<F><<<blocks_for(threads, 64), 64, 0, cur_stream()>>>(in, n, prefix.get(), out);
  KERNEL_CHECK();
}

}  // namespace

template <class F>
void fixed_base_host(int32_t device, const void* base, const void* scalars, uint64_t n, void* out) {
  if (!base || (n && (!scalars || !out))) fail(GPUC2_ERR_INVALID_ARGUMENT, "fixed_base: NULL buffer");
  set_device(device);
  StreamScope scope(nullptr);
  if (n == 0) return;
  Affine<F> b;
  memcpy(&b, base, sizeof b);  // caller memory need not be 16-byte aligned
  const int entries = FB_POSITIONS * FB_DIGITS;
  DeviceBuffer<Affine<F>> table(entries);
  {
    DeviceBuffer<XYZZ<F>> t(entries);
    k_fb_table<F><<<1, FB_POSITIONS, 0, cur_stream()>>>(b, t.get());
    KERNEL_CHECK();
    to_affine<F>(t.get(), entries, table.get());
  }
  const uint64_t chunk = std::min<uint64_t>(n, FB_CHUNK);
  DeviceBuffer<Fr> d_scalars(chunk);
  DeviceBuffer<XYZZ<F>> d_xyzz(chunk);
  DeviceBuffer<Affine<F>> d_out(chunk);
  for (uint64_t off = 0; off < n; off += chunk) {
    const uint64_t k = std::min(chunk, n - off);
    CUDA_CHECK(cudaMemcpyAsync(d_scalars.get(), (const Fr*)scalars + off, sizeof(Fr) * k, cudaMemcpyHostToDevice,
                               cur_stream()));
    k_fb_mul<F><<<blocks_for(k, 128), 128, 0, cur_stream()>>>(table.get(), d_scalars.get(), k, d_xyzz.get());
    KERNEL_CHECK();
    to_affine<F>(d_xyzz.get(), k, d_out.get());
    CUDA_CHECK(cudaMemcpyAsync((Affine<F>*)out + off, d_out.get(), sizeof(Affine<F>) * k, cudaMemcpyDeviceToHost,
                               cur_stream()));
    sync_stream();
  }
}

template void fixed_base_host<Fp>(int32_t, const void*, const void*, uint64_t, void*);
template void fixed_base_host<Fp2>(int32_t, const void*, const void*, uint64_t, void*);

}  // namespace gpuc2
