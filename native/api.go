package native

// The parts of the API that need no C: shared by the cgo build (native.go,
// device.go) and the stub of a build without cgo (nocgo.go).

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// LibraryName is the file name of the native library.
const LibraryName = "libgpuc2cuda.so"

// EnvLibrary names the environment variable holding an explicit library path.
const EnvLibrary = "GPUC2_NATIVE_LIB"

// ABIVersion is the function-table version this package speaks.
const ABIVersion = 2

// Status codes of the C ABI (include/gpuc2.h).
const (
	CodeOK              = 0
	CodeInvalidArgument = 1
	CodeOutOfMemory     = 2
	CodeCUDA            = 3
	CodeNotSupported    = 4
	CodeInternal        = 5
)

var (
	// ErrNotAvailable is returned by every entry when the library cannot be
	// loaded or no CUDA device is present.
	ErrNotAvailable = errors.New("native: CUDA backend not available")
	// ErrOutOfMemory matches (errors.Is) native errors with CodeOutOfMemory.
	ErrOutOfMemory = errors.New("native: device out of memory")
	// ErrNotSupported matches native errors with CodeNotSupported.
	ErrNotSupported = errors.New("native: not supported")
	// ErrInvalidArgument matches native errors with CodeInvalidArgument, and
	// is returned for arguments rejected before the native call.
	ErrInvalidArgument = errors.New("native: invalid argument")
)

// Error is a failed native call: the library's status code and message.
type Error struct {
	Op   string
	Code int
	Msg  string
}

func (e *Error) Error() string {
	return fmt.Sprintf("native: %s: %s (code %d)", e.Op, e.Msg, e.Code)
}

// Is maps status codes to the package's sentinel errors.
func (e *Error) Is(target error) bool {
	switch e.Code {
	case CodeOutOfMemory:
		return target == ErrOutOfMemory
	case CodeNotSupported:
		return target == ErrNotSupported
	case CodeInvalidArgument:
		return target == ErrInvalidArgument
	}
	return false
}

var (
	loadOnce sync.Once
	lib      *library
	loadErr  error
)

// Load loads the library once; later calls return the first result. The error
// wraps ErrNotAvailable when no library (or no device) was found.
func Load() error {
	loadOnce.Do(func() { lib, loadErr = load() })
	return loadErr
}

// Available reports whether the library is loaded and sees at least one device.
func Available() bool { return Load() == nil }

// Device describes one CUDA device.
type Device struct {
	Index        int
	Name         string
	TotalMemory  uint64 // bytes
	SMs          int
	ComputeMajor int
	ComputeMinor int
}

// Direction selects the transform of NTT (gnark-crypto fft.Domain semantics,
// natural order in and out).
type Direction int32

const (
	// Forward: y_j = Σ a_i ω^(ij) (Domain.FFT + bit reversal).
	Forward Direction = 0
	// Inverse: Domain.FFTInverse.
	Inverse Direction = 1
	// CosetForward: evaluation on the coset g·<ω>, g = 7 (FFT with OnCoset()).
	CosetForward Direction = 2
	// CosetInverse: the inverse of CosetForward (FFTInverse with OnCoset()).
	CosetInverse Direction = 3
)

// BenchOp selects what BenchResident times.
type BenchOp int32

const (
	BenchMSMG1 BenchOp = 0 // in0 = []G1Affine, in1 = []fr.Element
	BenchMSMG2 BenchOp = 1 // in0 = []G2Affine, in1 = []fr.Element
	BenchNTT   BenchOp = 2 // in0 = []fr.Element (forward NTT)
	BenchH     BenchOp = 3 // in0, in1, in2 = a, b, c
)

// The stream API (ABI 2): device buffers that outlive one call, pinned host
// memory, and work enqueued on explicit streams, so that one worker's
// uploads overlap another's kernels. Nothing here synchronizes the whole
// device; a Stream's own Sync waits for that stream only.

// Stream is a non-blocking CUDA stream on one device. Its methods are not
// safe for concurrent use; give each worker its own stream.
type Stream struct {
	device int
	s      streamHandle
}

// Device returns the stream's device ordinal.
func (s *Stream) Device() int { return s.device }

// Buffer is device memory. A Buffer allocated with a stream is stream-ordered:
// use and free it on that stream.
type Buffer struct {
	device int
	stream *Stream // nil: plain cudaMalloc
	ptr    unsafe.Pointer
	size   int64
	once   sync.Once
}

// Size returns the buffer's size in bytes.
func (b *Buffer) Size() int64 { return b.size }

// Pinned is page-locked host memory: copies from it run asynchronously.
type Pinned struct {
	ptr  unsafe.Pointer
	size int64
	once sync.Once
}

// Bytes returns the memory as a byte slice (valid until Free).
func (p *Pinned) Bytes() []byte { return unsafe.Slice((*byte)(p.ptr), p.size) }

// Fr returns the first n field elements of the memory (valid until Free).
func (p *Pinned) Fr(n int) []fr.Element {
	if int64(n)*frBytes > p.size {
		panic(fmt.Sprintf("native: %d elements exceed a %d-byte pinned buffer", n, p.size))
	}
	return unsafe.Slice((*fr.Element)(p.ptr), n)
}

const frBytes = int64(unsafe.Sizeof(fr.Element{}))

// DeviceMSM describes one MSM over device buffers: nBases affine points at
// BasesOff in Bases, nScalars Fr elements at ScalarsOff in Scalars, and the
// optional host density bitmap (as for MSMG1). Canonical says the scalars
// are already canonical (FrFromMont); otherwise the call converts a copy.
type DeviceMSM struct {
	Bases      *Buffer
	BasesOff   int64
	NBases     int
	Scalars    *Buffer
	ScalarsOff int64
	NScalars   int
	Density    []uint64
	Canonical  bool
}
