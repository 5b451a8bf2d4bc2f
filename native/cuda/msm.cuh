// Internal interface between api.cu and the MSM / NTT translation units.
#pragma once
#include <stdint.h>
#include "field.cuh"

namespace gpuc2 {

// resident: bases and scalars are device pointers (else host pointers);
// stream NULL: the per-thread default stream. Returns when out_jac is written.
template <class F>
void msm_call(int32_t device, void* stream, bool resident, const void* bases, uint64_t n_bases, const void* scalars,
              uint64_t n_scalars, const uint64_t* density, uint64_t density_words, uint32_t flags, void* out_jac);
// msm_scratch_bytes of gpuc2.h: msm_call's peak pool use over device buffers.
template <class F>
uint64_t msm_scratch(int32_t device, uint64_t n_bases, uint64_t n_scalars, uint32_t flags);
// out[i] = scalars[i]·base (affine, gnark layout); host pointers, synchronous.
template <class F>
void fixed_base_host(int32_t device, const void* base, const void* scalars, uint64_t n, void* out);
void fr_from_mont_device(int32_t device, void* stream, void* data, uint64_t n);
// spmv of gpuc2.h (spmv.cu).
void spmv_device(int32_t device, void* stream, const uint32_t* row_start, const uint32_t* cols, const uint16_t* ids,
                 uint64_t rows, uint64_t nnz, const void* coeffs, uint32_t n_coeffs, const void* inputs,
                 uint64_t n_inputs, const void* aux, uint64_t n_aux, void* out);
template <class F>
void msm_bench(int32_t device, const void* bases, const void* scalars, uint64_t n, uint32_t iters, uint32_t flags,
               float* ms);

void ntt_host(int32_t device, void* data, uint32_t log_m, int32_t dir);
void h_host(int32_t device, const void* a, const void* b, const void* c, uint64_t n, uint32_t log_m, void* h_out);
// Enqueues H on the stream over device buffers of 2^log_m elements; h lands in a.
void h_resident(int32_t device, void* stream, void* a, void* b, void* c, uint32_t log_m);
// One step of H with two vectors on the device (gpuc2_h_step).
void h_step(int32_t device, void* stream, void* acc, void* x, uint32_t log_m, int32_t step);
// The pool memory of h_step and h_resident beside their vectors.
uint64_t h_scratch(uint32_t log_m);
// msm_call with the bases in host memory streamed in chunks (msm_g*_stream).
template <class F>
void msm_stream(int32_t device, void* stream, void* copy, const void* host_bases, uint64_t n_bases,
                const void* scalars, uint64_t n_scalars, const uint64_t* density, uint64_t density_words,
                uint32_t flags, uint64_t chunk_points, void* out_jac);
template <class F>
uint64_t msm_stream_scratch(int32_t device, uint64_t n_bases, uint64_t n_scalars, uint32_t flags,
                            uint64_t chunk_points);
void ntt_bench(int32_t device, int32_t dir, const void* data, uint32_t log_m, uint32_t iters, float* ms);
void h_bench(int32_t device, const void* a, const void* b, const void* c, uint32_t log_m, uint32_t iters, float* ms);

}  // namespace gpuc2
