//go:build !cgo

package native_test

import (
	"errors"
	"strings"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/native"
)

// Without cgo nothing can be loaded: no entry may report anything but
// ErrNotAvailable.
func TestNoCgoNotAvailable(t *testing.T) {
	if native.Available() {
		t.Fatal("Available() = true in a build without cgo")
	}
	err := native.Load()
	if !errors.Is(err, native.ErrNotAvailable) || !strings.Contains(err.Error(), "without cgo") {
		t.Fatalf("Load: %v, want ErrNotAvailable saying the build has no cgo", err)
	}
	s := &native.Stream{}
	b := &native.Buffer{}
	sc := make([]fr.Element, 4)
	calls := map[string]func() error{
		"LibraryPath": func() error { _, err := native.LibraryPath(); return err },
		"Version":     func() error { _, err := native.Version(); return err },
		"Devices":     func() error { _, err := native.Devices(); return err },
		"DeviceCount": func() error { _, err := native.DeviceCount(); return err },
		"MSMG1": func() error {
			_, err := native.MSMG1(0, make([]bls12381.G1Affine, 4), sc, nil)
			return err
		},
		"MSMG2": func() error {
			_, err := native.MSMG2(0, make([]bls12381.G2Affine, 4), sc, nil)
			return err
		},
		"NTT": func() error { return native.NTT(0, sc, native.Forward) },
		"H":   func() error { return native.H(0, sc, sc, sc, sc) },
		"MSMScratchBytes": func() error {
			_, err := native.MSMScratchBytes(0, native.G1, native.DeviceMSM{NBases: 4, NScalars: 4})
			return err
		},
		"BenchMSMG1": func() error {
			_, err := native.BenchMSMG1(0, make([]bls12381.G1Affine, 4), sc, 1)
			return err
		},
		"BenchNTT": func() error {
			_, err := native.BenchNTT(0, sc, 1)
			return err
		},
		"BenchNTTDir": func() error {
			_, err := native.BenchNTTDir(0, sc, native.Inverse, 1)
			return err
		},
		"PoolPeak": func() error { _, err := native.PoolPeak(0); return err },
		"FixedBaseG1": func() error {
			return native.FixedBaseG1(0, &bls12381.G1Affine{}, sc, make([]bls12381.G1Affine, 4))
		},
		"FixedBaseG2": func() error {
			return native.FixedBaseG2(0, &bls12381.G2Affine{}, sc, make([]bls12381.G2Affine, 4))
		},
		"NewStream":             func() error { _, err := native.NewStream(0); return err },
		"NewHighPriorityStream": func() error { _, err := native.NewHighPriorityStream(0); return err },
		"Alloc":                 func() error { _, err := native.Alloc(0, nil, 8); return err },
		"AllocPinned":           func() error { _, err := native.AllocPinned(8); return err },
		"MemInfo":               func() error { _, _, err := native.MemInfo(0); return err },
		"PoolInfo":              func() error { _, _, err := native.PoolInfo(0); return err },
		"Stream.Sync":           s.Sync,
		"Stream.CopyToDevice":   func() error { return s.CopyToDevice(b, 0, nil) },
		"Stream.CopyToDeviceAsync": func() error {
			return s.CopyToDeviceAsync(b, 0, &native.Pinned{}, 0, 0)
		},
		"Stream.CopyToHost": func() error { return s.CopyToHost(nil, b, 0) },
		"Stream.Zero":       func() error { return s.Zero(b, 0, 0) },
		"Stream.FrFromMont": func() error { return s.FrFromMont(b, 0, 0) },
		"Stream.HDevice":    func() error { return s.HDevice(b, b, b, 1) },
		"Stream.MSMG1": func() error {
			_, err := s.MSMG1(native.DeviceMSM{Bases: b, NBases: 1, Scalars: b, NScalars: 1})
			return err
		},
		"Stream.MSMG2": func() error {
			_, err := s.MSMG2(native.DeviceMSM{Bases: b, NBases: 1, Scalars: b, NScalars: 1})
			return err
		},
		"Stream.HStep": func() error { return s.HStep(b, b, 1, native.HStepB) },
		"Stream.SpMV": func() error {
			return s.SpMV(native.CSR{RowStart: b, Cols: b, IDs: b, Coeffs: b, Rows: 1}, native.Witness{Inputs: b, Aux: b}, b, 0)
		},
		"Stream.MSMG1Streamed": func() error {
			_, err := s.MSMG1Streamed(s, native.StreamedMSM{NBases: 1, NScalars: 1, ChunkPoints: 64})
			return err
		},
		"Stream.MSMG2Streamed": func() error {
			_, err := s.MSMG2Streamed(s, native.StreamedMSM{NBases: 1, NScalars: 1, ChunkPoints: 64})
			return err
		},
		"MSMStreamScratchBytes": func() error {
			_, err := native.MSMStreamScratchBytes(0, native.G1, native.StreamedMSM{NBases: 4, NScalars: 4, ChunkPoints: 64})
			return err
		},
		"HScratchBytes": func() error { _, err := native.HScratchBytes(4); return err },
		"PoolHighWater": func() error { _, err := native.PoolHighWater(0); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, native.ErrNotAvailable) {
			t.Errorf("%s: %v, want ErrNotAvailable", name, err)
		}
	}
	// Releasing what was never allocated is not an error (deferred Free/Close).
	if err := s.Close(); err != nil {
		t.Errorf("Stream.Close: %v", err)
	}
	if err := b.Free(); err != nil {
		t.Errorf("Buffer.Free: %v", err)
	}
	if err := (&native.Pinned{}).Free(); err != nil {
		t.Errorf("Pinned.Free: %v", err)
	}
}
