package gpuc2_test

import (
	"context"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/internal/par"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// panickyCircuit synthesizes its partition for real, but one of the
// goroutines it starts first panics, as a bug in a gadget would.
type panickyCircuit struct{ real synth.Circuit }

func (c panickyCircuit) Synthesize(ctx context.Context, cs synth.ConstraintSystem) error {
	if err := par.Range(ctx, 64, 1, func(lo, hi int) error {
		if lo == 0 {
			var m map[int]int
			m[lo] = hi // a nil-map write: the runtime panics
		}
		return nil
	}); err != nil {
		return err
	}
	return c.real.Synthesize(ctx, cs)
}

// A circuit that panics mid-synthesis, on a goroutine of the library, fails
// that proof with ErrInternal; the Prover goes on and proves the next sector.
func TestPanicInSynthesisFailsOneProof(t *testing.T) {
	needFacadeProofs(t)
	ctx := context.Background()
	miner, bad := abi.ActorID(1000), abi.SectorNumber(66)
	badC1, raw := syntheticC1JSON(t, miner, bad)
	restore := gpuc2.SetPartitionCircuitForTest(func(c1 *porep.C1, k int) (synth.Circuit, error) {
		c, err := c1.Circuit(k)
		if err != nil || !c1.ReplicaID.Equal(&badC1.ReplicaID) {
			return c, err
		}
		return panickyCircuit{real: c}, nil
	})
	defer restore()
	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: t.TempDir(), TestParamsDir: testParamsDir(t), Backend: gpuc2.BackendCPU})
	require.NoError(t, err)
	defer p.Close()

	_, err = p.SealCommitPhase2(ctx, raw, bad, miner)
	require.ErrorIs(t, err, gpuc2.ErrInternal)
	var pe *par.PanicError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, string(pe.Stack), "panickyCircuit", "the stack names the culprit")

	good := abi.SectorNumber(67)
	_, raw = syntheticC1JSON(t, miner, good)
	res, err := p.ProveSeal(ctx, gpuc2.SealRequest{C1: raw, Sector: good, Miner: miner})
	require.NoError(t, err)
	ok, err := p.VerifySeal(res.VerifyInfo)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Zero(t, p.Status().ProofsInFlight)
}
