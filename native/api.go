package native

// The parts of the API that need no C: shared by the cgo build (native.go,
// device.go) and the stub of a build without cgo (nocgo.go).

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// LibraryName is the file name of the native library.
const LibraryName = "libgpuc2cuda.so"

// EnvLibrary names the environment variable holding an explicit library path.
const EnvLibrary = "GPUC2_NATIVE_LIB"

// The constants below are gpuc2.h's; the build without cgo needs them too,
// so they are written here and native.go checks them against the header at
// compile time: the cgo build fails if one drifts.

// ABIVersion is the function-table version this package speaks.
const ABIVersion = 7

// Status codes of the C ABI.
const (
	CodeOK              = 0
	CodeInvalidArgument = 1
	CodeOutOfMemory     = 2
	CodeCUDA            = 3
	CodeNotSupported    = 4
	CodeInternal        = 5
)

// Group names a curve group of the MSM queries.
type Group int32

const (
	G1 Group = 1
	G2 Group = 2
)

// The range of Pippenger windows: the library's own choice and WithWindow's.
const (
	MSMWindowMin = 4
	MSMWindowMax = 20
)

// The header's other MSM limits, for MSMScratchBound.
const (
	msmBucketBytesG1 = 192     // an XYZZ bucket point in G1
	msmBucketBytesG2 = 384     // and in G2
	msmGroupEntries  = 1 << 28 // digits sorted at once (or the scalars, if more)
	msmPartialsMax   = 1 << 21 // partial bucket sums held at once
)

// MSMStreamChunkMin is the fewest points per chunk a streamed MSM
// (Stream.MSMG1Streamed) takes.
const MSMStreamChunkMin = 64

// HStep is one step of H computed with two device vectors (Stream.HStep).
type HStep int32

const (
	// HStepA takes acc (= a) to the coset.
	HStepA HStep = 0
	// HStepB takes x (= b) to the coset and multiplies acc by it.
	HStepB HStep = 1
	// HStepC takes x (= c) to the coset, sets acc = (acc − x)/Z and takes
	// it back: acc then holds h as HDevice leaves it in a.
	HStepC HStep = 2
)

// NTT directions (gnark-crypto fft.Domain semantics, natural order in and
// out), for the test-only NTT entry.
const (
	nttForward      = 0
	nttInverse      = 1
	nttCosetForward = 2
	nttCosetInverse = 3
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

// benchOp selects what the test-only bench_resident entry times.
type benchOp int32

const (
	benchMSMG1 benchOp = 0 // in0 = bases, in1 = scalars
	benchMSMG2 benchOp = 1
	benchNTT   benchOp = 2 // in0 = data (forward NTT)
	benchH     benchOp = 3 // in0, in1, in2 = a, b, c
	// benchNTTDir + d: in0 = data, an NTT in Direction d.
	benchNTTDir benchOp = 4
)

// The stream API: device buffers that outlive one call, pinned host
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

// CSR is an R1CS matrix on the device in compact CSR form (synth/pce's):
// row r's terms are [RowStart[r], RowStart[r+1]) (uint32 offsets), term k
// is coefficient IDs[k] (uint16, into Coeffs' NCoeffs Fr) times witness
// value Cols[k] (uint32).
type CSR struct {
	RowStart, Cols, IDs, Coeffs *Buffer
	Rows, Terms, NCoeffs        int
}

// Witness is w = (inputs, aux) on the device, Fr in Montgomery form:
// column j < NInputs is Inputs[j], column NInputs + j is Aux[j].
type Witness struct {
	Inputs, Aux   *Buffer
	NInputs, NAux int
}

// Size returns the buffer's size in bytes.
func (b *Buffer) Size() int64 { return b.size }

// Pinned is page-locked host memory, which Stream.CopyToDeviceAsync copies
// by DMA without waiting.
type Pinned struct {
	ptr  unsafe.Pointer
	size int64
	once sync.Once
}

// Size returns the memory's size in bytes.
func (p *Pinned) Size() int64 { return p.size }

// pinnedHeld counts the bytes of the Pinned memory allocated and not freed.
var pinnedHeld atomic.Int64

// PinnedHostBytes is the pinned host memory the process holds through
// AllocPinned now: allocated, and not yet freed.
func PinnedHostBytes() int64 { return pinnedHeld.Load() }

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

// StreamedMSM describes one MSM whose bases lie in pinned host memory
// (NBases affine points at BasesOff in Bases) and whose scalars are on the
// device, as in DeviceMSM; the bases pass through two device buffers of at
// most ChunkPoints points (≥ MSMStreamChunkMin) each.
type StreamedMSM struct {
	Bases       *Pinned
	BasesOff    int64
	NBases      int
	Scalars     *Buffer
	ScalarsOff  int64
	NScalars    int
	Density     []uint64
	Canonical   bool
	ChunkPoints int
}

// HostData is the element types of host memory that copies take: bytes,
// CSR indices, field elements and affine points, none of which holds a Go
// pointer.
type HostData interface {
	byte | uint16 | uint32 | fr.Element | bls12381.G1Affine | bls12381.G2Affine
}

// AsBytes returns v's memory as bytes (no copy), for Stream.CopyToDevice and
// Stream.CopyToHost.
func AsBytes[T HostData](v []T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*int(unsafe.Sizeof(*new(T))))
}

// MSMScratchBound bounds MSMScratchBytes on any device: the device memory
// beyond its bases and scalars of Stream.MSMG1 (g = G1) or MSMG2 (G2) over
// m's sizes, with any options. It needs no library, for sizing device
// memory where none is loaded (planning on a machine without a GPU); it
// takes gpuc2.h's limits instead of the library's window choice:
//   - the bucket table at the largest window, and a quarter of it for its
//     reduction (a level of running sums takes a sixteenth of the table at
//     the largest window; at most half of the smaller tables, which are under
//     half the largest);
//   - E = min(n·⌈256/MSMWindowMin⌉, max(n, GROUP_ENTRIES)) digits sorted at
//     once: keys and values, double-buffered (16 bytes each), and CUB's
//     temporary storage (up to ½ byte each: 1 KiB of look-back state per tile
//     of at least 2048 digits);
//   - min(E, PARTIALS_MAX) partial sums: two keys and two points each, plus
//     their counts and scans (8 bytes);
//   - or, before those, the 0/1 split's two positions per scalar (8 bytes)
//     and their scans (1/16 byte);
//   - the density bitmap's copy (12 bytes per 64 scalars), a converted copy
//     of Montgomery scalars (32 bytes each);
//   - 64 MiB for rounding each allocation up to the pool's 2 MiB granule
//     (an MSM holds fewer than 32 at once).
func MSMScratchBound(g Group, m DeviceMSM) int64 {
	return scratchBound(g, m.NBases, max(m.NScalars, m.NBases), m.Canonical, msmGroupEntries)
}

// MSMStreamScratchBound bounds MSMStreamScratchBytes on any device, as
// MSMScratchBound does MSMScratchBytes: the two chunk buffers, and the
// scratch of an MSM over one chunk whose digits are sorted at most
// 4·ChunkPoints at once, with the bucket table at the largest window, and
// the bitmap and (Montgomery) scalar copies over all of m's scalars.
func MSMStreamScratchBound(g Group, m StreamedMSM) int64 {
	if m.NBases <= 0 || m.ChunkPoints < MSMStreamChunkMin {
		return 0
	}
	cp := int64(m.ChunkPoints) / 64 * 64
	nb := min(cp, int64(m.NBases))
	ns := min(int64(max(m.NScalars, m.NBases)), 4*cp)
	point := int64(96) // an affine G1 point
	if g == G2 {
		point = 192
	}
	bufs := 2 * nb * point
	bucket := int64(msmBucketBytesG1)
	if g == G2 {
		bucket = msmBucketBytesG2
	}
	// A chunk's split: positions, indices, gathered scalars and points, and
	// the ones' partial sums.
	split := 8*(ns+1) + nb*(8+frBytes+point) + min(nb, msmPartialsMax)*(2*bucket+16)
	b := bufs + split + scratchBound(g, int(nb), int(ns), true, 4*cp) + 12*((int64(m.NScalars)+63)/64)
	if !m.Canonical {
		b += frBytes * int64(m.NScalars)
	}
	return b
}

// scratchBound is MSMScratchBound's formula with at most maxSorted digits
// sorted at once (or ns, if more).
func scratchBound(g Group, nBases, nScalars int, canonical bool, maxSorted int64) int64 {
	n := int64(max(nScalars, nBases))
	if nBases <= 0 || n <= 0 {
		return 0
	}
	point := int64(msmBucketBytesG1)
	if g == G2 {
		point = msmBucketBytesG2
	}
	windows := func(c int64) int64 { return (256 + c - 1) / c }
	table := windows(MSMWindowMax) << (MSMWindowMax - 1) * point
	e := min(n*windows(MSMWindowMin), max(n, maxSorted))
	pippenger := table*5/4 + 16*e + e/2 + min(e, msmPartialsMax)*(2*point+16)
	b := n/16 + max(8*(n+1), pippenger) + 12*((n+63)/64) + 64<<20
	if !canonical {
		b += frBytes * n
	}
	return b
}

// HScratchBound is HScratchBytes without the library: the twiddles (half
// the domain), the coset tables' high parts (m/1024 elements each, two at
// a time) and 16 MiB for their low parts and the pool's rounding.
func HScratchBound(logM uint32) int64 {
	m := int64(1) << logM
	return m/2*frBytes + 2*(m/1024)*frBytes + 16<<20
}
