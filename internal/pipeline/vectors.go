package pipeline

import (
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/synth"
)

// VectorMemory allocates the vectors of the pipeline's assignments (a
// witness-only one's aux; a full one's aux, a, b and c) outside the Go
// heap: gpu.Devices.Vectors, which a GPU prover uploads by one DMA.
// Config.Vectors.
type VectorMemory interface {
	// Alloc returns a vector of length 0 and capacity n.
	Alloc(n int) ([]fr.Element, error)
	// Free frees a vector Alloc returned, once nothing reads it.
	Free(v []fr.Element) error
}

// vectorMemory makes the assignments of the pipeline, their vectors in mem
// when set (on the heap when mem is nil or fails), and frees that memory
// when the pipeline lets go of the assignment: a spare dropped, a failed
// synthesis, Close. The assignment's own slices may have moved to the
// heap, so the vectors are remembered apart.
type vectorMemory struct {
	mem    VectorMemory
	log    *slog.Logger
	warned atomic.Bool // a failed Alloc was logged

	mu   sync.Mutex
	held map[*synth.ProvingAssignment][][]fr.Element
}

func newVectorMemory(mem VectorMemory, log *slog.Logger) *vectorMemory {
	return &vectorMemory{mem: mem, log: log, held: map[*synth.ProvingAssignment][][]fr.Element{}}
}

// assignment returns a new assignment of shape, witness-only or full, and
// whether its vectors are in mem.
func (m *vectorMemory) assignment(shape synth.Sizes, witnessOnly bool) (*synth.ProvingAssignment, bool) {
	heap := func() *synth.ProvingAssignment {
		if witnessOnly {
			return synth.NewWitnessAssignment(shape)
		}
		return synth.NewProvingAssignment(shape)
	}
	if m.mem == nil || shape.Aux <= 0 || (!witnessOnly && shape.Rows <= 0) {
		return heap(), false
	}
	sizes := []int{shape.Aux} // aux, then a, b, c
	if !witnessOnly {
		sizes = append(sizes, shape.Rows, shape.Rows, shape.Rows)
	}
	vs, err := m.alloc(sizes)
	if err != nil { // the heap is slower to upload from, not wrong
		if !m.warned.Swap(true) {
			m.log.Warn("gpuc2: assignments on the heap: their vector memory failed (said once)", "err", err)
		}
		return heap(), false
	}
	var w *synth.ProvingAssignment
	if witnessOnly {
		w = synth.NewWitnessAssignmentIn(shape, vs[0])
	} else {
		w = synth.NewProvingAssignmentIn(shape, synth.Vectors{Aux: vs[0], A: vs[1], B: vs[2], C: vs[3]})
	}
	m.mu.Lock()
	m.held[w] = vs
	m.mu.Unlock()
	return w, true
}

// alloc allocates a vector of each size, or none.
func (m *vectorMemory) alloc(sizes []int) ([][]fr.Element, error) {
	var vs [][]fr.Element
	for _, n := range sizes {
		v, err := m.mem.Alloc(n)
		if err != nil {
			return nil, errors.Join(err, m.free(vs))
		}
		vs = append(vs, v)
	}
	return vs, nil
}

func (m *vectorMemory) free(vs [][]fr.Element) error {
	var errs []error
	for _, v := range vs {
		errs = append(errs, m.mem.Free(v))
	}
	return errors.Join(errs...)
}

// drop frees w's vectors, if it has them from mem; nothing may use w
// after. A failed synthesis's too: Circuit.Synthesize returns only once
// its goroutines have ended (par, errgroup), so none writes the freed
// memory.
func (m *vectorMemory) drop(w *synth.ProvingAssignment) {
	if w == nil {
		return
	}
	m.mu.Lock()
	vs, ok := m.held[w]
	delete(m.held, w)
	m.mu.Unlock()
	if ok {
		if err := m.free(vs); err != nil {
			m.log.Error("gpuc2: freeing an assignment's vector memory", "err", err)
		}
	}
}
