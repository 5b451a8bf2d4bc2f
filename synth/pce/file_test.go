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

// Matrices without their arrays keep their ID, sizes and densities, and
// refuse what needs the arrays; each compilation has its own ID.
func TestWithoutArrays(t *testing.T) {
	ms, w := smallMatrices(t)
	light := ms.WithoutArrays()
	if light.ID() != ms.ID() || ms.ID() == 0 || !ms.HasArrays() || light.HasArrays() {
		t.Fatalf("IDs %d and %d, arrays %v and %v", ms.ID(), light.ID(), ms.HasArrays(), light.HasArrays())
	}
	if light.Inputs() != ms.Inputs() || light.Aux() != ms.Aux() || light.Rows() != ms.Rows() || light.Bytes() != ms.Bytes() {
		t.Errorf("sizes: %d %d %d %d, want %d %d %d %d", light.Inputs(), light.Aux(), light.Rows(), light.Bytes(),
			ms.Inputs(), ms.Aux(), ms.Rows(), ms.Bytes())
	}
	a, b, in := ms.Densities()
	la, lb, lin := light.Densities()
	if !slices.Equal(a.Words, la.Words) || !slices.Equal(b.Words, lb.Words) || !slices.Equal(in.Words, lin.Words) {
		t.Error("densities differ")
	}
	if !slices.Equal(light.Coeffs(), ms.Coeffs()) || light.A().Terms() != 0 {
		t.Errorf("coefficients %d of %d; A has %d terms", len(light.Coeffs()), len(ms.Coeffs()), light.A().Terms())
	}
	n := ms.Rows()
	out := func() []fr.Element { return make([]fr.Element, n) }
	ctx := context.Background()
	if err := light.Eval(ctx, w.Inputs, w.Aux, out(), out(), out()); !errors.Is(err, pce.ErrNoArrays) {
		t.Errorf("Eval: %v", err)
	}
	if err := light.Check(ctx, w.Inputs, w.Aux, w.A, w.B, w.C); !errors.Is(err, pce.ErrNoArrays) {
		t.Errorf("Check: %v", err)
	}
	if _, err := light.WriteTo(&bytes.Buffer{}); !errors.Is(err, pce.ErrNoArrays) {
		t.Errorf("WriteTo: %v", err)
	}
	path := filepath.Join(t.TempDir(), "m.pce")
	if err := light.WriteFile(path); !errors.Is(err, pce.ErrNoArrays) {
		t.Errorf("WriteFile: %v", err)
	}
	if _, err := os.Stat(path + ".tmp"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("WriteFile left %v", err)
	}
	if err := ms.Eval(ctx, w.Inputs, w.Aux, out(), out(), out()); err != nil {
		t.Errorf("the original: %v", err)
	}
	again, _ := smallMatrices(t)
	read, err := pce.Read(bytes.NewReader(encode(t, ms)))
	if err != nil {
		t.Fatal(err)
	}
	if again.ID() == ms.ID() || read.ID() == ms.ID() || read.ID() == again.ID() {
		t.Errorf("IDs %d, %d, %d: each compilation or read has its own", ms.ID(), again.ID(), read.ID())
	}
}
