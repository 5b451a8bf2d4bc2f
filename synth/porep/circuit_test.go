package porep_test

import (
	"context"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// A synthetic C1's partition circuits have the public inputs rust-fil-proofs
// derives and are satisfied.
func TestCircuitFromSyntheticC1(t *testing.T) {
	proofs := []abi.RegisteredSealProof{abi.RegisteredSealProof_StackedDrg2KiBV1, abi.RegisteredSealProof_StackedDrg2KiBV1_1}
	if !testing.Short() {
		proofs = append(proofs, abi.RegisteredSealProof_StackedDrg8MiBV1_1)
	}
	for _, p := range proofs {
		t.Run(porep.ProofName(p), func(t *testing.T) {
			c1, err := porep.SyntheticC1(context.Background(), p, testMiner, testSector, testSeed)
			require.NoError(t, err)
			for k := range c1.VanillaProofs {
				c, err := c1.Circuit(k)
				require.NoError(t, err)
				want, err := porep.PublicInputs(c1, testMiner, testSector, k)
				require.NoError(t, err)
				assert.Equal(t, want, c.Witness.PublicInputs())
				cs := synth.NewChecker()
				require.NoError(t, c.Synthesize(context.Background(), cs))
				require.NoError(t, cs.Err())
				got := cs.Stats()
				assert.Equal(t, 1+len(want), got.Inputs)
			}
		})
	}
}

func TestCircuitRejectsBadPartition(t *testing.T) {
	c1, err := porep.SyntheticC1(context.Background(), abi.RegisteredSealProof_StackedDrg2KiBV1_1, testMiner, testSector, testSeed)
	require.NoError(t, err)
	_, err = c1.Circuit(1)
	assert.ErrorIs(t, err, porep.ErrBadC1)
	c1.VanillaProofs[0][1].ReplicaColumnProofs.DRGParents[2].Column.Rows = nil
	_, err = c1.Circuit(0)
	assert.ErrorIs(t, err, porep.ErrBadC1)
}
