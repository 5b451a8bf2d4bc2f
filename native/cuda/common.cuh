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

// The stream that kernels, copies and temporaries of the current C call go
// to: the caller's stream for the stream entries, the per-thread default
// stream for the synchronous ones. Thread-local, set for one call by
// StreamScope; no call touches the legacy default stream or synchronizes the
// whole device, so calls on different streams overlap.
inline cudaStream_t& cur_stream_ref() {
  static thread_local cudaStream_t s = cudaStreamPerThread;
  return s;
}
inline cudaStream_t cur_stream() { return cur_stream_ref(); }
struct StreamScope {
  cudaStream_t old;
  explicit StreamScope(cudaStream_t s) : old(cur_stream_ref()) { cur_stream_ref() = s ? s : cudaStreamPerThread; }
  ~StreamScope() { cur_stream_ref() = old; }
  StreamScope(const StreamScope&) = delete;
  StreamScope& operator=(const StreamScope&) = delete;
};
inline void sync_stream() { CUDA_CHECK(cudaStreamSynchronize(cur_stream())); }

// device_bytes is what DeviceBuffer<T>::alloc(count) takes from the pool
// (an empty buffer still holds one element); memory models use it too.
template <class T>
inline uint64_t device_bytes(uint64_t count) {
  return (count ? count : 1) * sizeof(T);
}

// DeviceBuffer owns device memory from the device's stream-ordered pool,
// allocated and freed on the current stream (freed on scope exit, also on
// error paths). The pool keeps freed memory for reuse (see set_device), so
// temporaries cost no cudaMalloc/cudaFree and no device-wide synchronization.
template <class T>
struct DeviceBuffer {
  T* p = nullptr;
  size_t n = 0;
  cudaStream_t s = nullptr;
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count) { alloc(count); }
  void alloc(size_t count) {
    release();
    if (count == 0) count = 1;
    void* q = nullptr;
    cudaStream_t st = cur_stream();
    cudaError_t e = cudaMallocAsync(&q, device_bytes<T>(count), st);
    if (e != cudaSuccess) {
      cudaGetLastError();
      char buf[256];
      snprintf(buf, sizeof buf, "device allocation of %zu bytes: %s", count * sizeof(T), cudaGetErrorString(e));
      fail(e == cudaErrorMemoryAllocation ? GPUC2_ERR_OUT_OF_MEMORY : GPUC2_ERR_CUDA, buf);
    }
    p = (T*)q;
    n = count;
    s = st;
  }
  void release() {
    if (p) cudaFreeAsync(p, s);
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
  void record() { CUDA_CHECK(cudaEventRecord(e, cur_stream())); }
  ~Event() {
    if (e) cudaEventDestroy(e);
  }
};

void configure_pool(int device);  // api.cu: once per device, keep freed pool memory

inline void set_device(int32_t device) {
  int n = 0;
  CUDA_CHECK(cudaGetDeviceCount(&n));
  if (device < 0 || device >= n) {
    char buf[128];
    snprintf(buf, sizeof buf, "device %d out of range (%d devices)", device, n);
    fail(GPUC2_ERR_INVALID_ARGUMENT, buf);
  }
  CUDA_CHECK(cudaSetDevice(device));
  configure_pool(device);
}

inline unsigned blocks_for(uint64_t n, unsigned threads) { return (unsigned)((n + threads - 1) / threads); }

}  // namespace gpuc2
