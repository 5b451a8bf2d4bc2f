package gpuc2

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/testcircuit"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// A Progress callback that never returns does not hold a call past its
// context (issue 44: a 5 s deadline was still blocked at 60 s): the call
// returns within 100 ms of its deadline, whether the proof finished before
// it (the proof is returned) or not (the deadline's error). The reports
// held back are delivered later, in order, once the callback goes on; none
// starts after Close returns.
func TestStuckProgressCallbackKeepsDeadline(t *testing.T) {
	ctx := context.Background()
	spt := abi.RegisteredSealProof_StackedDrg2KiBV1_1
	miner, sector := abi.ActorID(1000), abi.SectorNumber(7)
	c1, err := porep.SyntheticC1(ctx, spt, miner, sector, [32]byte{7})
	require.NoError(t, err)
	raw, err := c1.EncodeJSON()
	require.NoError(t, err)

	// A small circuit with its own key: the CPU proves a partition in
	// milliseconds (not a valid seal: self-verify is off).
	small := &testcircuit.Chain{N: 24, Seed: 1, Inputs: 1}
	pk, err := groth16.Setup(ctx, small, rand.NewChaCha8([32]byte{7}))
	require.NoError(t, err)
	old := partitionCircuit
	defer func() { partitionCircuit = old }()

	// The context ends at a known point: once the proof is done (its
	// partition synthesized, then a pause longer than its proving), or
	// while its partition is held in synthesis.
	for _, tc := range []struct {
		name     string
		finishes bool // the proof is done before the context ends
	}{
		{"proof done before the context ends", true},
		{"proof cut by the context", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			var ended time.Time
			var endOnce sync.Once
			end := func() { endOnce.Do(func() { ended = time.Now(); cancel() }) }
			partitionCircuit = func(*porep.C1, int) (synth.Circuit, error) {
				if tc.finishes {
					return signalled{small, func() { time.AfterFunc(500*time.Millisecond, end) }}, nil
				}
				h := heldCircuit{synthesizing: make(chan struct{}), release: make(chan struct{})}
				go func() { <-h.synthesizing; end() }()
				return h, nil
			}
			stuck := make(chan struct{}) // the callback returns once it closes
			var mu sync.Mutex
			var got []Progress
			var closed bool
			var afterClose int
			p, err := New(ctx, Config{ParamsDir: t.TempDir(), Backend: BackendCPU, SkipSelfVerify: true,
				ConstraintMatrices: MatricesOff, // the stand-in circuit is not the proof type's
				Progress: func(e Progress) {
					<-stuck
					mu.Lock()
					defer mu.Unlock()
					if closed {
						afterClose++
					}
					got = append(got, e)
				},
			})
			require.NoError(t, err)
			p.keys.mu.Lock()
			p.keys.byType[sealKind(spt)] = &keyEntry{pk: pk}
			p.keys.mu.Unlock()

			_, err = p.ProveSeal(cctx, SealRequest{C1: raw, Sector: sector, Miner: miner})
			late := time.Since(ended)
			if tc.finishes {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, context.Canceled)
			}
			assert.Less(t, late, 100*time.Millisecond, "returned %v after its context ended", late)

			close(stuck) // the held-back reports go out, in order
			require.Eventually(t, func() bool {
				mu.Lock()
				defer mu.Unlock()
				n := 0
				for _, e := range got {
					if e.Stage == StageProved || e.Stage == StageFailed {
						n++
					}
				}
				return n == c1Partitions(t, spt)
			}, 10*time.Second, 5*time.Millisecond, "every partition's last report")
			mu.Lock()
			checkStageOrder(t, got)
			mu.Unlock()

			require.NoError(t, p.Close())
			mu.Lock()
			closed = true
			mu.Unlock()
			time.Sleep(50 * time.Millisecond)
			mu.Lock()
			assert.Zero(t, afterClose, "reports after Close returned")
			mu.Unlock()
		})
	}
}

// signalled is a circuit that calls done once synthesized.
type signalled struct {
	synth.Circuit
	done func()
}

func (c signalled) Synthesize(ctx context.Context, cs synth.ConstraintSystem) error {
	defer c.done()
	return c.Circuit.Synthesize(ctx, cs)
}

func c1Partitions(t *testing.T, spt abi.RegisteredSealProof) int {
	sh, err := newShape(sealKind(spt))
	require.NoError(t, err)
	return sh.partitions
}

// checkStageOrder checks that each partition's reports came in stage order.
func checkStageOrder(t *testing.T, got []Progress) {
	t.Helper()
	rank := map[Stage]int{StageQueued: 0, StageScheduled: 1, StageSynthesis: 2, StageProving: 3, StageProved: 4,
		StageVerified: 5, StageFailed: 6}
	last := map[int]int{}
	for _, e := range got {
		r := rank[e.Stage]
		prev, seen := last[e.Partition]
		assert.True(t, !seen || r >= prev, "partition %d: %s after a later stage", e.Partition, e.Stage)
		last[e.Partition] = r
	}
}
