package pce_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/internal/cputime"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/pce"
	"github.com/gpuc2/gpuc2/synth/porep"
	"github.com/gpuc2/gpuc2/synth/stacked"
)

var benchSize = flag.String("pce-size", "2KiB", "BenchmarkEval: sector size of the partition circuit (2KiB, 8MiB, 512MiB)")

// synthesized is partition 0 of a synthetic sector synthesized four ways
// from the same C1, each with the input rows appended as the prover and the
// setup take them, and how long each took.
type synthesized struct {
	rec        *synth.Recorder                                         // recorded
	full       *synth.ProvingAssignment                                // the prover's synthesis: witness, a, b, c, densities
	cold, warm *synth.ProvingAssignment                                // witness-only, before and after the full one: SHA-256 without and with its templates
	took       struct{ rec, full, fullWarm, cold, warm time.Duration } // fullWarm: a second full synthesis, SHA-256 templates recorded
	cpu        struct{ fullWarm, warm time.Duration }                  // their CPU time (all cores), where measured
}

func partition(t testing.TB, size string) *synthesized {
	t.Helper()
	ctx := context.Background()
	spt, err := porep.ProofForSectorSize(size)
	if err != nil {
		t.Fatal(err)
	}
	c1, err := porep.SyntheticC1(ctx, spt, abi.ActorID(1000), 1, [32]byte{7})
	if err != nil {
		t.Fatal(err)
	}
	circuit, err := c1.Circuit(0)
	if err != nil {
		t.Fatal(err)
	}
	run := func(cs synth.ConstraintSystem, inputs *[]fr.Element, took *time.Duration, cpu ...*time.Duration) {
		t0 := time.Now()
		c0, _ := cputime.Process()
		if err := circuit.Synthesize(ctx, cs); err != nil {
			t.Fatal(err)
		}
		synth.AppendInputRows(cs, len(*inputs))
		*took = time.Since(t0)
		if c1, ok := cputime.Process(); ok && len(cpu) > 0 {
			*cpu[0] = c1 - c0
		}
	}
	var s synthesized
	hint := circuit.Params.Sizes()
	s.cold = synth.NewWitnessAssignment(hint)
	run(s.cold, &s.cold.Inputs, &s.took.cold)
	s.full = synth.NewProvingAssignment(hint)
	run(s.full, &s.full.Inputs, &s.took.full)
	again := synth.NewProvingAssignment(hint)
	run(again, &again.Inputs, &s.took.fullWarm, &s.cpu.fullWarm)
	s.warm = synth.NewWitnessAssignment(hint)
	run(s.warm, &s.warm.Inputs, &s.took.warm, &s.cpu.warm)
	s.rec = synth.NewRecorder()
	run(s.rec, &s.rec.Inputs, &s.took.rec)
	return &s
}

// A witness-only synthesis keeps the prover's witness, and the compiled
// matrices evaluated on it give exactly the a, b, c and densities that the
// prover's full synthesis computes row by row: the 2 KiB and 8 MiB PoRep
// partitions (2.7 M and 3.8 M rows, 1,526 coefficients). Both witness-only
// paths of the SHA-256 gadget are covered at 2 KiB: the generic one (before
// any template is recorded, the test's first synthesis) and the templates'
// replay.
func TestEvalEqualsSynthesis(t *testing.T) {
	if testing.Short() {
		t.Skip("synthesizes two PoRep partitions four times each")
	}
	for _, size := range []string{"2KiB", "8MiB"} {
		t.Run(size, func(t *testing.T) {
			s := partition(t, size)
			w := s.full
			ms, err := pce.Compile(s.rec)
			if err != nil {
				t.Fatal(err)
			}
			n := ms.Rows()
			if n != w.NumRows() || ms.Inputs() != len(w.Inputs) || ms.Aux() != len(w.Aux) {
				t.Fatalf("shape: %d rows, %d inputs, %d aux; synthesis %d, %d, %d", n, ms.Inputs(), ms.Aux(), w.NumRows(), len(w.Inputs), len(w.Aux))
			}
			for _, wo := range []struct {
				name string
				p    *synth.ProvingAssignment
			}{{"witness-only, generic SHA-256", s.cold}, {"witness-only, SHA-256 templates", s.warm}} {
				p := wo.p
				if p.NumRows() != n || !slices.Equal(p.Inputs, w.Inputs) || !slices.Equal(p.Aux, w.Aux) {
					t.Fatalf("%s: %d rows and its witness differ from the full synthesis' (%d rows)", wo.name, p.NumRows(), n)
				}
				if len(p.A)+len(p.B)+len(p.C) != 0 || p.AAux.Len+p.BAux.Len+p.BInput.Len != 0 {
					t.Fatalf("%s: keeps rows or densities", wo.name)
				}
				a, b, c := make([]fr.Element, n), make([]fr.Element, n), make([]fr.Element, n)
				if err := ms.Eval(context.Background(), p.Inputs, p.Aux, a, b, c); err != nil {
					t.Fatal(err)
				}
				for _, x := range []struct {
					name      string
					got, want []fr.Element
				}{{"a", a, w.A}, {"b", b, w.B}, {"c", c, w.C}} {
					for r := range x.want {
						if x.got[r] != x.want[r] {
							t.Fatalf("%s: %s[%d] = %s, synthesis %s", wo.name, x.name, r, x.got[r].String(), x.want[r].String())
						}
					}
				}
			}
			aAux, bAux, bInput := ms.Densities()
			for _, d := range []struct {
				name      string
				got, want synth.Density
			}{{"a_aux", aAux, w.AAux}, {"b_aux", bAux, w.BAux}, {"b_input", bInput, w.BInput}} {
				if d.got.Len != d.want.Len || !slices.Equal(d.got.Words, d.want.Words) {
					t.Fatalf("density %s differs: %d of %d set, synthesis %d of %d", d.name, d.got.Count(), d.got.Len, d.want.Count(), d.want.Len)
				}
			}
			terms := ms.A().Terms() + ms.B().Terms() + ms.C().Terms()
			if want := int64(6*terms) + int64(3*4*(n+1)) + int64(len(ms.Coeffs())*fr.Bytes); ms.Bytes() != want {
				t.Errorf("Bytes %d, want %d (6 per term, 4 per row start, 32 per coefficient)", ms.Bytes(), want)
			}
			if est := stacked.MatricesProfile.EstimatedBytes(n); math.Abs(float64(est-ms.Bytes())) > 0.02*float64(ms.Bytes()) {
				t.Errorf("EstimatedBytes %d, more than 2 %% from the recorded %d", est, ms.Bytes())
			}
			t.Logf("%s: %d rows, %d terms (A %d, B %d, C %d), %d coefficients: %d bytes", size, n, terms,
				ms.A().Terms(), ms.B().Terms(), ms.C().Terms(), len(ms.Coeffs()), ms.Bytes())
		})
	}
}

// compileBoth runs build into a recorder and a proving assignment and
// compiles the recording.
func compileBoth(t testing.TB, build func(synth.ConstraintSystem)) (*pce.Matrices, *synth.ProvingAssignment) {
	t.Helper()
	rec, w := synth.NewRecorder(), synth.NewProvingAssignment(synth.Sizes{})
	build(rec)
	build(w)
	ms, err := pce.Compile(rec)
	if err != nil {
		t.Fatal(err)
	}
	return ms, w
}

// evalEqualsSynthesis evaluates ms on w's witness, checks a, b, c against
// w's rows and returns them.
func evalEqualsSynthesis(t testing.TB, ms *pce.Matrices, w *synth.ProvingAssignment) (a, b, c []fr.Element) {
	t.Helper()
	n := ms.Rows()
	a, b, c = make([]fr.Element, n), make([]fr.Element, n), make([]fr.Element, n)
	if err := ms.Eval(context.Background(), w.Inputs, w.Aux, a, b, c); err != nil {
		t.Fatal(err)
	}
	for r := range n {
		if a[r] != w.A[r] || b[r] != w.B[r] || c[r] != w.C[r] {
			t.Fatalf("row %d: (%s, %s, %s), synthesis (%s, %s, %s)", r, a[r].String(), b[r].String(), c[r].String(),
				w.A[r].String(), w.B[r].String(), w.C[r].String())
		}
	}
	return a, b, c
}

// A small circuit with inputs, aux, ±1 and general coefficients, a one and
// a zero value, and an empty row; wrong witness or output sizes fail with
// ErrWitness.
func TestEvalSmall(t *testing.T) {
	var three, five fr.Element
	three.SetUint64(3)
	five.SetUint64(5)
	build := func(cs synth.ConstraintSystem) {
		x := cs.Alloc(five)                               // Aux(0) = 5
		y := cs.AllocInput(fr.NewElement(25))             // Input(1) = 25
		z := cs.Alloc(fr.NewElement(0))                   // Aux(1) = 0
		one := cs.Alloc(synth.CoeffOne)                   // Aux(2) = 1
		cs.Enforce(synth.LC(x), synth.LC(x), synth.LC(y)) // x·x = y
		cs.Enforce(synth.LinearCombination{{Coeff: three, Var: x}, {Coeff: synth.CoeffMinusOne, Var: one}, {Coeff: five, Var: z}},
			synth.LC(synth.One), synth.LinearCombination{{Coeff: fr.NewElement(14), Var: synth.One}}) // 3x − 1 + 5z = 14
		cs.Enforce(nil, nil, nil)
		synth.AppendInputRows(cs, 2)
	}
	ms, w := compileBoth(t, build)
	a, b, c := evalEqualsSynthesis(t, ms, w)
	n := ms.Rows()
	if a[1].String() != "14" || c[0].String() != "25" {
		t.Fatalf("a[1] = %s, c[0] = %s; want 14 and 25", a[1].String(), c[0].String())
	}
	short := make([]fr.Element, n-1)
	for name, err := range map[string]error{
		"aux":    ms.Eval(context.Background(), w.Inputs, w.Aux[1:], a, b, c),
		"inputs": ms.Eval(context.Background(), w.Inputs[:1], w.Aux, a, b, c),
		"output": ms.Eval(context.Background(), w.Inputs, w.Aux, a, short, c),
	} {
		if !errors.Is(err, pce.ErrWitness) {
			t.Errorf("%s: %v, want ErrWitness", name, err)
		}
	}
}

// Recordings the compact form cannot hold, or that are inconsistent, fail
// with ErrTooLarge or ErrRecording instead of being evaluated.
func TestCompileRefuses(t *testing.T) {
	many := synth.NewRecorder()
	x := many.Alloc(synth.CoeffOne)
	for i := range 1<<16 + 1 {
		var k fr.Element
		k.SetUint64(uint64(i) + 2)
		many.Enforce(synth.LinearCombination{{Coeff: k, Var: x}}, nil, nil)
	}
	if _, err := pce.Compile(many); !errors.Is(err, pce.ErrTooLarge) {
		t.Errorf("65,538 coefficients: %v, want ErrTooLarge", err)
	}

	for name, spoil := range map[string]func(*synth.Recorder){
		"aux beyond the witness":   func(r *synth.Recorder) { r.A.Cols[0] = synth.Aux(5) },
		"input beyond the witness": func(r *synth.Recorder) { r.B.Cols[0] = synth.Input(3) },
		"unknown coefficient":      func(r *synth.Recorder) { r.C.CoeffIDs[0] = 99 },
		"rows out of order":        func(r *synth.Recorder) { r.A.RowStart[1], r.A.RowStart[2] = 2, 1 },
		"rows past the terms":      func(r *synth.Recorder) { r.A.RowStart[2] = 7 },
		"heights differ": func(r *synth.Recorder) { // C a consistent matrix of one row
			r.C.RowStart, r.C.Cols, r.C.CoeffIDs = r.C.RowStart[:2], r.C.Cols[:1], r.C.CoeffIDs[:1]
		},
	} {
		t.Run(name, func(t *testing.T) {
			r := synth.NewRecorder()
			u, v := r.Alloc(synth.CoeffOne), r.Alloc(synth.CoeffOne)
			r.Enforce(synth.LC(u), synth.LC(v), synth.LC(u))
			r.Enforce(synth.LC(v), synth.LC(u), synth.LC(v))
			spoil(r)
			if _, err := pce.Compile(r); !errors.Is(err, pce.ErrRecording) {
				t.Errorf("%v, want ErrRecording", err)
			}
		})
	}
}

// BenchmarkEval times recording and compiling the partition circuit of
// -pce-size, writing and reading the matrices' file, and evaluating a, b, c
// from a witness-only synthesis on all cores and on one; it logs the
// compact matrices' bytes and, for scale, how long the prover's full
// synthesis and the witness-only one took.
//
//	go test -run XX -bench Eval -benchtime 3x ./synth/pce [-pce-size 8MiB]
func BenchmarkEval(b *testing.B) {
	s := partition(b, *benchSize)
	t0 := time.Now()
	ms, err := pce.Compile(s.rec)
	if err != nil {
		b.Fatal(err)
	}
	compiled := time.Since(t0)
	w, took, cpu := s.warm, s.took, s.cpu
	*s = synthesized{} // only the witness and the matrices stay
	runtime.GC()
	// The file, as a cache beside the parameters would hold it.
	path := filepath.Join(b.TempDir(), "matrices")
	t0 = time.Now()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := ms.WriteTo(f); err != nil {
		b.Fatal(err)
	}
	if err := errors.Join(f.Sync(), f.Close()); err != nil {
		b.Fatal(err)
	}
	written := time.Since(t0)
	t0 = time.Now()
	f, err = os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	ms, err = pce.Read(f)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	read := time.Since(t0)
	n := ms.Rows()
	// To stderr: a benchmark's b.Logf shows only with -test.v.
	fmt.Fprintf(os.Stderr, "%s: %d rows, %d terms, %d coefficients, %d bytes; on %d cores: record %.2f s, compile %.2f s, write (synced) %.2f s, read (page cache) %.2f s; "+
		"the prover's synthesis (witness, a, b, c, densities) %.2f s (%.1f CPU s), witness-only %.2f s (%.1f CPU s) (SHA-256 templates recorded; before: %.2f and %.2f s)\n",
		*benchSize, n, ms.A().Terms()+ms.B().Terms()+ms.C().Terms(), len(ms.Coeffs()), ms.Bytes(), runtime.GOMAXPROCS(0),
		took.rec.Seconds(), compiled.Seconds(), written.Seconds(), read.Seconds(),
		took.fullWarm.Seconds(), cpu.fullWarm.Seconds(), took.warm.Seconds(), cpu.warm.Seconds(), took.full.Seconds(), took.cold.Seconds())
	a, bb, c := make([]fr.Element, n), make([]fr.Element, n), make([]fr.Element, n)
	for _, procs := range []int{runtime.GOMAXPROCS(0), 1} {
		b.Run(fmt.Sprintf("cores=%d", procs), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			for b.Loop() {
				if err := ms.Eval(context.Background(), w.Inputs, w.Aux, a, bb, c); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/row")
			b.ReportMetric(float64(ms.Bytes()), "matrix-bytes")
		})
	}
}

// BenchmarkReadFile times reading a matrices file back from the page cache
// (pce.ReadFile: decode, checksum and the structural checks), in bytes a
// second of the file, for the partition circuit of -pce-size:
//
//	go test -run XX -bench ReadFile -benchtime 5x ./synth/pce [-pce-size 8MiB]
func BenchmarkReadFile(b *testing.B) {
	s := partition(b, *benchSize)
	ms, err := pce.Compile(s.rec)
	if err != nil {
		b.Fatal(err)
	}
	*s = synthesized{}
	path := filepath.Join(b.TempDir(), "matrices")
	if err := ms.WriteFile(path); err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	b.SetBytes(st.Size())
	b.ResetTimer()
	for range b.N {
		if _, err := pce.ReadFile(path); err != nil {
			b.Fatal(err)
		}
	}
}
