package pipeline_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/pipeline"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/pce"
)

// fakeVectors is a VectorMemory that records what it hands out.
type fakeVectors struct {
	mu         sync.Mutex
	live       map[*fr.Element]int // start → capacity
	allocs     int
	fail       bool
	wrongFrees int
}

func (m *fakeVectors) Alloc(n int) ([]fr.Element, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail {
		return nil, errors.New("fakeVectors: no memory")
	}
	v := make([]fr.Element, 0, n)
	if m.live == nil {
		m.live = map[*fr.Element]int{}
	}
	m.live[unsafe.SliceData(v)] = n
	m.allocs++
	return v, nil
}

func (m *fakeVectors) Free(v []fr.Element) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.live[unsafe.SliceData(v)]; !ok {
		m.wrongFrees++
		return nil
	}
	delete(m.live, unsafe.SliceData(v))
	return nil
}

// holds reports whether v lies inside a live vector.
func (m *fakeVectors) holds(v []fr.Element) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.live[unsafe.SliceData(v)] >= cap(v) && len(v) > 0
}

func (m *fakeVectors) count() (live, allocs int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.live), m.allocs
}

// witnessProver checks that each partition is witness-only and whether its
// aux lies in mem's memory.
type witnessProver struct {
	mem     *fakeVectors
	mu      sync.Mutex
	inMem   int
	onHeap  int
	notOnly int
}

func (f *witnessProver) Prove(_ context.Context, _ *groth16.ProvingKey, w *synth.ProvingAssignment, _ ...groth16.ProveOption) (*groth16.Proof, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case !w.WitnessOnly():
		f.notOnly++
	case f.mem.holds(w.Aux):
		f.inMem++
	default:
		f.onHeap++
	}
	return &groth16.Proof{}, nil
}

// A pipeline with a VectorMemory synthesizes witness-only partitions into
// its vectors, reuses them through the spares, frees those the budget lets
// go of (a failed synthesis, a trimmed spare, Close) and falls back to the
// heap when the memory fails.
func TestPipelineWitnessMemory(t *testing.T) {
	c, err := chain(0)
	require.NoError(t, err)
	probe := synth.NewWitnessAssignment(synth.Sizes{})
	require.NoError(t, c.Synthesize(context.Background(), probe))
	exact := synth.Sizes{Inputs: len(probe.Inputs), Aux: len(probe.Aux)}

	mem := &fakeVectors{}
	prover := &witnessProver{mem: mem}
	p, _ := newPipeline(t, pipeline.Config{Synthesis: 2, HostBudget: 3 * partitionBytes, Witness: mem,
		Provers: []pipeline.Prover{{Device: 0, Prover: prover}}})
	witnessSpec := func(n int, circuit func(int) (synth.Circuit, error)) pipeline.Spec {
		return pipeline.Spec{Partitions: n, Circuit: circuit, Shape: exact, Bytes: partitionBytes, Matrices: &pce.Matrices{}}
	}
	run := func(n int, circuit func(int) (synth.Circuit, error)) error {
		j, err := p.Enqueue(context.Background(), witnessSpec(n, circuit))
		require.NoError(t, err)
		return result(t, collect(j))
	}

	for range 3 {
		require.NoError(t, run(4, chain))
	}
	live, allocs := mem.count()
	assert.Equal(t, 12, prover.inMem, "every witness was synthesized into the vector memory")
	assert.LessOrEqual(t, allocs, 3, "the spares' vectors are reused: at most the budget's partitions")
	assert.Equal(t, live, int(p.Stats().Budget.Spare/partitionBytes), "the live vectors are the spares'")

	require.Error(t, run(1, func(int) (synth.Circuit, error) { return panicky{}, nil }))
	live2, _ := mem.count()
	assert.Equal(t, live2, int(p.Stats().Budget.Spare/partitionBytes), "the half-built one is freed, not kept")

	p.Budget().SetResident(3 * partitionBytes) // no room: the spares are trimmed
	live3, _ := mem.count()
	assert.Zero(t, live3, "trimmed spares are freed")
	p.Budget().SetResident(0)

	mem.mu.Lock()
	mem.fail = true
	mem.mu.Unlock()
	p.Budget().DropSpares(nil)
	require.NoError(t, run(2, chain))
	assert.Equal(t, 2, prover.onHeap, "a failing memory falls back to the heap")

	mem.mu.Lock()
	mem.fail = false
	mem.mu.Unlock()
	p.Budget().DropSpares(nil)
	require.NoError(t, run(2, chain))
	p.Close()
	live, _ = mem.count()
	assert.Zero(t, live, "Close frees every vector")
	assert.Zero(t, mem.wrongFrees, "only vectors it handed out are freed")
	assert.Zero(t, prover.notOnly)
}

// PrepareWitnesses makes pinned witnesses ahead, as many as the budget
// keeps spares (one per synthesis worker) and has room for, and the
// partitions then take them instead of allocating their own; nothing
// without a VectorMemory, when it fails, or after Close, which frees them.
func TestPipelinePrepareWitnesses(t *testing.T) {
	ctx := context.Background()
	c, err := chain(0)
	require.NoError(t, err)
	probe := synth.NewWitnessAssignment(synth.Sizes{})
	require.NoError(t, c.Synthesize(context.Background(), probe))
	exact := synth.Sizes{Inputs: len(probe.Inputs), Aux: len(probe.Aux)}

	heap, _ := newPipeline(t, pipeline.Config{Synthesis: 2, HostBudget: 3 * partitionBytes})
	assert.Zero(t, heap.PrepareWitnesses(ctx, exact, partitionBytes, 2), "no vector memory")

	mem := &fakeVectors{}
	prover := &witnessProver{mem: mem}
	p, _ := newPipeline(t, pipeline.Config{Synthesis: 2, HostBudget: 3 * partitionBytes, Witness: mem,
		Provers: []pipeline.Prover{{Device: 0, Prover: prover}}})
	assert.Equal(t, 2, p.PrepareWitnesses(ctx, exact, partitionBytes, 5), "one spare per synthesis worker")
	assert.Zero(t, p.PrepareWitnesses(ctx, exact, partitionBytes, 5), "the spares are there")
	live, allocs := mem.count()
	assert.Equal(t, 2, live)
	assert.Equal(t, 2*int64(partitionBytes), p.Stats().Budget.Spare)

	j, err := p.Enqueue(context.Background(), pipeline.Spec{Partitions: 2, Circuit: chain, Shape: exact,
		Bytes: partitionBytes, Matrices: &pce.Matrices{}})
	require.NoError(t, err)
	require.NoError(t, result(t, collect(j)))
	_, after := mem.count()
	assert.Equal(t, allocs, after, "the partitions took the prepared witnesses")
	assert.Equal(t, 2, prover.inMem)

	p.Budget().DropSpares(nil)
	p.Budget().SetResident(2*partitionBytes + 1) // room for no spare
	assert.Zero(t, p.PrepareWitnesses(ctx, exact, partitionBytes, 2), "no room in the budget")
	p.Budget().SetResident(0)
	mem.mu.Lock()
	mem.fail = true
	mem.mu.Unlock()
	assert.Zero(t, p.PrepareWitnesses(ctx, exact, partitionBytes, 2), "a failing memory makes none")
	mem.mu.Lock()
	mem.fail = false
	mem.mu.Unlock()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	assert.Zero(t, p.PrepareWitnesses(cancelled, exact, partitionBytes, 2), "ctx ended")
	assert.Equal(t, 1, p.PrepareWitnesses(ctx, exact, partitionBytes, 1))
	p.Close()
	assert.Zero(t, p.PrepareWitnesses(ctx, exact, partitionBytes, 2), "after Close")
	live, _ = mem.count()
	assert.Zero(t, live, "Close freed the prepared one")
	assert.Zero(t, mem.wrongFrees)
}
