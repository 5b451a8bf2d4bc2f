package native

// Entries exported for this package's tests only: the NTT on its own (the
// provers use H), the resident benchmarks and the pool's high-water mark.

import (
	"fmt"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Direction selects the transform of NTT (gnark-crypto fft.Domain
// semantics, natural order in and out).
type Direction int32

const (
	// Forward: y_j = Σ a_i ω^(ij) (Domain.FFT + bit reversal).
	Forward Direction = nttForward
	// Inverse: Domain.FFTInverse.
	Inverse Direction = nttInverse
	// CosetForward: evaluation on the coset g·<ω>, g = 7 (FFT with OnCoset()).
	CosetForward Direction = nttCosetForward
	// CosetInverse: the inverse of CosetForward (FFTInverse with OnCoset()).
	CosetInverse Direction = nttCosetInverse
)

// NTT transforms data (length a power of two, at most 2^28) in place.
func NTT(device int, data []fr.Element, dir Direction) error { return ntt(device, data, int32(dir)) }

// BenchMSMG1 uploads bases and scalars (Montgomery) once and times iters
// MSMs over them on the device with CUDA events, in milliseconds.
func BenchMSMG1(device int, bases []bls12381.G1Affine, scalars []fr.Element, iters int, opts ...MSMOption) ([]float32, error) {
	if len(bases) != len(scalars) {
		return nil, fmt.Errorf("%w: bench: %d bases, %d scalars", ErrInvalidArgument, len(bases), len(scalars))
	}
	return benchResident(device, benchMSMG1, [3]unsafe.Pointer{unsafe.Pointer(unsafe.SliceData(bases)),
		unsafe.Pointer(unsafe.SliceData(scalars))}, len(bases), iters, opts)
}

// BenchMSMG2 is BenchMSMG1 over G2.
func BenchMSMG2(device int, bases []bls12381.G2Affine, scalars []fr.Element, iters int, opts ...MSMOption) ([]float32, error) {
	if len(bases) != len(scalars) {
		return nil, fmt.Errorf("%w: bench: %d bases, %d scalars", ErrInvalidArgument, len(bases), len(scalars))
	}
	return benchResident(device, benchMSMG2, [3]unsafe.Pointer{unsafe.Pointer(unsafe.SliceData(bases)),
		unsafe.Pointer(unsafe.SliceData(scalars))}, len(bases), iters, opts)
}

// BenchNTT times iters forward NTTs of data (a power of two) on the device.
func BenchNTT(device int, data []fr.Element, iters int) ([]float32, error) {
	return benchResident(device, benchNTT, [3]unsafe.Pointer{unsafe.Pointer(unsafe.SliceData(data))}, len(data), iters, nil)
}

// BenchNTTDir times iters NTTs of data in direction dir; libraries older
// than the entry answer ErrNotSupported.
func BenchNTTDir(device int, data []fr.Element, dir Direction, iters int) ([]float32, error) {
	return benchResident(device, benchNTTDir+benchOp(dir), [3]unsafe.Pointer{unsafe.Pointer(unsafe.SliceData(data))}, len(data), iters, nil)
}

// BenchH times iters runs of H over a, b, c (a power of two each) on the
// device, each run starting from copies of the uploaded inputs.
func BenchH(device int, a, b, c []fr.Element, iters int) ([]float32, error) {
	if len(b) != len(a) || len(c) != len(a) {
		return nil, fmt.Errorf("%w: bench: lengths a %d, b %d, c %d", ErrInvalidArgument, len(a), len(b), len(c))
	}
	return benchResident(device, benchH, [3]unsafe.Pointer{unsafe.Pointer(unsafe.SliceData(a)),
		unsafe.Pointer(unsafe.SliceData(b)), unsafe.Pointer(unsafe.SliceData(c))}, len(a), iters, nil)
}

// PoolPeak returns the high-water mark of bytes allocated from the device's
// stream-ordered pool since the previous PoolPeak and resets it.
func PoolPeak(device int) (uint64, error) { return PoolPeakSince(device) }
