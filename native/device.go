//go:build cgo

package native

/*
#include "gpuc2.h"

static int go_gpuc2_stream_create(const gpuc2_api_t* a, int32_t d, gpuc2_stream* s, char* msg, size_t len) {
	return a->stream_create(d, s, msg, len);
}
static int go_gpuc2_stream_destroy(const gpuc2_api_t* a, int32_t d, gpuc2_stream s, char* msg, size_t len) {
	return a->stream_destroy(d, s, msg, len);
}
static int go_gpuc2_stream_sync(const gpuc2_api_t* a, int32_t d, gpuc2_stream s, char* msg, size_t len) {
	return a->stream_sync(d, s, msg, len);
}
static int go_gpuc2_device_alloc(const gpuc2_api_t* a, int32_t d, gpuc2_stream s, uint64_t n, void** out, char* msg, size_t len) {
	return a->device_alloc(d, s, n, out, msg, len);
}
static int go_gpuc2_device_free(const gpuc2_api_t* a, int32_t d, gpuc2_stream s, void* p, char* msg, size_t len) {
	return a->device_free(d, s, p, msg, len);
}
static int go_gpuc2_host_alloc(const gpuc2_api_t* a, uint64_t n, void** out, char* msg, size_t len) {
	return a->host_alloc(n, out, msg, len);
}
static int go_gpuc2_host_free(const gpuc2_api_t* a, void* p, char* msg, size_t len) {
	return a->host_free(p, msg, len);
}
static int go_gpuc2_mem_info(const gpuc2_api_t* a, int32_t d, uint64_t* f, uint64_t* t, char* msg, size_t len) {
	return a->mem_info(d, f, t, msg, len);
}
static int go_gpuc2_copy(const gpuc2_api_t* a, int to_host, int32_t d, gpuc2_stream s, void* dst, const void* src,
                      uint64_t n, char* msg, size_t len) {
	if (to_host) return a->copy_to_host(d, s, dst, src, n, msg, len);
	return a->copy_to_device(d, s, dst, src, n, msg, len);
}
static int go_gpuc2_memset_zero(const gpuc2_api_t* a, int32_t d, gpuc2_stream s, void* dst, uint64_t n, char* msg, size_t len) {
	return a->memset_zero(d, s, dst, n, msg, len);
}
static int go_gpuc2_fr_from_mont(const gpuc2_api_t* a, int32_t d, gpuc2_stream s, void* p, uint64_t n, char* msg, size_t len) {
	return a->fr_from_mont(d, s, p, n, msg, len);
}
static int go_gpuc2_msm_device(const gpuc2_api_t* a, int g2, int32_t d, gpuc2_stream s, const void* bases, uint64_t nb,
                            const void* scalars, uint64_t ns, const uint64_t* density, uint64_t dw,
                            uint32_t flags, void* out, char* msg, size_t len) {
	if (g2) return a->msm_g2_device(d, s, bases, nb, scalars, ns, density, dw, flags, out, msg, len);
	return a->msm_g1_device(d, s, bases, nb, scalars, ns, density, dw, flags, out, msg, len);
}
static int go_gpuc2_h_device(const gpuc2_api_t* a, int32_t d, gpuc2_stream s, void* x, void* y, void* z,
                          uint32_t log_m, char* msg, size_t len) {
	return a->h_device(d, s, x, y, z, log_m, msg, len);
}
static int go_gpuc2_pool_info(const gpuc2_api_t* a, int32_t d, uint64_t* u, uint64_t* h, char* msg, size_t len) {
	return a->pool_info(d, u, h, msg, len);
}
static int go_gpuc2_fixed_base(const gpuc2_api_t* a, int g2, int32_t d, const void* base, const void* sc, uint64_t n,
                            void* out, char* msg, size_t len) {
	if (g2) return a->fixed_base_g2(d, base, sc, n, out, msg, len);
	return a->fixed_base_g1(d, base, sc, n, out, msg, len);
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// streamHandle is the C stream type that Stream holds.
type streamHandle = C.gpuc2_stream

// NewStream creates a stream on device.
func NewStream(device int) (*Stream, error) {
	l, err := get()
	if err != nil {
		return nil, err
	}
	if err := checkDevice(l, device); err != nil {
		return nil, err
	}
	st := &Stream{device: device}
	msg := make([]byte, msgLen)
	if err := status("stream_create", C.go_gpuc2_stream_create(l.api, C.int32_t(device), &st.s, cmsg(msg), msgLen), msg); err != nil {
		return nil, err
	}
	return st, nil
}

// Sync waits until everything enqueued on s has finished.
func (s *Stream) Sync() error {
	msg := make([]byte, msgLen)
	return status("stream_sync", C.go_gpuc2_stream_sync(lib.api, C.int32_t(s.device), s.s, cmsg(msg), msgLen), msg)
}

// Close waits for the stream's work and destroys it.
func (s *Stream) Close() error {
	if s == nil || s.s == nil {
		return nil
	}
	msg := make([]byte, msgLen)
	err := status("stream_destroy", C.go_gpuc2_stream_destroy(lib.api, C.int32_t(s.device), s.s, cmsg(msg), msgLen), msg)
	s.s = nil
	return err
}

// Alloc allocates bytes of device memory. stream == nil gives long-lived
// memory (cudaMalloc, for data such as the SRS); otherwise the memory comes
// from the device's stream-ordered pool in stream order.
func Alloc(device int, stream *Stream, bytes int64) (*Buffer, error) {
	l, err := get()
	if err != nil {
		return nil, err
	}
	if err := checkDevice(l, device); err != nil {
		return nil, err
	}
	if bytes < 0 {
		return nil, fmt.Errorf("%w: alloc of %d bytes", ErrInvalidArgument, bytes)
	}
	if stream != nil && stream.device != device {
		return nil, fmt.Errorf("%w: alloc on device %d with a stream of device %d", ErrInvalidArgument, device, stream.device)
	}
	b := &Buffer{device: device, stream: stream, size: bytes}
	msg := make([]byte, msgLen)
	if err := status("device_alloc", C.go_gpuc2_device_alloc(l.api, C.int32_t(device), streamOf(stream), C.uint64_t(bytes), &b.ptr, cmsg(msg), msgLen), msg); err != nil {
		return nil, err
	}
	return b, nil
}

func streamOf(s *Stream) C.gpuc2_stream {
	if s == nil {
		return nil
	}
	return s.s
}

// Free releases the buffer (in stream order for pool memory). Later calls do nothing.
func (b *Buffer) Free() error {
	if b == nil {
		return nil
	}
	var err error
	b.once.Do(func() {
		msg := make([]byte, msgLen)
		err = status("device_free", C.go_gpuc2_device_free(lib.api, C.int32_t(b.device), streamOf(b.stream), b.ptr, cmsg(msg), msgLen), msg)
		b.ptr = nil
	})
	return err
}

// at returns the device address off bytes into b after checking that n
// bytes fit.
func (b *Buffer) at(op string, off, n int64) (unsafe.Pointer, error) {
	if b == nil || b.ptr == nil {
		return nil, fmt.Errorf("%w: %s: buffer is nil or freed", ErrInvalidArgument, op)
	}
	if off < 0 || n < 0 || off+n > b.size {
		return nil, fmt.Errorf("%w: %s: range [%d, %d) outside a %d-byte buffer", ErrInvalidArgument, op, off, off+n, b.size)
	}
	return unsafe.Add(b.ptr, off), nil
}

// AllocPinned allocates bytes of pinned host memory.
func AllocPinned(bytes int64) (*Pinned, error) {
	l, err := get()
	if err != nil {
		return nil, err
	}
	if bytes <= 0 {
		return nil, fmt.Errorf("%w: pinned alloc of %d bytes", ErrInvalidArgument, bytes)
	}
	p := &Pinned{size: bytes}
	msg := make([]byte, msgLen)
	if err := status("host_alloc", C.go_gpuc2_host_alloc(l.api, C.uint64_t(bytes), &p.ptr, cmsg(msg), msgLen), msg); err != nil {
		return nil, err
	}
	return p, nil
}

// Free releases the memory; the caller makes sure no stream still reads it.
func (p *Pinned) Free() error {
	if p == nil {
		return nil
	}
	var err error
	p.once.Do(func() {
		msg := make([]byte, msgLen)
		err = status("host_free", C.go_gpuc2_host_free(lib.api, p.ptr, cmsg(msg), msgLen), msg)
		p.ptr = nil
	})
	return err
}

// MemInfo returns the device's free and total memory. It queries the
// driver: call it when sizing budgets, not on the proving path.
func MemInfo(device int) (free, total uint64, err error) {
	l, err := get()
	if err != nil {
		return 0, 0, err
	}
	if err := checkDevice(l, device); err != nil {
		return 0, 0, err
	}
	var f, t C.uint64_t
	msg := make([]byte, msgLen)
	err = status("mem_info", C.go_gpuc2_mem_info(l.api, C.int32_t(device), &f, &t, cmsg(msg), msgLen), msg)
	return uint64(f), uint64(t), err
}

// PoolInfo returns the bytes allocated from the device's stream-ordered pool
// now and the bytes the pool holds (allocated plus cached for reuse).
func PoolInfo(device int) (used, held uint64, err error) {
	l, err := get()
	if err != nil {
		return 0, 0, err
	}
	if err := checkDevice(l, device); err != nil {
		return 0, 0, err
	}
	var u, h C.uint64_t
	msg := make([]byte, msgLen)
	err = status("pool_info", C.go_gpuc2_pool_info(l.api, C.int32_t(device), &u, &h, cmsg(msg), msgLen), msg)
	return uint64(u), uint64(h), err
}

// CopyToDevice enqueues a copy of n bytes from host memory src to dst at off.
// With pinned src the call returns at once and src must stay valid until the
// stream reaches the copy; with pageable src the call waits for the copy.
func (s *Stream) CopyToDevice(dst *Buffer, off int64, src unsafe.Pointer, n int64) error {
	d, err := dst.at("copy_to_device", off, n)
	if err != nil || n == 0 {
		return err
	}
	msg := make([]byte, msgLen)
	return status("copy_to_device", C.go_gpuc2_copy(lib.api, 0, C.int32_t(s.device), s.s, d, src, C.uint64_t(n), cmsg(msg), msgLen), msg)
}

// CopyToHost enqueues a copy of n bytes from src at off to host memory dst.
func (s *Stream) CopyToHost(dst unsafe.Pointer, src *Buffer, off int64, n int64) error {
	p, err := src.at("copy_to_host", off, n)
	if err != nil || n == 0 {
		return err
	}
	msg := make([]byte, msgLen)
	return status("copy_to_host", C.go_gpuc2_copy(lib.api, 1, C.int32_t(s.device), s.s, dst, p, C.uint64_t(n), cmsg(msg), msgLen), msg)
}

// Zero enqueues zeroing n bytes of dst at off.
func (s *Stream) Zero(dst *Buffer, off, n int64) error {
	d, err := dst.at("memset_zero", off, n)
	if err != nil || n == 0 {
		return err
	}
	msg := make([]byte, msgLen)
	return status("memset_zero", C.go_gpuc2_memset_zero(lib.api, C.int32_t(s.device), s.s, d, C.uint64_t(n), cmsg(msg), msgLen), msg)
}

// FrFromMont enqueues the conversion of n Fr elements at off from Montgomery
// to canonical form in place.
func (s *Stream) FrFromMont(buf *Buffer, off int64, n int) error {
	d, err := buf.at("fr_from_mont", off, int64(n)*frBytes)
	if err != nil || n == 0 {
		return err
	}
	msg := make([]byte, msgLen)
	return status("fr_from_mont", C.go_gpuc2_fr_from_mont(lib.api, C.int32_t(s.device), s.s, d, C.uint64_t(n), cmsg(msg), msgLen), msg)
}

// HDevice enqueues bellperson's H over a, b, c (2^logM Fr elements each at
// offset 0, Montgomery form, zero-padded): h lands in a; b and c are
// overwritten.
func (s *Stream) HDevice(a, b, c *Buffer, logM uint32) error {
	if logM > 28 {
		return fmt.Errorf("%w: h: log_m %d > 28", ErrNotSupported, logM)
	}
	n := (int64(1) << logM) * frBytes
	var ptrs [3]unsafe.Pointer
	for i, buf := range []*Buffer{a, b, c} {
		p, err := buf.at("h_device", 0, n)
		if err != nil {
			return err
		}
		ptrs[i] = p
	}
	msg := make([]byte, msgLen)
	return status("h_device", C.go_gpuc2_h_device(lib.api, C.int32_t(s.device), s.s, ptrs[0], ptrs[1], ptrs[2], C.uint32_t(logM), cmsg(msg), msgLen), msg)
}

// MSMG1 runs m over G1 in stream order and waits for its result.
func (s *Stream) MSMG1(m DeviceMSM) (bls12381.G1Jac, error) {
	var res bls12381.G1Jac
	err := s.msmDevice("msm_g1_device", 0, m, int64(unsafe.Sizeof(bls12381.G1Affine{})), unsafe.Pointer(&res))
	return res, err
}

// MSMG2 runs m over G2 in stream order and waits for its result.
func (s *Stream) MSMG2(m DeviceMSM) (bls12381.G2Jac, error) {
	var res bls12381.G2Jac
	err := s.msmDevice("msm_g2_device", 1, m, int64(unsafe.Sizeof(bls12381.G2Affine{})), unsafe.Pointer(&res))
	return res, err
}

func (s *Stream) msmDevice(op string, g2 int, m DeviceMSM, pointBytes int64, out unsafe.Pointer) error {
	if m.NBases < 0 || m.NScalars < 0 {
		return fmt.Errorf("%w: %s: negative sizes", ErrInvalidArgument, op)
	}
	if m.NBases == 0 {
		return nil // the zero value of out is the point at infinity
	}
	bases, err := m.Bases.at(op, m.BasesOff, int64(m.NBases)*pointBytes)
	if err != nil {
		return err
	}
	scalars, err := m.Scalars.at(op, m.ScalarsOff, int64(m.NScalars)*frBytes)
	if err != nil {
		return err
	}
	var dp *C.uint64_t
	if m.Density != nil {
		if len(m.Density) != (m.NScalars+63)/64 {
			return fmt.Errorf("%w: %s: %d density words for %d scalars", ErrInvalidArgument, op, len(m.Density), m.NScalars)
		}
		if len(m.Density) > 0 {
			dp = (*C.uint64_t)(unsafe.Pointer(&m.Density[0]))
		}
	}
	var flags C.uint32_t
	if m.Canonical {
		flags = C.GPUC2_MSM_SCALARS_CANONICAL
	}
	msg := make([]byte, msgLen)
	rc := C.go_gpuc2_msm_device(lib.api, C.int(g2), C.int32_t(s.device), s.s, bases, C.uint64_t(m.NBases),
		scalars, C.uint64_t(m.NScalars), dp, C.uint64_t(len(m.Density)), flags, out, cmsg(msg), msgLen)
	return status(op, rc, msg)
}

// FixedBaseG1 sets out[i] = scalars[i]·base on the GPU (a trusted setup's
// query points). len(out) must equal len(scalars).
func FixedBaseG1(device int, base *bls12381.G1Affine, scalars []fr.Element, out []bls12381.G1Affine) error {
	if len(out) != len(scalars) {
		return fmt.Errorf("%w: fixed_base_g1: %d outputs for %d scalars", ErrInvalidArgument, len(out), len(scalars))
	}
	return fixedBase("fixed_base_g1", 0, device, unsafe.Pointer(base), scalars, unsafe.Pointer(unsafe.SliceData(out)))
}

// FixedBaseG2 is FixedBaseG1 over G2.
func FixedBaseG2(device int, base *bls12381.G2Affine, scalars []fr.Element, out []bls12381.G2Affine) error {
	if len(out) != len(scalars) {
		return fmt.Errorf("%w: fixed_base_g2: %d outputs for %d scalars", ErrInvalidArgument, len(out), len(scalars))
	}
	return fixedBase("fixed_base_g2", 1, device, unsafe.Pointer(base), scalars, unsafe.Pointer(unsafe.SliceData(out)))
}

func fixedBase(op string, g2 int, device int, base unsafe.Pointer, scalars []fr.Element, out unsafe.Pointer) error {
	l, err := get()
	if err != nil {
		return err
	}
	if err := checkDevice(l, device); err != nil {
		return err
	}
	if len(scalars) == 0 {
		return nil
	}
	msg := make([]byte, msgLen)
	rc := C.go_gpuc2_fixed_base(l.api, C.int(g2), C.int32_t(device), base, unsafe.Pointer(unsafe.SliceData(scalars)),
		C.uint64_t(len(scalars)), out, cmsg(msg), msgLen)
	return status(op, rc, msg)
}
