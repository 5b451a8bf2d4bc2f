package groth16_test

import (
	"context"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/pce"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// On the GPU, a, b, c computed from the recorded matrices and a
// witness-only synthesis equal the prover's full synthesis exactly, for the
// 2 KiB and 8 MiB PoRep partitions (issue 18).
func TestDeviceMatricesEqualSynthesis(t *testing.T) {
	if !groth16.CUDAAvailable() {
		t.Skip("no native CUDA library")
	}
	for _, size := range []string{"2KiB", "8MiB"} {
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
			rec := synth.NewRecorder()
			synthesize(rec, func() int { return len(rec.Inputs) })
			ms, err := pce.Compile(rec)
			require.NoError(t, err)
			full := synth.NewProvingAssignment(hint)
			synthesize(full, func() int { return len(full.Inputs) })
			wit := synth.NewWitnessAssignment(hint)
			synthesize(wit, func() int { return len(wit.Inputs) })

			begin := time.Now()
			a, b, c, bytes, err := groth16.EvalOnDevice(0, ms, wit.Inputs, wit.Aux)
			require.NoError(t, err)
			t.Logf("%s: %d rows, matrices %d bytes on the device, upload and evaluation %v", size, ms.Rows(), bytes, time.Since(begin))
			require.Equal(t, ms.Rows(), len(full.A))
			for i, x := range [][2][]fr.Element{{a, full.A}, {b, full.B}, {c, full.C}} {
				r := -1
				for k := range x[0] {
					if x[0][k] != x[1][k] {
						r = k
						break
					}
				}
				require.Equal(t, -1, r, "%c·w differs first at row %d", "ABC"[i], r)
			}
		})
	}
}
