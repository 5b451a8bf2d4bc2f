package groth16_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/cputime"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/pce"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// On the GPU, a, b, c computed from the recorded matrices and a
// witness-only synthesis equal the prover's full synthesis exactly, for the
// 2 KiB and 8 MiB PoRep partitions (issue 18; GPUC2_ABC_SIZES, a comma list,
// names others, such as 32GiB): with the matrices on the device (resident
// key), and streamed from pinned memory in chunks as the streaming path
// does, with its chunk limits and with small ones (many chunks), each
// vector's padding zeroed.
func TestDeviceMatricesEqualSynthesis(t *testing.T) {
	if !groth16.CUDAAvailable() {
		t.Skip("no native CUDA library")
	}
	sizes := []string{"2KiB", "8MiB"}
	if env := os.Getenv("GPUC2_ABC_SIZES"); env != "" {
		sizes = strings.Split(env, ",")
	}
	for _, size := range sizes {
		t.Run(size, func(t *testing.T) {
			ctx := context.Background()
			spt, err := porep.ProofForSectorSize(size)
			require.NoError(t, err)
			c1, err := porep.SyntheticC1(ctx, spt, abi.ActorID(1000), 1, [32]byte{7})
			require.NoError(t, err)
			circuit, err := c1.Circuit(0)
			require.NoError(t, err)
			hint := circuit.Params.Sizes()
			synthesize := func(cs synth.ConstraintSystem, inputs func() int) {
				require.NoError(t, circuit.Synthesize(ctx, cs))
				synth.AppendInputRows(cs, inputs())
			}
			begin := time.Now()
			rec := synth.NewRecorder()
			synthesize(rec, func() int { return len(rec.Inputs) })
			ms, err := pce.Compile(rec)
			require.NoError(t, err)
			rec = nil
			t.Logf("%s: recorded and compiled in %v", size, time.Since(begin))
			// The synthesis each path needs, wall and CPU time (issue 18):
			// the full one (witness, a, b, c, densities) and the witness.
			timed := func(what string, cs synth.ConstraintSystem, inputs func() int) {
				begin := time.Now()
				cpu0, _ := cputime.Process()
				synthesize(cs, inputs)
				cpu1, _ := cputime.Process()
				t.Logf("%s: %s synthesis %.2f s, %.1f CPU s", size, what, time.Since(begin).Seconds(), (cpu1 - cpu0).Seconds())
			}
			full := synth.NewProvingAssignment(hint)
			timed("full", full, func() int { return len(full.Inputs) })
			wit := synth.NewWitnessAssignment(hint)
			timed("witness-only", wit, func() int { return len(wit.Inputs) })
			equal := func(how string, pad int, abc ...[]fr.Element) {
				t.Helper()
				require.Equal(t, ms.Rows(), len(full.A))
				for i, want := range [][]fr.Element{full.A, full.B, full.C} {
					got := abc[i]
					require.Len(t, got, ms.Rows()+pad)
					r := -1
					for k := range want {
						if got[k] != want[k] {
							r = k
							break
						}
					}
					require.Equal(t, -1, r, "%s: %c·w differs first at row %d", how, "ABC"[i], r)
					for k, x := range got[ms.Rows():] {
						require.True(t, x.IsZero(), "%s: %c's padding at %d is not zero", how, "ABC"[i], k)
					}
				}
			}

			begin = time.Now()
			a, b, c, bytes, err := groth16.EvalOnDevice(0, ms, wit.Inputs, wit.Aux)
			require.NoError(t, err)
			t.Logf("%s: %d rows, matrices %d bytes on the device, upload and evaluation %v", size, ms.Rows(), bytes, time.Since(begin))
			equal("resident", 0, a, b, c)
			small := min(ms.Rows()/7+1, groth16.SpMVChunkRows) // within the device's slots
			for _, lim := range []struct{ rows, terms int }{{0, 0}, {small, min(3*small, groth16.SpMVChunkTerms)}} {
				how := "streamed in small chunks"
				if lim.rows == 0 {
					lim.rows, lim.terms, how = groth16.SpMVChunkRows, groth16.SpMVChunkTerms, "streamed"
				}
				begin = time.Now()
				a, b, c, err := groth16.EvalStreamedOnDevice(0, ms, wit.Inputs, wit.Aux, lim.rows, lim.terms, 5)
				require.NoError(t, err)
				t.Logf("%s: %s (chunks of %d rows, %d terms): pinned, evaluated and read back in %v", size, how, lim.rows, lim.terms, time.Since(begin))
				equal(how, 5, a, b, c)
			}
		})
	}
}
