//go:build cgo

package native

/*
#include "gpuc2.h"

static int go_gpuc2_stream_create_priority(const gpuc2_api_t* a, int32_t d, int32_t high, gpuc2_stream* s, char* msg, size_t len) {
	return a->stream_create_priority(d, high, s, msg, len);
}
static int go_gpuc2_spmv(const gpuc2_api_t* a, int32_t d, gpuc2_stream s, const uint32_t* rs, const uint32_t* cols, const uint16_t* ids, uint64_t rows, uint64_t nnz, const void* coeffs, uint32_t nc, const void* in, uint64_t nin, const void* aux, uint64_t naux, void* out, char* msg, size_t len) {
	return a->spmv(d, s, rs, cols, ids, rows, nnz, coeffs, nc, in, nin, aux, naux, out, msg, len);
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
static int go_gpuc2_msm_stream(const gpuc2_api_t* a, int g2, int32_t d, gpuc2_stream s, gpuc2_stream cs,
                            const void* bases, uint64_t nb, const void* scalars, uint64_t ns,
                            const uint64_t* density, uint64_t dw, uint32_t flags, uint64_t chunk, void* out,
                            char* msg, size_t len) {
	if (g2) return a->msm_g2_stream(d, s, cs, bases, nb, scalars, ns, density, dw, flags, chunk, out, msg, len);
	return a->msm_g1_stream(d, s, cs, bases, nb, scalars, ns, density, dw, flags, chunk, out, msg, len);
}
static int go_gpuc2_h_step(const gpuc2_api_t* a, int32_t d, gpuc2_stream s, void* acc, void* x, uint32_t log_m,
                        int32_t step, char* msg, size_t len) {
	return a->h_step(d, s, acc, x, log_m, step, msg, len);
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
	"math"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// streamHandle is the C stream type that Stream holds.
type streamHandle = C.gpuc2_stream

// NewStream creates a stream on device.
func NewStream(device int) (*Stream, error) { return newStream(device, false) }

// NewHighPriorityStream creates a stream on device whose pending thread
// blocks the GPU starts before those of NewStream's streams as SMs free up
// (running blocks are not preempted): work made of many short, dependent
// kernels then advances beside another stream's long kernels instead of
// waiting behind each of them.
func NewHighPriorityStream(device int) (*Stream, error) { return newStream(device, true) }

func newStream(device int, high bool) (*Stream, error) {
	l, err := getDevice(device)
	if err != nil {
		return nil, err
	}
	st := &Stream{device: device}
	var h C.int32_t
	if high {
		h = 1
	}
	if err := call("stream_create", func(m *C.char, k C.size_t) C.int {
		return C.go_gpuc2_stream_create_priority(l.api, C.int32_t(device), h, &st.s, m, k)
	}); err != nil {
		return nil, err
	}
	return st, nil
}

// Sync waits until everything enqueued on s has finished.
func (s *Stream) Sync() error {
	return call("stream_sync", func(m *C.char, k C.size_t) C.int {
		return C.go_gpuc2_stream_sync(lib.api, C.int32_t(s.device), s.s, m, k)
	})
}

// Close waits for the stream's work and destroys it.
func (s *Stream) Close() error {
	if s == nil || s.s == nil {
		return nil
	}
	err := call("stream_destroy", func(m *C.char, k C.size_t) C.int {
		return C.go_gpuc2_stream_destroy(lib.api, C.int32_t(s.device), s.s, m, k)
	})
	s.s = nil
	return err
}

// Alloc allocates bytes of device memory. stream == nil gives long-lived
// memory (cudaMalloc, for data such as the SRS); otherwise the memory comes
// from the device's stream-ordered pool in stream order.
func Alloc(device int, stream *Stream, bytes int64) (*Buffer, error) {
	l, err := getDevice(device)
	if err != nil {
		return nil, err
	}
	if bytes < 0 {
		return nil, fmt.Errorf("%w: alloc of %d bytes", ErrInvalidArgument, bytes)
	}
	if stream != nil && stream.device != device {
		return nil, fmt.Errorf("%w: alloc on device %d with a stream of device %d", ErrInvalidArgument, device, stream.device)
	}
	b := &Buffer{device: device, stream: stream, size: bytes}
	if err := call("device_alloc", func(m *C.char, k C.size_t) C.int {
		return C.go_gpuc2_device_alloc(l.api, C.int32_t(device), streamOf(stream), C.uint64_t(bytes), &b.ptr, m, k)
	}); err != nil {
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
		err = call("device_free", func(m *C.char, k C.size_t) C.int {
			return C.go_gpuc2_device_free(lib.api, C.int32_t(b.device), streamOf(b.stream), b.ptr, m, k)
		})
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
	if err := call("host_alloc", func(m *C.char, k C.size_t) C.int {
		return C.go_gpuc2_host_alloc(l.api, C.uint64_t(bytes), &p.ptr, m, k)
	}); err != nil {
		return nil, err
	}
	pinnedHeld.Add(bytes)
	return p, nil
}

// Free releases the memory; the caller makes sure no stream still reads it.
func (p *Pinned) Free() error {
	if p == nil {
		return nil
	}
	var err error
	p.once.Do(func() {
		err = call("host_free", func(m *C.char, k C.size_t) C.int { return C.go_gpuc2_host_free(lib.api, p.ptr, m, k) })
		if err == nil {
			pinnedHeld.Add(-p.size)
		}
		p.ptr = nil
	})
	return err
}

// at returns the host address off bytes into p after checking that n bytes
// fit.
func (p *Pinned) at(op string, off, n int64) (unsafe.Pointer, error) {
	if p == nil || p.ptr == nil {
		return nil, fmt.Errorf("%w: %s: pinned memory is nil or freed", ErrInvalidArgument, op)
	}
	if off < 0 || n < 0 || off+n > p.size {
		return nil, fmt.Errorf("%w: %s: range [%d, %d) outside %d bytes of pinned memory", ErrInvalidArgument, op, off, off+n, p.size)
	}
	return unsafe.Add(p.ptr, off), nil
}

// MemInfo returns the device's free and total memory. It queries the
// driver: call it when sizing budgets, not on the proving path.
func MemInfo(device int) (free, total uint64, err error) {
	l, err := getDevice(device)
	if err != nil {
		return 0, 0, err
	}
	var f, t C.uint64_t
	err = call("mem_info", func(m *C.char, k C.size_t) C.int {
		return C.go_gpuc2_mem_info(l.api, C.int32_t(device), &f, &t, m, k)
	})
	return uint64(f), uint64(t), err
}

// PoolInfo returns the bytes allocated from the device's stream-ordered pool
// now and the bytes the pool holds (allocated plus cached for reuse).
func PoolInfo(device int) (used, held uint64, err error) {
	l, err := getDevice(device)
	if err != nil {
		return 0, 0, err
	}
	var u, h C.uint64_t
	err = call("pool_info", func(m *C.char, k C.size_t) C.int {
		return C.go_gpuc2_pool_info(l.api, C.int32_t(device), &u, &h, m, k)
	})
	return uint64(u), uint64(h), err
}

// CopyToDevice copies src (Go memory, or any host memory; AsBytes views
// typed slices) to dst at byte offset off, in stream order, and returns
// when the copy is done: src may be reused at once. It waits for the work
// enqueued before it on s (so does CUDA for pageable memory anyway); to
// overlap uploads with other work, stage through Pinned memory and
// CopyToDeviceAsync.
func (s *Stream) CopyToDevice(dst *Buffer, off int64, src []byte) error {
	n := int64(len(src))
	d, err := dst.at("copy_to_device", off, n)
	if err != nil || n == 0 {
		return err
	}
	if err := s.copy(0, d, unsafe.Pointer(unsafe.SliceData(src)), n); err != nil {
		return err
	}
	// Pinned memory behind src would make the copy asynchronous: wait.
	return s.Sync()
}

// CopyToDeviceAsync enqueues a copy of n bytes at srcOff in src to dst at
// off and returns at once: src must stay allocated and unchanged until the
// stream has passed the copy (Sync, or a later synchronous call on s).
func (s *Stream) CopyToDeviceAsync(dst *Buffer, off int64, src *Pinned, srcOff, n int64) error {
	d, err := dst.at("copy_to_device", off, n)
	if err != nil {
		return err
	}
	p, err := src.at("copy_to_device", srcOff, n)
	if err != nil || n == 0 {
		return err
	}
	return s.copy(0, d, p, n)
}

// CopyToHost copies len(dst) bytes from src at byte offset off into dst
// (AsBytes views typed slices), in stream order, and returns when they have
// arrived.
func (s *Stream) CopyToHost(dst []byte, src *Buffer, off int64) error {
	n := int64(len(dst))
	p, err := src.at("copy_to_host", off, n)
	if err != nil || n == 0 {
		return err
	}
	if err := s.copy(1, unsafe.Pointer(unsafe.SliceData(dst)), p, n); err != nil {
		return err
	}
	return s.Sync()
}

func (s *Stream) copy(toHost int, dst, src unsafe.Pointer, n int64) error {
	op := "copy_to_device"
	if toHost != 0 {
		op = "copy_to_host"
	}
	return call(op, func(m *C.char, k C.size_t) C.int {
		return C.go_gpuc2_copy(lib.api, C.int(toHost), C.int32_t(s.device), s.s, dst, src, C.uint64_t(n), m, k)
	})
}

// Zero enqueues zeroing n bytes of dst at off.
func (s *Stream) Zero(dst *Buffer, off, n int64) error {
	d, err := dst.at("memset_zero", off, n)
	if err != nil || n == 0 {
		return err
	}
	return call("memset_zero", func(m *C.char, k C.size_t) C.int {
		return C.go_gpuc2_memset_zero(lib.api, C.int32_t(s.device), s.s, d, C.uint64_t(n), m, k)
	})
}

// FrFromMont enqueues the conversion of n Fr elements at off from Montgomery
// to canonical form in place.
func (s *Stream) FrFromMont(buf *Buffer, off int64, n int) error {
	d, err := buf.at("fr_from_mont", off, int64(n)*frBytes)
	if err != nil || n == 0 {
		return err
	}
	return call("fr_from_mont", func(m *C.char, k C.size_t) C.int {
		return C.go_gpuc2_fr_from_mont(lib.api, C.int32_t(s.device), s.s, d, C.uint64_t(n), m, k)
	})
}

// SpMV enqueues out[r] = ⟨row r of m, w⟩ for each of m's rows, out
// holding m.Rows Fr (Montgomery form) from byte off on: m may be a slice
// of a larger matrix's rows (its row starts relative to its first term),
// whose values land at their place in a longer vector. Terms outside w or
// m's coefficients are skipped on the device; the caller validates m once.
func (s *Stream) SpMV(m CSR, w Witness, out *Buffer, off int64) error {
	if m.Rows < 0 || m.Terms < 0 || m.NCoeffs < 0 || m.NCoeffs > math.MaxUint32 || w.NInputs < 0 || w.NAux < 0 {
		return fmt.Errorf("%w: spmv: %d rows, %d terms, %d coefficients, %d+%d values", ErrInvalidArgument,
			m.Rows, m.Terms, m.NCoeffs, w.NInputs, w.NAux)
	}
	var ptrs [7]unsafe.Pointer
	for i, x := range []struct {
		b      *Buffer
		off, n int64
	}{
		{m.RowStart, 0, int64(m.Rows+1) * 4}, {m.Cols, 0, int64(m.Terms) * 4}, {m.IDs, 0, int64(m.Terms) * 2},
		{m.Coeffs, 0, int64(m.NCoeffs) * frBytes}, {w.Inputs, 0, int64(w.NInputs) * frBytes},
		{w.Aux, 0, int64(w.NAux) * frBytes}, {out, off, int64(m.Rows) * frBytes},
	} {
		p, err := x.b.at("spmv", x.off, x.n)
		if err != nil {
			return err
		}
		ptrs[i] = p
	}
	return call("spmv", func(msg *C.char, k C.size_t) C.int {
		return C.go_gpuc2_spmv(lib.api, C.int32_t(s.device), s.s, (*C.uint32_t)(ptrs[0]), (*C.uint32_t)(ptrs[1]),
			(*C.uint16_t)(ptrs[2]), C.uint64_t(m.Rows), C.uint64_t(m.Terms), ptrs[3], C.uint32_t(m.NCoeffs),
			ptrs[4], C.uint64_t(w.NInputs), ptrs[5], C.uint64_t(w.NAux), ptrs[6], msg, k)
	})
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
	return call("h_device", func(m *C.char, k C.size_t) C.int {
		return C.go_gpuc2_h_device(lib.api, C.int32_t(s.device), s.s, ptrs[0], ptrs[1], ptrs[2], C.uint32_t(logM), m, k)
	})
}

// HStep enqueues one step of bellperson's H with two device vectors of
// 2^logM Fr elements at offset 0 (Montgomery form, zero-padded): HStepA
// with acc = a, HStepB with x = b, HStepC with x = c leave in acc what
// HDevice leaves in a; x is overwritten (HStepA ignores it; nil is allowed
// there). Beside the vectors it allocates HScratchBytes(logM) from the pool.
func (s *Stream) HStep(acc, x *Buffer, logM uint32, step HStep) error {
	if logM > 28 {
		return fmt.Errorf("%w: h_step: log_m %d > 28", ErrNotSupported, logM)
	}
	n := (int64(1) << logM) * frBytes
	a, err := acc.at("h_step", 0, n)
	if err != nil {
		return err
	}
	var v unsafe.Pointer
	if step != HStepA {
		if v, err = x.at("h_step", 0, n); err != nil {
			return err
		}
	}
	return call("h_step", func(m *C.char, k C.size_t) C.int {
		return C.go_gpuc2_h_step(lib.api, C.int32_t(s.device), s.s, a, v, C.uint32_t(logM), C.int32_t(step), m, k)
	})
}

// MSMG1Streamed runs m over G1 in stream order and waits for its result:
// chunks of the bases are copied on copy (another stream of the device)
// while s's kernels work on the previous chunk. copy is idle again when it
// returns.
func (s *Stream) MSMG1Streamed(copy *Stream, m StreamedMSM, opts ...MSMOption) (bls12381.G1Jac, error) {
	var res bls12381.G1Jac
	err := s.msmStreamed("msm_g1_stream", 0, copy, m, int64(unsafe.Sizeof(bls12381.G1Affine{})), unsafe.Pointer(&res), opts)
	return res, err
}

// MSMG2Streamed is MSMG1Streamed over G2.
func (s *Stream) MSMG2Streamed(copy *Stream, m StreamedMSM, opts ...MSMOption) (bls12381.G2Jac, error) {
	var res bls12381.G2Jac
	err := s.msmStreamed("msm_g2_stream", 1, copy, m, int64(unsafe.Sizeof(bls12381.G2Affine{})), unsafe.Pointer(&res), opts)
	return res, err
}

func (s *Stream) msmStreamed(op string, g2 int, copy *Stream, m StreamedMSM, pointBytes int64, out unsafe.Pointer, opts []MSMOption) error {
	if copy == nil || copy == s || copy.device != s.device {
		return fmt.Errorf("%w: %s: the copy stream must be another stream of device %d", ErrInvalidArgument, op, s.device)
	}
	a, err := msmArgs(op, opts, m.Bases, m.BasesOff, m.NBases, pointBytes, m.Scalars, m.ScalarsOff, m.NScalars, m.Density)
	if err != nil || a == nil {
		return err
	}
	return call(op, func(msg *C.char, k C.size_t) C.int {
		return C.go_gpuc2_msm_stream(lib.api, C.int(g2), C.int32_t(s.device), s.s, copy.s, a.bases, C.uint64_t(m.NBases),
			a.scalars, C.uint64_t(m.NScalars), a.density, C.uint64_t(len(m.Density)), a.o.flags(m.Canonical),
			C.uint64_t(m.ChunkPoints), out, msg, k)
	})
}

// MSMG1 runs m over G1 in stream order and waits for its result.
func (s *Stream) MSMG1(m DeviceMSM, opts ...MSMOption) (bls12381.G1Jac, error) {
	var res bls12381.G1Jac
	err := s.msmDevice("msm_g1_device", 0, m, int64(unsafe.Sizeof(bls12381.G1Affine{})), unsafe.Pointer(&res), opts)
	return res, err
}

// MSMG2 runs m over G2 in stream order and waits for its result.
func (s *Stream) MSMG2(m DeviceMSM, opts ...MSMOption) (bls12381.G2Jac, error) {
	var res bls12381.G2Jac
	err := s.msmDevice("msm_g2_device", 1, m, int64(unsafe.Sizeof(bls12381.G2Affine{})), unsafe.Pointer(&res), opts)
	return res, err
}

func (s *Stream) msmDevice(op string, g2 int, m DeviceMSM, pointBytes int64, out unsafe.Pointer, opts []MSMOption) error {
	a, err := msmArgs(op, opts, m.Bases, m.BasesOff, m.NBases, pointBytes, m.Scalars, m.ScalarsOff, m.NScalars, m.Density)
	if err != nil || a == nil {
		return err
	}
	return call(op, func(msg *C.char, k C.size_t) C.int {
		return C.go_gpuc2_msm_device(lib.api, C.int(g2), C.int32_t(s.device), s.s, a.bases, C.uint64_t(m.NBases),
			a.scalars, C.uint64_t(m.NScalars), a.density, C.uint64_t(len(m.Density)), a.o.flags(m.Canonical), out, msg, k)
	})
}

// addressed is memory the library reads: device (Buffer) or pinned host
// memory (Pinned).
type addressed interface {
	at(op string, off, n int64) (unsafe.Pointer, error)
}

// msmCall is what a device or streamed MSM passes to the library.
type msmCall struct {
	o              msmOptions
	bases, scalars unsafe.Pointer
	density        *C.uint64_t
}

// msmArgs checks an MSM's options, its bases (nBases points of pointBytes
// at basesOff), nScalars scalars at scalarsOff and bitmap, and returns what
// the library takes: nil (and no error) when there are no bases, whose MSM
// is the point at infinity, the zero value of the caller's out.
func msmArgs(op string, opts []MSMOption, bases addressed, basesOff int64, nBases int, pointBytes int64,
	scalars *Buffer, scalarsOff int64, nScalars int, density []uint64) (*msmCall, error) {
	o, err := configure(opts)
	if err != nil {
		return nil, err
	}
	if nBases < 0 || nScalars < 0 {
		return nil, fmt.Errorf("%w: %s: negative sizes", ErrInvalidArgument, op)
	}
	if nBases == 0 {
		return nil, nil
	}
	a := &msmCall{o: o}
	if a.bases, err = bases.at(op, basesOff, int64(nBases)*pointBytes); err != nil {
		return nil, err
	}
	if a.scalars, err = scalars.at(op, scalarsOff, int64(nScalars)*frBytes); err != nil {
		return nil, err
	}
	if a.density, err = densityWords(op, density, nScalars); err != nil {
		return nil, err
	}
	return a, nil
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
	l, err := getDevice(device)
	if err != nil {
		return err
	}
	if len(scalars) == 0 {
		return nil
	}
	return call(op, func(m *C.char, k C.size_t) C.int {
		return C.go_gpuc2_fixed_base(l.api, C.int(g2), C.int32_t(device), base, unsafe.Pointer(unsafe.SliceData(scalars)),
			C.uint64_t(len(scalars)), out, m, k)
	})
}
