package gpuc2

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/testcircuit"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// Progress names each phase of a partition's proof as it starts, once,
// between its first StageProving report and StageProved, in order. The
// partition's circuit is a small one with its own key, so the CPU proves
// it in milliseconds (the proof is not a valid seal: self-verify is off).
func TestProgressPhases(t *testing.T) {
	ctx := context.Background()
	spt := abi.RegisteredSealProof_StackedDrg2KiBV1_1
	miner, sector := abi.ActorID(1000), abi.SectorNumber(6)
	c1, err := porep.SyntheticC1(ctx, spt, miner, sector, [32]byte{6})
	require.NoError(t, err)
	raw, err := c1.EncodeJSON()
	require.NoError(t, err)

	small := &testcircuit.Chain{N: 24, Seed: 1, Inputs: 1}
	pk, err := groth16.Setup(ctx, small, rand.NewChaCha8([32]byte{6}))
	require.NoError(t, err)
	old := partitionCircuit
	partitionCircuit = func(*porep.C1, int) (synth.Circuit, error) { return small, nil }
	defer func() { partitionCircuit = old }()

	var mu sync.Mutex
	var got []string
	p, err := New(ctx, Config{ParamsDir: t.TempDir(), Backend: BackendCPU, SkipSelfVerify: true,
		ConstraintMatrices: MatricesOff, // the stand-in circuit is not the proof type's
		Progress: func(e Progress) {
			mu.Lock()
			defer mu.Unlock()
			s := string(e.Stage)
			if e.Phase != "" {
				s += " " + e.Phase
			}
			got = append(got, s)
		},
	})
	require.NoError(t, err)
	defer p.Close()
	p.keys.mu.Lock()
	p.keys.byType[sealKind(spt)] = &keyEntry{pk: pk}
	p.keys.mu.Unlock()

	_, err = p.ProveSeal(ctx, SealRequest{C1: raw, Sector: sector, Miner: miner})
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"queued", "scheduled", "synthesis", "proving", "proving H", "proving msm_h", "proving msm_l",
		"proving msm_a", "proving msm_b_g1", "proving msm_b_g2", "proved"}, got)
}
