// Internal helpers: status errors (thrown inside the library, caught at the
// C ABI), CUDA error checks, and an RAII device buffer.
#pragma once
#include <cuda_runtime.h>
#include <stdint.h>
#include <cstdio>
#include <string>
#include "../include/gpuc2.h"

namespace gpuc2 {

struct Error {
  int code;
  std::string msg;
};

[[noreturn]] inline void fail(int code, const std::string& msg) { throw Error{code, msg}; }

inline void cuda_check(cudaError_t e, const char* what, const char* file, int line) {
  if (e == cudaSuccess) return;
  char buf[512];
  snprintf(buf, sizeof buf, "%s: %s (%s:%d)", what, cudaGetErrorString(e), file, line);
  cudaGetLastError();  // clear non-sticky errors
  fail(e == cudaErrorMemoryAllocation ? GPUC2_ERR_OUT_OF_MEMORY : GPUC2_ERR_CUDA, buf);
}

#define CUDA_CHECK(x) ::gpuc2::cuda_check((x), #x, __FILE__, __LINE__)
#define KERNEL_CHECK() ::gpuc2::cuda_check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

// DeviceBuffer owns device memory; freed on scope exit (also on error paths).
template <class T>
struct DeviceBuffer {
  T* p = nullptr;
  size_t n = 0;
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count) { alloc(count); }
  void alloc(size_t count) {
    release();
    if (count == 0) count = 1;
    void* q = nullptr;
    cudaError_t e = cudaMalloc(&q, count * sizeof(T));
    if (e != cudaSuccess) {
      cudaGetLastError();
      char buf[256];
      snprintf(buf, sizeof buf, "cudaMalloc of %zu bytes: %s", count * sizeof(T), cudaGetErrorString(e));
      fail(e == cudaErrorMemoryAllocation ? GPUC2_ERR_OUT_OF_MEMORY : GPUC2_ERR_CUDA, buf);
    }
    p = (T*)q;
    n = count;
  }
  void release() {
    if (p) cudaFree(p);
    p = nullptr;
    n = 0;
  }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  T* get() const { return p; }
};

struct Event {
  cudaEvent_t e = nullptr;
  Event() { CUDA_CHECK(cudaEventCreate(&e)); }
  ~Event() {
    if (e) cudaEventDestroy(e);
  }
};

inline void set_device(int32_t device) {
  int n = 0;
  CUDA_CHECK(cudaGetDeviceCount(&n));
  if (device < 0 || device >= n) {
    char buf[128];
    snprintf(buf, sizeof buf, "device %d out of range (%d devices)", device, n);
    fail(GPUC2_ERR_INVALID_ARGUMENT, buf);
  }
  CUDA_CHECK(cudaSetDevice(device));
}

inline unsigned blocks_for(uint64_t n, unsigned threads) { return (unsigned)((n + threads - 1) / threads); }

}  // namespace gpuc2
