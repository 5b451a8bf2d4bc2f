package pipeline_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
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
	peak       int // the most vectors live at once
	fail       bool
	failIn     int // > 0: the failIn-th Alloc from now fails
	wrongFrees int
}

func (m *fakeVectors) Alloc(n int) ([]fr.Element, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failIn > 0 {
		m.failIn--
		if m.failIn == 0 {
			return nil, errors.New("fakeVectors: no memory")
		}
	}
	if m.fail {
		return nil, errors.New("fakeVectors: no memory")
	}
	v := make([]fr.Element, 0, n)
	if m.live == nil {
		m.live = map[*fr.Element]int{}
	}
	m.live[unsafe.SliceData(v)] = n
	m.allocs++
	m.peak = max(m.peak, len(m.live))
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

// peakLive is the most vectors that were live at once.
func (m *fakeVectors) peakLive() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.peak
}

// vectorsProver checks whether each partition is witness-only and whether
// its vectors (aux; and a, b, c when full) lie in mem's memory.
type vectorsProver struct {
	mem    *fakeVectors
	mu     sync.Mutex
	inMem  int
	onHeap int
	kinds  map[bool]int // witness-only → partitions
}

func (f *vectorsProver) Prove(_ context.Context, _ *groth16.ProvingKey, w *synth.ProvingAssignment, _ ...groth16.ProveOption) (*groth16.Proof, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.kinds == nil {
		f.kinds = map[bool]int{}
	}
	f.kinds[w.WitnessOnly()]++
	vs := [][]fr.Element{w.Aux}
	if !w.WitnessOnly() {
		vs = append(vs, w.A, w.B, w.C)
	}
	in := 0
	for _, v := range vs {
		if f.mem.holds(v) {
			in++
		}
	}
	switch in {
	case len(vs):
		f.inMem++
	case 0:
		f.onHeap++
	}
	return &groth16.Proof{}, nil
}

// A pipeline with a VectorMemory synthesizes partitions into its vectors
// (a witness-only one's aux; a full one's aux, a, b, c), reuses them
// through the spares, frees those the budget lets go of (a failed
// synthesis, a trimmed spare, Close) and falls back to the heap when the
// memory fails.
func TestPipelineVectorMemory(t *testing.T) {
	for _, witnessOnly := range []bool{true, false} {
		name := map[bool]string{true: "witness-only", false: "full"}[witnessOnly]
		t.Run(name, func(t *testing.T) { testPipelineVectorMemory(t, witnessOnly) })
	}
}

func testPipelineVectorMemory(t *testing.T, witnessOnly bool) {
	c, err := chain(0)
	require.NoError(t, err)
	probe := synth.NewProvingAssignment(synth.Sizes{})
	require.NoError(t, c.Synthesize(context.Background(), probe))
	exact := synth.Sizes{Inputs: len(probe.Inputs), Aux: len(probe.Aux), Rows: probe.NumRows()}
	var matrices *pce.Matrices
	perAssignment := 4 // vectors
	if witnessOnly {
		exact.Rows = 0
		matrices = &pce.Matrices{}
		perAssignment = 1
	}

	mem := &fakeVectors{}
	prover := &vectorsProver{mem: mem}
	p, _ := newPipeline(t, pipeline.Config{Synthesis: 2, HostBudget: 3 * partitionBytes, Vectors: mem,
		Provers: []pipeline.Prover{{Device: 0, Prover: prover}}})
	run := func(n int, circuit func(int) (synth.Circuit, error)) error {
		j, err := p.Enqueue(context.Background(), pipeline.Spec{Partitions: n, Circuit: circuit, Shape: exact,
			Bytes: partitionBytes, Matrices: matrices})
		require.NoError(t, err)
		return result(t, collect(j))
	}
	spares := func() int { return perAssignment * int(p.Stats().Budget.Spare/partitionBytes) }

	for range 3 {
		require.NoError(t, run(4, chain))
	}
	live, allocs := mem.count()
	assert.Equal(t, 12, prover.inMem, "every partition was synthesized into the vector memory")
	// The bound that matters: the vectors live at once never exceed the
	// budget's partitions. How many were allocated in all depends on when
	// each partition gave its bytes back (a spare kept, or dropped for a
	// new reservation): issue 44 saw 16 here under -race, never more live.
	assert.LessOrEqual(t, mem.peakLive(), 3*perAssignment, "live vectors within the budget's partitions")
	// Each run after the first starts with the spare the one before left
	// (the last partition released finds room for it): reused, not made.
	assert.LessOrEqual(t, allocs, 10*perAssignment, "the spares' vectors are reused")
	assert.Equal(t, live, spares(), "the live vectors are the spares'")

	require.Error(t, run(1, func(int) (synth.Circuit, error) { return panicky{}, nil }))
	live2, _ := mem.count()
	assert.Equal(t, live2, spares(), "the half-built one is freed, not kept")

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
	mem.failIn = perAssignment // the last vector fails: those before it are freed
	mem.mu.Unlock()
	p.Budget().DropSpares(nil)
	require.NoError(t, run(1, chain))
	assert.Equal(t, 3, prover.onHeap, "an assignment whose last vector fails is on the heap")
	live4, _ := mem.count()
	assert.Zero(t, live4, "and its other vectors are freed")

	p.Budget().DropSpares(nil)
	require.NoError(t, run(2, chain))
	p.Close()
	live, _ = mem.count()
	assert.Zero(t, live, "Close frees every vector")
	assert.Zero(t, mem.wrongFrees, "only vectors it handed out are freed")
	assert.Equal(t, map[bool]int{witnessOnly: prover.inMem + prover.onHeap}, prover.kinds)
}

// PrepareWitnesses makes pinned witnesses ahead, as many as the budget
// keeps spares (one per assignment the workers hold at once) and has room
// for, and the
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
	prover := &vectorsProver{mem: mem}
	p, _ := newPipeline(t, pipeline.Config{Synthesis: 2, HostBudget: 3 * partitionBytes, Vectors: mem,
		Provers: []pipeline.Prover{{Device: 0, Prover: prover}}})
	assert.Equal(t, 3, p.PrepareWitnesses(ctx, exact, partitionBytes, 5), "as many as the budget has room for")
	assert.Zero(t, p.PrepareWitnesses(ctx, exact, partitionBytes, 5), "the spares are there")
	live, allocs := mem.count()
	assert.Equal(t, 3, live)
	assert.Equal(t, 3*int64(partitionBytes), p.Stats().Budget.Spare)

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

// gatedProver holds each batch's first partition until the workers hold
// want assignments (synthesized ones waiting for it), then proves all.
type gatedProver struct {
	vectorsProver
	want  int
	first chan struct{} // a token per batch
}

func (g *gatedProver) Prove(ctx context.Context, pk *groth16.ProvingKey, w *synth.ProvingAssignment, opts ...groth16.ProveOption) (*groth16.Proof, error) {
	select {
	case <-g.first:
		deadline := time.Now().Add(5 * time.Second)
		for live, _ := g.mem.count(); live < g.want && time.Now().Before(deadline); live, _ = g.mem.count() {
			time.Sleep(time.Millisecond)
		}
	default:
	}
	return g.vectorsProver.Prove(ctx, pk, w, opts...)
}

// A pipeline that drained keeps every assignment its workers held at once
// as a spare, so the next batch allocates none: a pinned 32 GiB witness
// took seconds to allocate on an H100 host, holding up the CUDA calls
// beside it (pipeline.go's maxAssignments). Before, it kept one per
// synthesis worker and allocated the rest again.
func TestPipelineRefillsFromSpares(t *testing.T) {
	mem := &fakeVectors{}
	prover := &gatedProver{vectorsProver: vectorsProver{mem: mem}, want: 3, first: make(chan struct{}, 1)}
	p, _ := newPipeline(t, pipeline.Config{Synthesis: 2, HostBudget: 10 * partitionBytes, Vectors: mem,
		Provers: []pipeline.Prover{{Device: 0, Prover: prover}}})
	batch := func() {
		prover.first <- struct{}{}
		j, err := p.Enqueue(context.Background(), pipeline.Spec{Partitions: 6, Circuit: chain, Shape: synth.Sizes{Aux: 8},
			Bytes: partitionBytes, Matrices: &pce.Matrices{}})
		require.NoError(t, err)
		require.NoError(t, result(t, collect(j)))
	}
	batch()
	_, first := mem.count()
	require.Equal(t, 3, mem.peakLive(), "two synthesized and one proving")
	batch()
	live, second := mem.count()
	assert.Equal(t, first, second, "the second batch took the spares")
	assert.Equal(t, 3, live)
	assert.Equal(t, 12, prover.kinds[true], "every partition proved, witness-only")
}
