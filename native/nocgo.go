//go:build !cgo

package native

// Without cgo the package cannot dlopen the library, so it keeps the cgo
// build's API (api_test.go checks that) and answers as the cgo build does
// when libgpuc2cuda.so is missing: every entry returns Load's error, which
// wraps ErrNotAvailable (after checking MSM options, as that build does).
// Close and Free return nil: nothing was allocated.

import (
	"fmt"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

type library struct{}

type streamHandle struct{}

// Load reports why the library cannot be loaded: this build has no cgo.
func Load() error {
	return fmt.Errorf("%w: built without cgo (CGO_ENABLED=0), so %s cannot be loaded", ErrNotAvailable, LibraryName)
}

func LibraryPath() (string, error) { return "", Load() }
func Version() (string, error)     { return "", Load() }
func DeviceCount() (int, error)    { return 0, Load() }
func Devices() ([]Device, error)   { return nil, Load() }

// unavailable checks MSM options as the cgo build does before loading.
func unavailable(opts []MSMOption) error {
	if _, err := configure(opts); err != nil {
		return err
	}
	return Load()
}

func MSMG1(device int, bases []bls12381.G1Affine, scalars []fr.Element, density []uint64, opts ...MSMOption) (bls12381.G1Jac, error) {
	return bls12381.G1Jac{}, unavailable(opts)
}

func MSMG2(device int, bases []bls12381.G2Affine, scalars []fr.Element, density []uint64, opts ...MSMOption) (bls12381.G2Jac, error) {
	return bls12381.G2Jac{}, unavailable(opts)
}

func MSMScratchBytes(device int, g Group, m DeviceMSM, opts ...MSMOption) (int64, error) {
	return 0, unavailable(opts)
}

func H(device int, a, b, c, out []fr.Element) error { return Load() }

func FixedBaseG1(device int, base *bls12381.G1Affine, scalars []fr.Element, out []bls12381.G1Affine) error {
	return Load()
}

func FixedBaseG2(device int, base *bls12381.G2Affine, scalars []fr.Element, out []bls12381.G2Affine) error {
	return Load()
}

func NewStream(device int) (*Stream, error)                          { return nil, Load() }
func NewHighPriorityStream(device int) (*Stream, error)              { return nil, Load() }
func Alloc(device int, stream *Stream, bytes int64) (*Buffer, error) { return nil, Load() }
func AllocPinned(bytes int64) (*Pinned, error)                       { return nil, Load() }
func MemInfo(device int) (free, total uint64, err error)             { return 0, 0, Load() }
func PoolInfo(device int) (used, held uint64, err error)             { return 0, 0, Load() }

func (s *Stream) Sync() error                                           { return Load() }
func (s *Stream) Close() error                                          { return nil }
func (s *Stream) CopyToDevice(dst *Buffer, off int64, src []byte) error { return Load() }
func (s *Stream) CopyToDeviceAsync(dst *Buffer, off int64, src *Pinned, srcOff, n int64) error {
	return Load()
}
func (s *Stream) CopyToHost(dst []byte, src *Buffer, off int64) error { return Load() }
func (s *Stream) Zero(dst *Buffer, off, n int64) error                { return Load() }
func (s *Stream) FrFromMont(buf *Buffer, off int64, n int) error      { return Load() }
func (s *Stream) HDevice(a, b, c *Buffer, logM uint32) error          { return Load() }
func (s *Stream) MSMG1(m DeviceMSM, opts ...MSMOption) (bls12381.G1Jac, error) {
	return bls12381.G1Jac{}, unavailable(opts)
}
func (s *Stream) MSMG2(m DeviceMSM, opts ...MSMOption) (bls12381.G2Jac, error) {
	return bls12381.G2Jac{}, unavailable(opts)
}

func (b *Buffer) Free() error { return nil }
func (p *Pinned) Free() error { return nil }

// The test-only entries' helpers (export_test.go).

func ntt(device int, data []fr.Element, dir int32) error { return Load() }

func benchResident(device int, op benchOp, in [3]unsafe.Pointer, n, iters int, opts []MSMOption) ([]float32, error) {
	return nil, unavailable(opts)
}

func poolPeak(device int) (uint64, error)      { return 0, Load() }
func PoolPeakSince(device int) (uint64, error) { return 0, Load() }

func PoolHighWater(device int) (uint64, error) { return 0, Load() }
func HScratchBytes(logM uint32) (int64, error) { return 0, Load() }
func MSMStreamScratchBytes(device int, g Group, m StreamedMSM, opts ...MSMOption) (int64, error) {
	return 0, unavailable(opts)
}
func (s *Stream) HStep(acc, x *Buffer, logM uint32, step HStep) error { return Load() }
func (s *Stream) SpMV(m CSR, w Witness, out *Buffer, off int64) error { return Load() }
func (s *Stream) MSMG1Streamed(copy *Stream, m StreamedMSM, opts ...MSMOption) (bls12381.G1Jac, error) {
	return bls12381.G1Jac{}, unavailable(opts)
}
func (s *Stream) MSMG2Streamed(copy *Stream, m StreamedMSM, opts ...MSMOption) (bls12381.G2Jac, error) {
	return bls12381.G2Jac{}, unavailable(opts)
}
