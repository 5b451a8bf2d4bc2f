// The C ABI table (include/gpuc2.h). Every entry catches everything and turns
// it into a status code plus message.
#include <cstring>
#include <new>
#include <string>
#include <exception>
#include <mutex>
#include "common.cuh"
#include "msm.cuh"
#include "field.cuh"

using namespace gpuc2;

namespace {

void put_msg(char* msg, size_t msg_len, const std::string& s) {
  if (!msg || msg_len == 0) return;
  size_t n = s.size() < msg_len - 1 ? s.size() : msg_len - 1;
  memcpy(msg, s.data(), n);
  msg[n] = 0;
}

template <class Fn>
int guard(char* msg, size_t msg_len, Fn&& fn) {
  if (msg && msg_len) msg[0] = 0;
  try {
    fn();
    return GPUC2_OK;
  } catch (const Error& e) {
    put_msg(msg, msg_len, e.msg);
    return e.code;
  } catch (const std::bad_alloc&) {
    put_msg(msg, msg_len, "host out of memory");
    return GPUC2_ERR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    put_msg(msg, msg_len, e.what());
    return GPUC2_ERR_INTERNAL;
  } catch (...) {
    put_msg(msg, msg_len, "unknown C++ exception");
    return GPUC2_ERR_INTERNAL;
  }
}

// GroupTag names a curve group by its base field, for by_group's callers.
template <class F>
struct GroupTag {
  typedef F Field;
};

// by_group returns f(GroupTag<Fp>{}) for GPUC2_G1 and f(GroupTag<Fp2>{})
// for GPUC2_G2, and fails for any other group (call names the entry).
template <class Fn>
uint64_t by_group(int32_t group, const char* call, Fn f) {
  switch (group) {
    case GPUC2_G1:
      return f(GroupTag<Fp>{});
    case GPUC2_G2:
      return f(GroupTag<Fp2>{});
  }
  fail(GPUC2_ERR_INVALID_ARGUMENT, std::string(call) + ": unknown group");
}

// The version names the ABI from GPUC2_ABI_VERSION, so it cannot go stale.
const char* api_version() {
  static const std::string v = "gpuc2cuda (abi " + std::to_string(GPUC2_ABI_VERSION) + ")";
  return v.c_str();
}

int api_device_count(int32_t* count, char* msg, size_t msg_len) {
  return guard(msg, msg_len, [&] {
    if (!count) fail(GPUC2_ERR_INVALID_ARGUMENT, "count is NULL");
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) {
      cudaGetLastError();
      n = 0;
    } else {
      CUDA_CHECK(e);
    }
    *count = n;
  });
}

int api_device_info(int32_t device, gpuc2_device_info* info, char* msg, size_t msg_len) {
  return guard(msg, msg_len, [&] {
    if (!info) fail(GPUC2_ERR_INVALID_ARGUMENT, "info is NULL");
    set_device(device);
    cudaDeviceProp p;
    CUDA_CHECK(cudaGetDeviceProperties(&p, device));
    memset(info, 0, sizeof *info);
    strncpy(info->name, p.name, sizeof info->name - 1);
    info->total_memory = p.totalGlobalMem;
    info->sm_count = p.multiProcessorCount;
    info->cc_major = p.major;
    info->cc_minor = p.minor;
  });
}

int api_msm_g1(int32_t device, const void* bases, uint64_t n_bases, const void* scalars, uint64_t n_scalars,
               const uint64_t* density, uint64_t density_words, uint32_t flags, void* out, char* msg,
               size_t msg_len) {
  return guard(msg, msg_len, [&] {
    msm_call<Fp>(device, nullptr, false, bases, n_bases, scalars, n_scalars, density, density_words, flags, out);
  });
}

int api_msm_g2(int32_t device, const void* bases, uint64_t n_bases, const void* scalars, uint64_t n_scalars,
               const uint64_t* density, uint64_t density_words, uint32_t flags, void* out, char* msg,
               size_t msg_len) {
  return guard(msg, msg_len, [&] {
    msm_call<Fp2>(device, nullptr, false, bases, n_bases, scalars, n_scalars, density, density_words, flags, out);
  });
}

int api_ntt(int32_t device, void* data, uint32_t log_m, int32_t dir, char* msg, size_t msg_len) {
  return guard(msg, msg_len, [&] { ntt_host(device, data, log_m, dir); });
}

int api_h(int32_t device, const void* a, const void* b, const void* c, uint64_t n, uint32_t log_m, void* h_out,
          char* msg, size_t msg_len) {
  return guard(msg, msg_len, [&] { h_host(device, a, b, c, n, log_m, h_out); });
}

int api_bench(int32_t device, int32_t op, const void* in0, const void* in1, const void* in2, uint64_t n,
              uint32_t log_m, uint32_t iters, uint32_t msm_flags, float* ms, char* msg, size_t msg_len) {
  return guard(msg, msg_len, [&] {
    if (!ms || !in0 || iters == 0) fail(GPUC2_ERR_INVALID_ARGUMENT, "bench: bad arguments");
    switch (op) {
      case 0:
        msm_bench<Fp>(device, in0, in1, n, iters, msm_flags, ms);
        break;
      case 1:
        msm_bench<Fp2>(device, in0, in1, n, iters, msm_flags, ms);
        break;
      case 2:
        ntt_bench(device, GPUC2_NTT_FORWARD, in0, log_m, iters, ms);
        break;
      case 3:
        if (!in1 || !in2) fail(GPUC2_ERR_INVALID_ARGUMENT, "bench: bad arguments");
        h_bench(device, in0, in1, in2, log_m, iters, ms);
        break;
      case 4 + GPUC2_NTT_FORWARD:
      case 4 + GPUC2_NTT_INVERSE:
      case 4 + GPUC2_NTT_COSET_FORWARD:
      case 4 + GPUC2_NTT_COSET_INVERSE:
        ntt_bench(device, op - 4, in0, log_m, iters, ms);
        break;
      default:
        fail(GPUC2_ERR_NOT_SUPPORTED, "bench: unknown op");
    }
  });
}

cudaStream_t as_stream(gpuc2_stream s) { return (cudaStream_t)s; }

int api_stream_create_priority(int32_t device, int32_t high, gpuc2_stream* out, char* msg, size_t msg_len) {
  return guard(msg, msg_len, [&] {
    if (!out) fail(GPUC2_ERR_INVALID_ARGUMENT, "stream_create: out is NULL");
    set_device(device);
    int least = 0, greatest = 0;  // numerically, greatest <= least
    if (high) CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    cudaStream_t s = nullptr;
    CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, high ? greatest : least));
    *out = (gpuc2_stream)s;
  });
}

int api_stream_create(int32_t device, gpuc2_stream* out, char* msg, size_t msg_len) {
  return api_stream_create_priority(device, 0, out, msg, msg_len);
}

int api_stream_destroy(int32_t device, gpuc2_stream s, char* msg, size_t msg_len) {
  return guard(msg, msg_len, [&] {
    if (!s) fail(GPUC2_ERR_INVALID_ARGUMENT, "stream_destroy: NULL stream");
    set_device(device);
    CUDA_CHECK(cudaStreamSynchronize(as_stream(s)));
    CUDA_CHECK(cudaStreamDestroy(as_stream(s)));
  });
}

int api_stream_sync(int32_t device, gpuc2_stream s, char* msg, size_t msg_len) {
  return guard(msg, msg_len, [&] {
    set_device(device);
    CUDA_CHECK(cudaStreamSynchronize(s ? as_stream(s) : cudaStreamPerThread));
  });
}

int api_device_alloc(int32_t device, gpuc2_stream s, uint64_t bytes, void** out, char* msg, size_t msg_len) {
  return guard(msg, msg_len, [&] {
    if (!out) fail(GPUC2_ERR_INVALID_ARGUMENT, "device_alloc: out is NULL");
    *out = nullptr;
    set_device(device);
    void* p = nullptr;
    cudaError_t e = s ? cudaMallocAsync(&p, bytes ? bytes : 1, as_stream(s)) : cudaMalloc(&p, bytes ? bytes : 1);
    if (e == cudaErrorMemoryAllocation && !s) {
      // Long-lived allocations happen outside the proving path: give the
      // pool's cached memory back to the driver and try once more.
      cudaGetLastError();
      cudaMemPool_t pool;
      if (cudaDeviceSynchronize() == cudaSuccess && cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess &&
          cudaMemPoolTrimTo(pool, 0) == cudaSuccess)
        e = cudaMalloc(&p, bytes ? bytes : 1);
    }
    if (e != cudaSuccess) {
      cudaGetLastError();
      char buf[256];
      snprintf(buf, sizeof buf, "device_alloc of %llu bytes on device %d: %s", (unsigned long long)bytes, device,
               cudaGetErrorString(e));
      fail(e == cudaErrorMemoryAllocation ? GPUC2_ERR_OUT_OF_MEMORY : GPUC2_ERR_CUDA, buf);
    }
    *out = p;
  });
}

int api_device_free(int32_t device, gpuc2_stream s, void* p, char* msg, size_t msg_len) {
  return guard(msg, msg_len, [&] {
    if (!p) return;
    set_device(device);
    CUDA_CHECK(s ? cudaFreeAsync(p, as_stream(s)) : cudaFree(p));
  });
}

int api_host_alloc(uint64_t bytes, void** out, char* msg, size_t msg_len) {
  return guard(msg, msg_len, [&] {
    if (!out) fail(GPUC2_ERR_INVALID_ARGUMENT, "host_alloc: out is NULL");
    *out = nullptr;
    CUDA_CHECK(cudaHostAlloc(out, bytes ? bytes : 1, cudaHostAllocPortable));
  });
}

int api_host_free(void* p, char* msg, size_t msg_len) {
  return guard(msg, msg_len, [&] {
    if (p) CUDA_CHECK(cudaFreeHost(p));
  });
}

int api_mem_info(int32_t device, uint64_t* free_bytes, uint64_t* total_bytes, char* msg, size_t msg_len) {
  return guard(msg, msg_len, [&] {
    if (!free_bytes || !total_bytes) fail(GPUC2_ERR_INVALID_ARGUMENT, "mem_info: NULL output");
    set_device(device);
    size_t f = 0, t = 0;
    CUDA_CHECK(cudaMemGetInfo(&f, &t));
    *free_bytes = f;
    *total_bytes = t;
  });
}

int copy(int32_t device, gpuc2_stream s, void* dst, const void* src, uint64_t bytes, cudaMemcpyKind kind,
         const char* what, char* msg, size_t msg_len) {
  return guard(msg, msg_len, [&] {
    if (bytes == 0) return;
    if (!dst || !src) fail(GPUC2_ERR_INVALID_ARGUMENT, std::string(what) + ": NULL buffer");
    set_device(device);
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, s ? as_stream(s) : cudaStreamPerThread));
  });
}

int api_copy_to_device(int32_t device, gpuc2_stream s, void* dst, const void* src, uint64_t bytes, char* msg,
                       size_t msg_len) {
  return copy(device, s, dst, src, bytes, cudaMemcpyHostToDevice, "copy_to_device", msg, msg_len);
}

int api_copy_to_host(int32_t device, gpuc2_stream s, void* dst, const void* src, uint64_t bytes, char* msg,
                     size_t msg_len) {
  return copy(device, s, dst, src, bytes, cudaMemcpyDeviceToHost, "copy_to_host", msg, msg_len);
}

int api_memset_zero(int32_t device, gpuc2_stream s, void* dst, uint64_t bytes, char* msg, size_t msg_len) {
  return guard(msg, msg_len, [&] {
    if (bytes == 0) return;
    if (!dst) fail(GPUC2_ERR_INVALID_ARGUMENT, "memset_zero: NULL buffer");
    set_device(device);
    CUDA_CHECK(cudaMemsetAsync(dst, 0, bytes, s ? as_stream(s) : cudaStreamPerThread));
  });
}

int api_fr_from_mont(int32_t device, gpuc2_stream s, void* data, uint64_t n, char* msg, size_t msg_len) {
  return guard(msg, msg_len, [&] { fr_from_mont_device(device, s, data, n); });
}

int api_msm_g1_device(int32_t device, gpuc2_stream s, const void* bases, uint64_t n_bases, const void* scalars,
                      uint64_t n_scalars, const uint64_t* density, uint64_t density_words, uint32_t flags, void* out,
                      char* msg, size_t msg_len) {
  return guard(msg, msg_len, [&] {
    msm_call<Fp>(device, s, true, bases, n_bases, scalars, n_scalars, density, density_words, flags, out);
  });
}

int api_msm_g2_device(int32_t device, gpuc2_stream s, const void* bases, uint64_t n_bases, const void* scalars,
                      uint64_t n_scalars, const uint64_t* density, uint64_t density_words, uint32_t flags, void* out,
                      char* msg, size_t msg_len) {
  return guard(msg, msg_len, [&] {
    msm_call<Fp2>(device, s, true, bases, n_bases, scalars, n_scalars, density, density_words, flags, out);
  });
}

int api_h_device(int32_t device, gpuc2_stream s, void* a, void* b, void* c, uint32_t log_m, char* msg,
                 size_t msg_len) {
  return guard(msg, msg_len, [&] { h_resident(device, s, a, b, c, log_m); });
}

int api_pool_info(int32_t device, uint64_t* used, uint64_t* held, char* msg, size_t msg_len) {
  return guard(msg, msg_len, [&] {
    if (!used || !held) fail(GPUC2_ERR_INVALID_ARGUMENT, "pool_info: NULL output");
    set_device(device);
    cudaMemPool_t pool;
    CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
    unsigned long long u = 0, h = 0;  // the attributes are 64-bit
    CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &u));
    CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &h));
    *used = u;
    *held = h;
  });
}

int api_fixed_base_g1(int32_t device, const void* base, const void* scalars, uint64_t n, void* out, char* msg,
                      size_t msg_len) {
  return guard(msg, msg_len, [&] { fixed_base_host<Fp>(device, base, scalars, n, out); });
}

int api_fixed_base_g2(int32_t device, const void* base, const void* scalars, uint64_t n, void* out, char* msg,
                      size_t msg_len) {
  return guard(msg, msg_len, [&] { fixed_base_host<Fp2>(device, base, scalars, n, out); });
}

int api_msm_scratch_bytes(int32_t device, int32_t group, uint64_t n_bases, uint64_t n_scalars, uint32_t flags,
                          uint64_t* bytes, char* msg, size_t msg_len) {
  return guard(msg, msg_len, [&] {
    if (!bytes) fail(GPUC2_ERR_INVALID_ARGUMENT, "msm_scratch_bytes: bytes is NULL");
    *bytes = by_group(group, "msm_scratch_bytes", [&](auto g) {
      return msm_scratch<typename decltype(g)::Field>(device, n_bases, n_scalars, flags);
    });
  });
}

int api_pool_peak(int32_t device, uint64_t* peak, char* msg, size_t msg_len) {
  return guard(msg, msg_len, [&] {
    if (!peak) fail(GPUC2_ERR_INVALID_ARGUMENT, "pool_peak: NULL output");
    set_device(device);
    cudaMemPool_t pool;
    CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
    unsigned long long h = 0, zero = 0;  // the attributes are 64-bit
    CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &h));
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero));
    *peak = h;
  });
}

int api_msm_g1_stream(int32_t device, gpuc2_stream s, gpuc2_stream copy, const void* host_bases, uint64_t n_bases,
                      const void* scalars, uint64_t n_scalars, const uint64_t* density, uint64_t density_words,
                      uint32_t flags, uint64_t chunk_points, void* out, char* msg, size_t msg_len) {
  return guard(msg, msg_len, [&] {
    msm_stream<Fp>(device, s, copy, host_bases, n_bases, scalars, n_scalars, density, density_words, flags,
                   chunk_points, out);
  });
}

int api_msm_g2_stream(int32_t device, gpuc2_stream s, gpuc2_stream copy, const void* host_bases, uint64_t n_bases,
                      const void* scalars, uint64_t n_scalars, const uint64_t* density, uint64_t density_words,
                      uint32_t flags, uint64_t chunk_points, void* out, char* msg, size_t msg_len) {
  return guard(msg, msg_len, [&] {
    msm_stream<Fp2>(device, s, copy, host_bases, n_bases, scalars, n_scalars, density, density_words, flags,
                    chunk_points, out);
  });
}

int api_msm_stream_scratch_bytes(int32_t device, int32_t group, uint64_t n_bases, uint64_t n_scalars, uint32_t flags,
                                 uint64_t chunk_points, uint64_t* bytes, char* msg, size_t msg_len) {
  return guard(msg, msg_len, [&] {
    if (!bytes) fail(GPUC2_ERR_INVALID_ARGUMENT, "msm_stream_scratch_bytes: bytes is NULL");
    *bytes = by_group(group, "msm_stream_scratch_bytes", [&](auto g) {
      return msm_stream_scratch<typename decltype(g)::Field>(device, n_bases, n_scalars, flags, chunk_points);
    });
  });
}

int api_h_step(int32_t device, gpuc2_stream s, void* acc, void* x, uint32_t log_m, int32_t step, char* msg,
               size_t msg_len) {
  return guard(msg, msg_len, [&] { h_step(device, s, acc, x, log_m, step); });
}

int api_h_scratch_bytes(uint32_t log_m, uint64_t* bytes, char* msg, size_t msg_len) {
  return guard(msg, msg_len, [&] {
    if (!bytes) fail(GPUC2_ERR_INVALID_ARGUMENT, "h_scratch_bytes: bytes is NULL");
    *bytes = h_scratch(log_m);
  });
}

int api_spmv(int32_t device, gpuc2_stream s, const uint32_t* row_start, const uint32_t* cols, const uint16_t* ids,
             uint64_t rows, uint64_t nnz, const void* coeffs, uint32_t n_coeffs, const void* inputs, uint64_t n_inputs,
             const void* aux, uint64_t n_aux, void* out, char* msg, size_t msg_len) {
  return guard(msg, msg_len, [&] {
    spmv_device(device, s, row_start, cols, ids, rows, nnz, coeffs, n_coeffs, inputs, n_inputs, aux, n_aux, out);
  });
}

const gpuc2_api_t table = {
    GPUC2_ABI_VERSION,
    (uint32_t)sizeof(gpuc2_api_t),
    api_version,
    api_device_count,
    api_device_info,
    api_msm_g1,
    api_msm_g2,
    api_ntt,
    api_h,
    api_bench,
    api_stream_create,
    api_stream_destroy,
    api_stream_sync,
    api_device_alloc,
    api_device_free,
    api_host_alloc,
    api_host_free,
    api_mem_info,
    api_copy_to_device,
    api_copy_to_host,
    api_memset_zero,
    api_fr_from_mont,
    api_msm_g1_device,
    api_msm_g2_device,
    api_h_device,
    api_pool_info,
    api_fixed_base_g1,
    api_fixed_base_g2,
    api_msm_scratch_bytes,
    api_pool_peak,
    api_msm_g1_stream,
    api_msm_g2_stream,
    api_msm_stream_scratch_bytes,
    api_h_step,
    api_h_scratch_bytes,
    api_stream_create_priority,
    api_spmv,
};

}  // namespace

namespace gpuc2 {
// Keep freed pool memory instead of returning it to the driver at each
// synchronization: temporaries are then reused without cudaMalloc.
void configure_pool(int device) {
  static std::once_flag once[64];
  if (device < 0 || device >= 64) return;
  std::call_once(once[device], [device] {
    cudaMemPool_t pool;
    if (cudaDeviceGetDefaultMemPool(&pool, device) != cudaSuccess) {
      cudaGetLastError();
      return;
    }
    uint64_t threshold = UINT64_MAX;
    if (cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold) != cudaSuccess) cudaGetLastError();
  });
}
}  // namespace gpuc2

extern "C" __attribute__((visibility("default"))) const gpuc2_api_t* gpuc2_api(void) { return &table; }

// The C ABI passes gnark-crypto's in-memory layouts straight through.
static_assert(sizeof(gpuc2::Fp) == 48, "Fp layout");
static_assert(sizeof(gpuc2::Fr) == 32, "Fr layout");
static_assert(sizeof(gpuc2::Fp2) == 96, "Fp2 layout");
