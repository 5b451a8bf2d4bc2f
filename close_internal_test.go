package gpuc2

import (
	"context"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// Close called from a Progress callback, with the callback's proof in
// flight, returns (it used to wait for that proof, which waited for the
// callback), and the proof returns ErrClosed.
func TestCloseFromProgressCallback(t *testing.T) {
	ctx := context.Background()
	spt := abi.RegisteredSealProof_StackedDrg2KiBV1_1
	miner, sector := abi.ActorID(1000), abi.SectorNumber(5)
	c1, err := porep.SyntheticC1(ctx, spt, miner, sector, [32]byte{5})
	require.NoError(t, err)
	raw, err := c1.EncodeJSON()
	require.NoError(t, err)

	synthesizing := make(chan struct{})
	old := partitionCircuit
	partitionCircuit = func(*porep.C1, int) (synth.Circuit, error) {
		return heldCircuit{synthesizing: synthesizing, release: make(chan struct{})}, nil
	}
	defer func() { partitionCircuit = old }()

	closed := make(chan error, 1)
	var p *Prover
	p, err = New(ctx, Config{ParamsDir: t.TempDir(), Backend: BackendCPU, SkipSelfVerify: true,
		Progress: func(e Progress) {
			if e.Stage == StageSynthesis {
				closed <- p.Close()
				// No report after Close returns: this one is the last.
			}
		},
	})
	require.NoError(t, err)
	p.keys.standIn(spt) // the proof never gets to proving

	proved := make(chan error, 1)
	go func() {
		_, err := p.ProveSeal(ctx, SealRequest{C1: raw, Sector: sector, Miner: miner})
		proved <- err
	}()
	select {
	case err := <-closed:
		assert.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("Close called from a Progress callback did not return")
	}
	select {
	case err := <-proved:
		assert.ErrorIs(t, err, ErrClosed)
	case <-time.After(30 * time.Second):
		t.Fatal("the proof did not return after Close")
	}
	_, err = p.ProveSeal(ctx, SealRequest{C1: raw, Sector: sector, Miner: miner})
	assert.ErrorIs(t, err, ErrClosed)
}

// standIn loads an empty key for t, for tests whose proofs never get to
// proving: it spares the minutes of a TEST-ONLY setup.
func (c *keyCache) standIn(t abi.RegisteredSealProof) {
	c.mu.Lock()
	c.byType[sealKind(t)] = &keyEntry{}
	c.mu.Unlock()
}
