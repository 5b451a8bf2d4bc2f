package gpuc2

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// A partition the dispatcher has taken, with a synthesis worker free, and
// that waits for host memory is counted: queued, and waiting for memory.
// Two 2 KiB proofs under a budget of one partition: the first's partition is
// held in synthesis (by its circuit), the second's waits in the
// budget's reservation.
func TestStatusCountsPartitionWaitingForMemory(t *testing.T) {
	ctx := context.Background()
	spt := abi.RegisteredSealProof_StackedDrg2KiBV1_1
	sh, err := newShape(sealKind(spt))
	require.NoError(t, err)
	miner := abi.ActorID(1000)
	raws := make([][]byte, 2)
	for i := range raws {
		c1, err := porep.SyntheticC1(ctx, spt, miner, abi.SectorNumber(i+1), [32]byte{2})
		require.NoError(t, err)
		raws[i], err = c1.EncodeJSON()
		require.NoError(t, err)
	}

	synthesizing := make(chan struct{}) // proof 1's partition is in synthesis
	release := make(chan struct{})      // lets it go on
	queued := make(chan struct{})       // proof 2's partition is queued
	p, err := New(ctx, Config{
		ParamsDir: t.TempDir(), Backend: BackendCPU, SkipSelfVerify: true,
		HostMemoryBudget:     sh.bytes + sh.bytes/2, // one partition at a time
		SynthesisConcurrency: 2,                     // a worker is free: only memory holds the second
		Progress: func(e Progress) {
			if e.Stage == StageQueued && e.Sector == 2 {
				close(queued)
			}
		},
	})
	require.NoError(t, err)
	defer p.Close()
	first, err := porep.ParseC1(raws[0])
	require.NoError(t, err)
	old := partitionCircuit
	partitionCircuit = func(c1 *porep.C1, k int) (synth.Circuit, error) {
		if !c1.ReplicaID.Equal(&first.ReplicaID) {
			return old(c1, k)
		}
		return heldCircuit{synthesizing: synthesizing, release: release}, nil
	}
	defer func() { partitionCircuit = old }()
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	defer unblock() // before Close, should the test stop early
	// Neither proof gets as far as proving: a stand-in for the parameters
	// spares the minutes of a 2 KiB TEST-ONLY setup.
	p.keys.standIn(spt)

	ctxs := make([]context.Context, 2)
	cancels := make([]context.CancelFunc, 2)
	errs := make([]chan error, 2)
	for i := range ctxs {
		ctxs[i], cancels[i] = context.WithCancel(ctx)
		defer cancels[i]()
		errs[i] = make(chan error, 1)
	}
	prove := func(i int) {
		_, err := p.ProveSeal(ctxs[i], SealRequest{C1: raws[i], Sector: abi.SectorNumber(i + 1), Miner: miner,
			Label: fmt.Sprintf("job-%d", i+1), Priority: Priority(i)})
		errs[i] <- err
	}
	wait := func(ch <-chan struct{}, what string) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(30 * time.Second):
			t.Fatal(what)
		}
	}
	go prove(0)
	wait(synthesizing, "proof 1's partition never reached synthesis")
	go prove(1)
	wait(queued, "proof 2's partition was never queued")
	require.Eventually(t, func() bool { return p.Status().PartitionsWaitingForMemory == 1 }, 10*time.Second, time.Millisecond,
		"the dispatcher never took proof 2's partition")
	s := p.Status()
	assert.Equal(t, 2, s.ProofsInFlight)
	assert.Equal(t, 1, s.PartitionsQueued)
	assert.Equal(t, 1, s.PartitionsWaitingForMemory)
	assert.Equal(t, 1, s.PartitionsSynthesizing)
	assert.Zero(t, s.PartitionsWaitingProver)
	assert.Zero(t, s.PartitionsProving)
	assert.Equal(t, sh.bytes, s.HostReservedBytes, "only the first partition holds memory")
	assert.Equal(t, []ProofStatus{
		{Seq: 1, Label: "job-1", Priority: PriorityNormal, Partitions: 1, Started: 1},
		{Seq: 2, Label: "job-2", Priority: PriorityHigh, Partitions: 1},
	}, s.Proofs)

	// Both cancelled: the waiting reservation gives up, the synthesis stops.
	cancels[1]()
	cancels[0]()
	unblock()
	for i := range errs {
		select {
		case err := <-errs[i]:
			assert.ErrorIs(t, err, context.Canceled, "proof %d", i+1)
		case <-time.After(30 * time.Second):
			t.Fatalf("proof %d did not return after cancellation", i+1)
		}
	}
	s = p.Status()
	assert.Zero(t, s.ProofsInFlight)
	assert.Zero(t, s.PartitionsQueued)
	assert.Zero(t, s.PartitionsWaitingForMemory)
	assert.Zero(t, s.PartitionsSynthesizing)
	assert.Zero(t, s.HostReservedBytes)
	assert.Empty(t, s.Proofs)
	require.NoError(t, p.Close())
}

func TestProofTimingsAdd(t *testing.T) {
	var sum ProofTimings
	one := ProofTimings{Parse: 1, ParamLoad: 2, Wait: 7, Queue: 3, Synthesis: 4, Prove: 5, Verify: 6, Total: 21}
	sum.Add(one)
	sum.Add(one)
	if want := (ProofTimings{Parse: 2, ParamLoad: 4, Wait: 14, Queue: 6, Synthesis: 8, Prove: 10, Verify: 12, Total: 42}); sum != want {
		t.Fatalf("got %+v, want %+v", sum, want)
	}
}

// heldCircuit stays in synthesis until released or cancelled.
type heldCircuit struct{ synthesizing, release chan struct{} }

func (c heldCircuit) Synthesize(ctx context.Context, _ synth.ConstraintSystem) error {
	close(c.synthesizing)
	select {
	case <-c.release:
	case <-ctx.Done():
	}
	return ctx.Err()
}
