// Internal interface between api.cu and the MSM / NTT translation units.
#pragma once
#include <stdint.h>
#include "field.cuh"

namespace gpuc2 {

template <class F>
void msm_host(int32_t device, const void* bases, uint64_t n_bases, const void* scalars, uint64_t n_scalars,
              const uint64_t* density, uint64_t density_words, uint32_t flags, void* out_jac);
template <class F>
void msm_bench(int32_t device, const void* bases, const void* scalars, uint64_t n, uint32_t iters, float* ms);

void ntt_host(int32_t device, void* data, uint32_t log_m, int32_t dir);
void h_host(int32_t device, const void* a, const void* b, const void* c, uint64_t n, uint32_t log_m, void* h_out);
void ntt_bench(int32_t device, int32_t op, const void* a, const void* b, const void* c, uint32_t log_m,
               uint32_t iters, float* ms);

}  // namespace gpuc2
