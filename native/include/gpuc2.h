/*
 * gpuc2.h — C ABI of libgpuc2cuda.so, the native CUDA backend of gpuc2.
 *
 * One versioned function table: gpuc2_api() returns a pointer to a static
 * gpuc2_api_t whose abi_version is GPUC2_ABI_VERSION. Callers check the
 * version and struct_size before using any entry.
 *
 * Conventions for every entry:
 *  - returns a gpuc2_status (0 = ok); no C++ exception crosses the boundary;
 *  - fills the caller-owned buffer msg (msg_len bytes, NUL-terminated,
 *    truncated) with a message on error; msg may be NULL when msg_len is 0;
 *  - takes an explicit device ordinal and sets it on the calling thread;
 *  - the host-pointer entries (msm_g1, msm_g2, ntt, h, fixed_base_*) are
 *    synchronous: host buffers may be released when the call returns;
 *  - the stream entries take an explicit stream (NULL: the calling thread's
 *    default stream) and work on device buffers; they enqueue and return,
 *    except where the entry says it waits. No entry synchronizes the whole
 *    device, and temporaries come from the device's stream-ordered pool,
 *    so work on different streams overlaps.
 *
 * Data layouts are gnark-crypto's in-memory layouts (little-endian 64-bit
 * limbs, Montgomery form):
 *  - Fp element: 6 x uint64, R = 2^384; Fr element: 4 x uint64, R = 2^256;
 *  - G1 affine: X, Y (Fp); G2 affine: X.A0, X.A1, Y.A0, Y.A1 (Fp);
 *    X = Y = 0 is the point at infinity;
 *  - G1 Jacobian result: X, Y, Z (Fp); G2: X.A0, X.A1, Y.A0, Y.A1, Z.A0, Z.A1;
 *    Z = 0 is the point at infinity.
 */
#ifndef GPUC2_H
#define GPUC2_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ABI 7: the streamed MSMs' batched 0/1 split (GPUC2_MSM_BATCHED_SPLIT).
 * ABI 6: a constraint matrix times the witness on the device (spmv). ABI 5
 * added high-priority streams (stream_create_priority); ABI 4 MSMs
 * over bases streamed from host memory (msm_g1_stream, msm_g2_stream,
 * msm_stream_scratch_bytes) and H one vector at a time (h_step), for devices
 * that cannot hold the proving key; ABI 3 the MSM tuning flags,
 * msm_scratch_bytes and pool_peak. The table is checked for this exact
 * version: an older library is refused. */
#define GPUC2_ABI_VERSION 7u

typedef enum gpuc2_status {
  GPUC2_OK = 0,
  GPUC2_ERR_INVALID_ARGUMENT = 1,
  GPUC2_ERR_OUT_OF_MEMORY = 2,
  GPUC2_ERR_CUDA = 3,
  GPUC2_ERR_NOT_SUPPORTED = 4,
  GPUC2_ERR_INTERNAL = 5
} gpuc2_status;

typedef struct gpuc2_device_info {
  char name[256];
  uint64_t total_memory; /* bytes */
  int32_t sm_count;
  int32_t cc_major;
  int32_t cc_minor;
  int32_t reserved;
} gpuc2_device_info;

/* NTT directions (gnark-crypto fft.Domain semantics, natural order in and out,
 * size m = 2^log_m, w = fr.Generator(m), g = 7):
 *   FORWARD:        y_j = sum_i a_i w^(ij)
 *   INVERSE:        a_i = m^-1 sum_j y_j w^(-ij)
 *   COSET_FORWARD:  y_j = sum_i a_i (g w^j)^i
 *   COSET_INVERSE:  the inverse of COSET_FORWARD */
typedef enum gpuc2_ntt_dir {
  GPUC2_NTT_FORWARD = 0,
  GPUC2_NTT_INVERSE = 1,
  GPUC2_NTT_COSET_FORWARD = 2,
  GPUC2_NTT_COSET_INVERSE = 3
} gpuc2_ntt_dir;

/* Curve groups of the MSM queries. */
typedef enum gpuc2_group { GPUC2_G1 = 1, GPUC2_G2 = 2 } gpuc2_group;

/* MSM flags: the flags argument of msm_g1, msm_g2, msm_g1_device,
 * msm_g2_device, msm_scratch_bytes and bench_resident. 0 is what a prover
 * wants; TRACE, NO_SPLIT and a forced window are tuning knobs for experiments
 * and benchmarks (the library reads no environment variables). Unknown bits
 * and a window outside [GPUC2_MSM_WINDOW_MIN, GPUC2_MSM_WINDOW_MAX] are
 * GPUC2_ERR_INVALID_ARGUMENT. */
#define GPUC2_MSM_SCALARS_CANONICAL 1u /* scalars are canonical, not Montgomery */
#define GPUC2_MSM_TRACE 2u             /* per-phase times to stderr; synchronizes the stream at each phase */
#define GPUC2_MSM_NO_SPLIT 4u          /* Pippenger over every scalar, without the 0/1 split */
/* Streamed MSMs (the others ignore it): the 0/1 split batched across
 * chunks, with no host wait per chunk (the ones summed into per-thread
 * partial sums, the others gathered and added a quarter of them at a
 * time). Its kernels run back to back: faster beside the same proof's h
 * MSM, but they take more of the SMs another proof's kernels would use. */
#define GPUC2_MSM_BATCHED_SPLIT 8u
/* Bits 8..12: a forced Pippenger window c (GPUC2_MSM_WINDOW(c)); 0 lets the
 * library choose. */
#define GPUC2_MSM_WINDOW_SHIFT 8u
#define GPUC2_MSM_WINDOW_MASK 0x1f00u
#define GPUC2_MSM_WINDOW(c) (((uint32_t)(c) << GPUC2_MSM_WINDOW_SHIFT) & GPUC2_MSM_WINDOW_MASK)

/* MSM limits. The library's own window choice and a forced window lie in
 * [WINDOW_MIN, WINDOW_MAX]; the bucket table of window c holds
 * ceil(256/c)·2^(c-1) XYZZ points of BUCKET_BYTES_G1/G2 bytes, so it is
 * largest at WINDOW_MAX. Pippenger sorts the digits of at most
 * max(GROUP_ENTRIES, n_scalars) (window, scalar) pairs at once and keeps at
 * most PARTIALS_MAX partial bucket sums. Callers without a device bound
 * msm_scratch_bytes from these (package native: MSMScratchBound). */
#define GPUC2_MSM_WINDOW_MIN 4
#define GPUC2_MSM_WINDOW_MAX 20
#define GPUC2_MSM_BUCKET_BYTES_G1 192u
#define GPUC2_MSM_BUCKET_BYTES_G2 384u
#define GPUC2_MSM_GROUP_ENTRIES (1u << 28)
#define GPUC2_MSM_PARTIALS_MAX (1u << 21)

/* Steps of h_step: H over a, b, c with two device vectors at a time. */
typedef enum gpuc2_h_step {
  GPUC2_H_STEP_A = 0, /* acc = a on the coset (inverse NTT, coset forward NTT) */
  GPUC2_H_STEP_B = 1, /* x = b on the coset; acc *= x */
  GPUC2_H_STEP_C = 2  /* x = c on the coset; acc = (acc - x)/Z; acc = coset inverse NTT: h */
} gpuc2_h_step;

/* A streamed MSM sends at least this many points per chunk. */
#define GPUC2_MSM_STREAM_CHUNK_MIN 64u

/* A CUDA stream (cudaStream_t), opaque to callers. */
typedef struct gpuc2_stream_s* gpuc2_stream;

typedef struct gpuc2_api_t {
  uint32_t abi_version; /* GPUC2_ABI_VERSION */
  uint32_t struct_size; /* sizeof(gpuc2_api_t) */

  /* Library version string, static storage. */
  const char* (*version)(void);

  int (*device_count)(int32_t* count, char* msg, size_t msg_len);
  int (*device_info)(int32_t device, gpuc2_device_info* info, char* msg, size_t msg_len);

  /* out = sum_i scalars[i] * bases[j(i)].
   * density == NULL: n_bases == n_scalars, j(i) = i.
   * density != NULL: density_words = ceil(n_scalars/64) words; bit i set means
   * scalar i is used with the next base; n_bases = popcount(density).
   * out_jac: 3 Fp (G1) or 3 Fp2 (G2) in Jacobian form. */
  int (*msm_g1)(int32_t device, const void* bases, uint64_t n_bases, const void* scalars,
                uint64_t n_scalars, const uint64_t* density, uint64_t density_words,
                uint32_t flags, void* out_jac, char* msg, size_t msg_len);
  int (*msm_g2)(int32_t device, const void* bases, uint64_t n_bases, const void* scalars,
                uint64_t n_scalars, const uint64_t* density, uint64_t density_words,
                uint32_t flags, void* out_jac, char* msg, size_t msg_len);

  /* In-place NTT of 2^log_m Fr elements (Montgomery form). log_m <= 28. */
  int (*ntt)(int32_t device, void* data, uint32_t log_m, int32_t dir, char* msg, size_t msg_len);

  /* H as bellperson computes it. a, b, c: n <= m = 2^log_m Fr elements each
   * (implicitly zero-padded to m). For each: inverse NTT, coset forward NTT;
   * then h = (a*b - c) * (g^m - 1)^-1; then coset inverse NTT. h_out receives
   * m Fr elements (the caller keeps the first m-1). */
  int (*h)(int32_t device, const void* a, const void* b, const void* c, uint64_t n,
           uint32_t log_m, void* h_out, char* msg, size_t msg_len);

  /* Timing helper for benchmarks: runs the operation iters times with its
   * inputs already on the device (uploaded once) and writes the per-run
   * device times in milliseconds (CUDA events) to ms_out[iters].
   * op: 0 = msm_g1, 1 = msm_g2 (bases, scalars as for msm_*, no density;
   * msm_flags as for msm_*, Montgomery scalars converted once before the
   * runs), 2 = ntt forward (data), 3 = h (a, b, c with n = m), 4 + dir =
   * ntt in direction dir (GPUC2_NTT_*; libraries before 2026-12-02 answer
   * GPUC2_ERR_NOT_SUPPORTED). */
  int (*bench_resident)(int32_t device, int32_t op, const void* in0, const void* in1,
                        const void* in2, uint64_t n, uint32_t log_m, uint32_t iters,
                        uint32_t msm_flags, float* ms_out, char* msg, size_t msg_len);

  /* ---- ABI 2: streams, device and pinned memory, stream entries ---- */

  /* Non-blocking stream on the device; destroy waits for its work. */
  int (*stream_create)(int32_t device, gpuc2_stream* out, char* msg, size_t msg_len);
  int (*stream_destroy)(int32_t device, gpuc2_stream s, char* msg, size_t msg_len);
  /* Waits until all work enqueued on s has finished. */
  int (*stream_sync)(int32_t device, gpuc2_stream s, char* msg, size_t msg_len);
  /* Device memory. s == NULL: cudaMalloc (long-lived data such as the SRS;
   * the one exception to "no device-wide synchronization": when it runs out
   * of memory it synchronizes the device, trims the pool and tries once
   * more); otherwise from the stream-ordered pool, usable in stream order on
   * s. Free with the same s. */
  int (*device_alloc)(int32_t device, gpuc2_stream s, uint64_t bytes, void** out, char* msg, size_t msg_len);
  int (*device_free)(int32_t device, gpuc2_stream s, void* p, char* msg, size_t msg_len);
  /* Pinned (page-locked) host memory, for copies that overlap computation. */
  int (*host_alloc)(uint64_t bytes, void** out, char* msg, size_t msg_len);
  int (*host_free)(void* p, char* msg, size_t msg_len);
  /* Free and total memory of the device (a device query: not for the proving path). */
  int (*mem_info)(int32_t device, uint64_t* free_bytes, uint64_t* total_bytes, char* msg, size_t msg_len);
  /* Enqueued copies. Pageable host memory works but the call then waits for
   * the copy; pinned memory must stay valid until the stream reaches it. */
  int (*copy_to_device)(int32_t device, gpuc2_stream s, void* dst, const void* src, uint64_t bytes, char* msg,
                        size_t msg_len);
  int (*copy_to_host)(int32_t device, gpuc2_stream s, void* dst, const void* src, uint64_t bytes, char* msg,
                      size_t msg_len);
  int (*memset_zero)(int32_t device, gpuc2_stream s, void* dst, uint64_t bytes, char* msg, size_t msg_len);
  /* Enqueues the Montgomery-to-canonical conversion of n Fr elements in place. */
  int (*fr_from_mont)(int32_t device, gpuc2_stream s, void* data, uint64_t n, char* msg, size_t msg_len);
  /* msm_g1/msm_g2 over device buffers (bases, scalars on the device; density
   * and out on the host), in stream order on s; waits for its result.
   * Scalars are not modified (Montgomery ones are converted into a temporary). */
  int (*msm_g1_device)(int32_t device, gpuc2_stream s, const void* bases, uint64_t n_bases, const void* scalars,
                       uint64_t n_scalars, const uint64_t* density, uint64_t density_words, uint32_t flags,
                       void* out_jac, char* msg, size_t msg_len);
  int (*msm_g2_device)(int32_t device, gpuc2_stream s, const void* bases, uint64_t n_bases, const void* scalars,
                       uint64_t n_scalars, const uint64_t* density, uint64_t density_words, uint32_t flags,
                       void* out_jac, char* msg, size_t msg_len);
  /* Enqueues H over device buffers a, b, c of 2^log_m elements each
   * (Montgomery, zero-padded by the caller); h lands in a, b and c are
   * overwritten. */
  int (*h_device)(int32_t device, gpuc2_stream s, void* a, void* b, void* c, uint32_t log_m, char* msg,
                  size_t msg_len);
  /* The stream-ordered pool: bytes allocated from it now, and bytes it holds
   * (allocated plus cached for reuse). For leak checks and status. */
  int (*pool_info)(int32_t device, uint64_t* used_bytes, uint64_t* held_bytes, char* msg, size_t msg_len);
  /* Fixed-base batch multiplication for trusted setups: out[i] = scalars[i]·base
   * (affine, infinity as (0, 0)); base affine, scalars Montgomery Fr; host
   * pointers, synchronous, any n (processed in chunks). */
  int (*fixed_base_g1)(int32_t device, const void* base, const void* scalars, uint64_t n, void* out, char* msg,
                       size_t msg_len);
  int (*fixed_base_g2)(int32_t device, const void* base, const void* scalars, uint64_t n, void* out, char* msg,
                       size_t msg_len);

  /* ---- ABI 3 ---- */

  /* The device memory msm_g1_device (group GPUC2_G1) or msm_g2_device
   * (GPUC2_G2) with these sizes and flags allocates on the device at its
   * peak beyond its bases and scalars: digit keys and values and their sort,
   * bucket table, partial sums, bucket reduction, the 0/1 split's arrays, a
   * converted copy of Montgomery scalars, the density bitmap's copy (counted
   * whether or not the call passes one). It holds for every value of the
   * scalars and bitmap, with the window the library would choose for n_bases
   * (or the flags' forced one), and counts each allocation rounded up to
   * 2 MiB (at least what the pool charges for it). n_bases > n_scalars is
   * GPUC2_ERR_INVALID_ARGUMENT. msm_g1/msm_g2 (host pointers)
   * allocate this with GPUC2_MSM_SCALARS_CANONICAL set, plus their copies of
   * the bases and scalars. Depends on the device (CUB's temporary storage,
   * its thread count); a host computation that enqueues nothing. */
  int (*msm_scratch_bytes)(int32_t device, int32_t group, uint64_t n_bases, uint64_t n_scalars, uint32_t flags,
                           uint64_t* bytes, char* msg, size_t msg_len);
  /* The high-water mark of bytes allocated from the device's stream-ordered
   * pool since the previous pool_peak call (or the pool's first use); then
   * resets the mark. For tests of msm_scratch_bytes, not the proving path. */
  int (*pool_peak)(int32_t device, uint64_t* peak_bytes, char* msg, size_t msg_len);

  /* ---- ABI 4 ---- */

  /* msm_g1_device/msm_g2_device with the bases in host memory: scalars (and
   * the result, density) as there, on stream s; the bases pass through two
   * device buffers of at most chunk_points points each (>=
   * GPUC2_MSM_STREAM_CHUNK_MIN), copied on stream copy while the kernels on s
   * work on the previous chunk, and every chunk's digits go into one bucket
   * table reduced once. host_bases must stay valid until the call returns;
   * in pinned memory (host_alloc) the copies overlap the kernels, pageable
   * memory works but each copy then waits. Waits for its result; the copy
   * stream is idle when it returns. */
  int (*msm_g1_stream)(int32_t device, gpuc2_stream s, gpuc2_stream copy, const void* host_bases, uint64_t n_bases,
                       const void* scalars, uint64_t n_scalars, const uint64_t* density, uint64_t density_words,
                       uint32_t flags, uint64_t chunk_points, void* out_jac, char* msg, size_t msg_len);
  int (*msm_g2_stream)(int32_t device, gpuc2_stream s, gpuc2_stream copy, const void* host_bases, uint64_t n_bases,
                       const void* scalars, uint64_t n_scalars, const uint64_t* density, uint64_t density_words,
                       uint32_t flags, uint64_t chunk_points, void* out_jac, char* msg, size_t msg_len);
  /* msm_scratch_bytes for msm_g1_stream/msm_g2_stream with chunk_points:
   * the two chunk buffers included, the scalars not. */
  int (*msm_stream_scratch_bytes)(int32_t device, int32_t group, uint64_t n_bases, uint64_t n_scalars,
                                  uint32_t flags, uint64_t chunk_points, uint64_t* bytes, char* msg, size_t msg_len);
  /* One step of H (gpuc2_h_step) over device vectors acc and x of 2^log_m
   * elements (Montgomery, zero-padded by the caller), enqueued on s:
   * STEP_A(acc = a), STEP_B(acc, x = b), STEP_C(acc, x = c) leave in acc what
   * h_device leaves in a; x is overwritten (unused, may be NULL, in STEP_A).
   * Beside acc and x it allocates the NTT tables, h_step_scratch_bytes. */
  int (*h_step)(int32_t device, gpuc2_stream s, void* acc, void* x, uint32_t log_m, int32_t step, char* msg,
                size_t msg_len);
  /* The pool memory h_step and h_device allocate beside their vectors. */
  int (*h_scratch_bytes)(uint32_t log_m, uint64_t* bytes, char* msg, size_t msg_len);

  /* ---- ABI 5 ---- */

  /* stream_create with the device's greatest priority when high != 0 (else
   * as stream_create): as SMs free up, the scheduler starts this stream's
   * pending thread blocks before those of normal streams, so a chain of short
   * kernels beside another stream's long ones is not delayed by them.
   * Running blocks are never preempted. */
  int (*stream_create_priority)(int32_t device, int32_t high, gpuc2_stream* out, char* msg, size_t msg_len);

  /* ---- ABI 6 ---- */

  /* Enqueues out[r] = sum of coeffs[ids[k]]·w[cols[k]] over k in
   * [row_start[r], row_start[r+1]), for r < rows: one R1CS matrix in CSR
   * form (rows+1 offsets, nnz 32-bit columns and 16-bit coefficient ids)
   * times the witness w = (inputs, aux): column j < n_inputs is inputs[j],
   * column n_inputs + j is aux[j]. All device buffers, Fr in Montgomery
   * form. A term past nnz, the witness or n_coeffs is skipped, never read
   * out of bounds; the caller validates its matrices once. */
  int (*spmv)(int32_t device, gpuc2_stream s, const uint32_t* row_start, const uint32_t* cols, const uint16_t* ids,
              uint64_t rows, uint64_t nnz, const void* coeffs, uint32_t n_coeffs, const void* inputs,
              uint64_t n_inputs, const void* aux, uint64_t n_aux, void* out, char* msg, size_t msg_len);
} gpuc2_api_t;

/* The only exported symbol. */
const gpuc2_api_t* gpuc2_api(void);

#ifdef __cplusplus
}
#endif

#endif /* GPUC2_H */
