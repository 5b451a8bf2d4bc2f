package pipeline

import (
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/synth"
)

// VectorMemory allocates the aux vectors of witness-only assignments
// (Spec.Matrices) outside the Go heap: groth16.PinnedVectors, which a GPU
// prover uploads by one DMA. Config.Witness.
type VectorMemory interface {
	// Alloc returns a vector of length 0 and capacity n.
	Alloc(n int) ([]fr.Element, error)
	// Free frees a vector Alloc returned, once nothing reads it.
	Free(v []fr.Element) error
}

// witnessMemory makes the witness-only assignments of the pipeline, their
// aux in mem when set (on the heap when mem is nil or fails), and frees
// that memory when the pipeline lets go of the assignment: a spare
// dropped, a failed synthesis, Close. The assignment's own Aux may have
// moved to the heap, so the vector is remembered apart.
type witnessMemory struct {
	mem    VectorMemory
	log    *slog.Logger
	warned atomic.Bool // a failed Alloc was logged

	mu   sync.Mutex
	held map[*synth.ProvingAssignment][]fr.Element
}

func newWitnessMemory(mem VectorMemory, log *slog.Logger) *witnessMemory {
	return &witnessMemory{mem: mem, log: log, held: map[*synth.ProvingAssignment][]fr.Element{}}
}

// assignment returns a new witness-only assignment of shape, and whether
// its aux is in mem.
func (m *witnessMemory) assignment(shape synth.Sizes) (*synth.ProvingAssignment, bool) {
	if m.mem == nil || shape.Aux <= 0 {
		return synth.NewWitnessAssignment(shape), false
	}
	aux, err := m.mem.Alloc(shape.Aux)
	if err != nil { // the heap is slower to upload from, not wrong
		if !m.warned.Swap(true) {
			m.log.Warn("gpuc2: witnesses on the heap: their vector memory failed (said once)", "err", err)
		}
		return synth.NewWitnessAssignment(shape), false
	}
	w := synth.NewWitnessAssignmentIn(shape, aux)
	m.mu.Lock()
	m.held[w] = aux
	m.mu.Unlock()
	return w, true
}

// drop frees w's vector, if it has one from mem; nothing may use w after.
// A failed synthesis's too: Circuit.Synthesize returns only once its
// goroutines have ended (par, errgroup), so none writes the freed memory.
func (m *witnessMemory) drop(w *synth.ProvingAssignment) {
	if w == nil {
		return
	}
	m.mu.Lock()
	aux, ok := m.held[w]
	delete(m.held, w)
	m.mu.Unlock()
	if ok {
		if err := m.mem.Free(aux); err != nil {
			m.log.Error("gpuc2: freeing a witness's vector memory", "err", err)
		}
	}
}
