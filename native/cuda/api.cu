// The C ABI table (include/gpuc2.h). Every entry catches everything and turns
// it into a status code plus message.
#include <cstring>
#include <new>
#include <exception>
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

const char* api_version() { return "gpuc2cuda 0.1 (abi 1)"; }

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
    msm_host<Fp>(device, bases, n_bases, scalars, n_scalars, density, density_words, flags, out);
  });
}

int api_msm_g2(int32_t device, const void* bases, uint64_t n_bases, const void* scalars, uint64_t n_scalars,
               const uint64_t* density, uint64_t density_words, uint32_t flags, void* out, char* msg,
               size_t msg_len) {
  return guard(msg, msg_len, [&] {
    msm_host<Fp2>(device, bases, n_bases, scalars, n_scalars, density, density_words, flags, out);
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
              uint32_t log_m, uint32_t iters, float* ms, char* msg, size_t msg_len) {
  return guard(msg, msg_len, [&] {
    if (!ms || !in0 || iters == 0) fail(GPUC2_ERR_INVALID_ARGUMENT, "bench: bad arguments");
    switch (op) {
      case 0:
        msm_bench<Fp>(device, in0, in1, n, iters, ms);
        break;
      case 1:
        msm_bench<Fp2>(device, in0, in1, n, iters, ms);
        break;
      case 2:
      case 3:
        if (op == 3 && (!in1 || !in2)) fail(GPUC2_ERR_INVALID_ARGUMENT, "bench: bad arguments");
        ntt_bench(device, op, in0, in1, in2, log_m, iters, ms);
        break;
      default:
        fail(GPUC2_ERR_NOT_SUPPORTED, "bench: unknown op");
    }
  });
}

const gpuc2_api_v1_t table = {
    GPUC2_ABI_VERSION, (uint32_t)sizeof(gpuc2_api_v1_t), api_version, api_device_count, api_device_info,
    api_msm_g1,        api_msm_g2,                       api_ntt,     api_h,            api_bench,
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const gpuc2_api_v1_t* gpuc2_api_v1(void) { return &table; }

// The C ABI passes gnark-crypto's in-memory layouts straight through.
static_assert(sizeof(gpuc2::Fp) == 48, "Fp layout");
static_assert(sizeof(gpuc2::Fr) == 32, "Fr layout");
static_assert(sizeof(gpuc2::Fp2) == 96, "Fp2 layout");
