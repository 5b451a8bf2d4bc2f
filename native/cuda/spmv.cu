// Pre-compiled constraint evaluation: one R1CS matrix in compact CSR times
// the witness, a = A·w (issue 18). Most rows hold one or two terms and most
// witness values are bits, so a thread per row, skipping zero values and
// the multiplication by ±1, keeps the kernel bound by its loads.
#include "common.cuh"
#include "field.cuh"
#include "msm.cuh"

namespace gpuc2 {

namespace {

// out[r] = sum of coeffs[ids[k]]·w[cols[k]], k in [row_start[r],
// row_start[r+1]), w = (inputs, aux). A term outside nnz, w or coeffs is
// skipped, so that no matrix makes the kernel read out of bounds (the
// caller validates it).
__global__ void k_spmv(const uint32_t* __restrict__ row_start, const uint32_t* __restrict__ cols,
                       const uint16_t* __restrict__ ids, uint64_t rows, uint64_t nnz, const Fr* __restrict__ coeffs,
                       uint32_t n_coeffs, const Fr* __restrict__ inputs, uint64_t n_inputs,
                       const Fr* __restrict__ aux, uint64_t n_aux, Fr* __restrict__ out) {
  const uint64_t r = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const uint64_t k1 = row_start[r + 1] < nnz ? row_start[r + 1] : nnz;
  const Fr one = Fr::one();
  const Fr minus_one = one.neg();
  Fr acc = Fr::zero();
  for (uint64_t k = row_start[r]; k < k1; k++) {
    const uint64_t c = cols[k];
    const uint16_t id = ids[k];
    if (c >= n_inputs + n_aux || id >= n_coeffs) continue;
    const Fr v = c < n_inputs ? inputs[c] : aux[c - n_inputs];
    if (v.is_zero()) continue;
    const Fr coeff = coeffs[id];
    if (v == one) {
      acc = acc + coeff;
    } else if (coeff == one) {
      acc = acc + v;
    } else if (coeff == minus_one) {
      acc = acc - v;
    } else {
      acc = acc + coeff * v;
    }
  }
  out[r] = acc;
}

}  // namespace

void spmv_device(int32_t device, void* stream, const uint32_t* row_start, const uint32_t* cols, const uint16_t* ids,
                 uint64_t rows, uint64_t nnz, const void* coeffs, uint32_t n_coeffs, const void* inputs,
                 uint64_t n_inputs, const void* aux, uint64_t n_aux, void* out) {
  if (!row_start || (nnz && (!cols || !ids)) || (rows && !out) || (n_coeffs && !coeffs) || (n_inputs && !inputs) ||
      (n_aux && !aux))
    fail(GPUC2_ERR_INVALID_ARGUMENT, "spmv: NULL buffer");
  if (!stream) fail(GPUC2_ERR_INVALID_ARGUMENT, "spmv: NULL stream");
  set_device(device);
  StreamScope scope((cudaStream_t)stream);
  if (rows == 0) return;
  k_spmv<<<blocks_for(rows, 256), 256, 0, cur_stream()>>>(row_start, cols, ids, rows, nnz, (const Fr*)coeffs, n_coeffs,
                                                           (const Fr*)inputs, n_inputs, (const Fr*)aux, n_aux,
                                                           (Fr*)out);
  KERNEL_CHECK();
}

}  // namespace gpuc2
