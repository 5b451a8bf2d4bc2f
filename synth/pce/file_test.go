package pce_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/pce"
)

// smallMatrices compiles a small circuit with inputs, aux, a general
// coefficient and aux counts that end mid-word in the density bitmaps.
func smallMatrices(t testing.TB) (*pce.Matrices, *synth.ProvingAssignment) {
	t.Helper()
	build := func(cs synth.ConstraintSystem) {
		prev := cs.Alloc(fr.NewElement(2))
		for i := range 70 {
			x := cs.Alloc(fr.NewElement(uint64(i + 3)))
			var k fr.Element
			k.SetUint64(uint64(i%5) + 1)
			cs.Enforce(synth.LinearCombination{{Coeff: k, Var: prev}}, synth.LC(x), synth.LC(x).AddTerm(synth.CoeffMinusOne, prev))
			prev = x
		}
		in := cs.AllocInput(fr.NewElement(9))
		cs.Enforce(synth.LC(in), synth.LC(in, synth.One), nil)
		synth.AppendInputRows(cs, 2)
	}
	return compileBoth(t, build)
}

func encode(t testing.TB, ms *pce.Matrices) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, err := ms.WriteTo(&buf)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("WriteTo: %d bytes, %v (wrote %d)", n, err, buf.Len())
	}
	return buf.Bytes()
}

// Matrices read back from their file evaluate like the originals and
// write the same bytes again.
func TestFileRoundTrip(t *testing.T) {
	ms, w := smallMatrices(t)
	file := encode(t, ms)
	got, err := pce.Read(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(encode(t, got), file) {
		t.Fatal("read matrices encode differently")
	}
	evalEqualsSynthesis(t, got, w)
	if aAux, _, bIn := got.Densities(); aAux.Count() != w.AAux.Count() || bIn.Count() != w.BInput.Count() {
		t.Fatal("densities differ")
	}
}

// Every truncation of a file and a flipped bit in every byte (bit i%8 of
// byte i) are refused with ErrFormat (the checksum catches what the
// structure checks do not).
func TestFileCorrupt(t *testing.T) {
	ms, _ := smallMatrices(t)
	file := encode(t, ms)
	for n := range len(file) {
		if _, err := pce.Read(bytes.NewReader(file[:n])); !errors.Is(err, pce.ErrFormat) {
			t.Fatalf("truncated to %d of %d bytes: %v, want ErrFormat", n, len(file), err)
		}
	}
	for i := range file {
		bad := bytes.Clone(file)
		bad[i] ^= 1 << (i % 8)
		if _, err := pce.Read(bytes.NewReader(bad)); !errors.Is(err, pce.ErrFormat) {
			t.Fatalf("bit %d of byte %d flipped: %v, want ErrFormat", i%8, i, err)
		}
	}
}

// Read never panics and either fails with ErrFormat or returns matrices
// that encode to the same bytes.
func FuzzRead(f *testing.F) {
	ms, _ := smallMatrices(f)
	file := encode(f, ms)
	f.Add(file)
	f.Add(file[:40])
	f.Add([]byte("GPUC2PCE"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := pce.Read(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, pce.ErrFormat) {
				t.Fatalf("%v, want ErrFormat", err)
			}
			return
		}
		again := encode(t, got)
		if len(again) > len(data) || !bytes.Equal(again, data[:len(again)]) {
			t.Fatal("accepted file re-encodes differently")
		}
	})
}

// WriteFile and ReadFile round-trip through a file (no .tmp left), and a
// corrupted file is refused with ErrFormat naming its path.
func TestWriteReadFile(t *testing.T) {
	ms, _ := smallMatrices(t)
	path := filepath.Join(t.TempDir(), "m.pce")
	if err := ms.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + ".tmp"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the temporary file is left: %v", err)
	}
	got, err := pce.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(encode(t, got), encode(t, ms)) {
		t.Fatal("the file's matrices differ")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)/2] ^= 1
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := pce.ReadFile(path); !errors.Is(err, pce.ErrFormat) || !strings.Contains(err.Error(), path) {
		t.Fatalf("a corrupted file: %v", err)
	}
}

// Check accepts the matrices against the synthesis they came from and
// names the first row that differs from another one's.
func TestCheck(t *testing.T) {
	ms, w := smallMatrices(t)
	ctx := context.Background()
	if err := ms.Check(ctx, w.Inputs, w.Aux, w.A, w.B, w.C); err != nil {
		t.Fatal(err)
	}
	b := slices.Clone(w.B)
	b[40].SetUint64(12345)
	err := ms.Check(ctx, w.Inputs, w.Aux, w.A, b, w.C)
	if !errors.Is(err, pce.ErrWitness) || !strings.Contains(err.Error(), "row 40 of B") {
		t.Fatalf("a changed row: %v", err)
	}
	if err := ms.Check(ctx, w.Inputs, w.Aux, w.A[:10], w.B, w.C); !errors.Is(err, pce.ErrWitness) {
		t.Fatalf("short rows: %v", err)
	}
}
