package post

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/gadgets/boolean"
	"github.com/gpuc2/gpuc2/synth/gadgets/num"
	"github.com/gpuc2/gpuc2/synth/gadgets/por"
	"github.com/gpuc2/gpuc2/synth/gadgets/poseidon"
	"github.com/gpuc2/gpuc2/synth/internal/forkjoin"
	"github.com/gpuc2/gpuc2/synth/merkle"
)

// Sector is one circuit sector's witness (circuit.rs Sector): comm_r, its
// preimage and the challenged leaves with their tree-R paths.
type Sector struct {
	CommR, CommC, CommRLast fr.Element
	Leaves                  []fr.Element
	Paths                   []merkle.Path
	// ID, Index and Challenge name the sector's vanilla proof in a fault
	// (Circuit.Verify): its sector number, its position in the request and
	// the challenge of Leaves[0] (a WinningPoSt's circuit sector is one).
	ID               uint64
	Index, Challenge int
}

// Partition is the witness of one proof: CircuitSectors sectors.
type Partition struct {
	Sectors []Sector
}

// ErrWitness reports a witness whose shape does not fit the parameters.
var ErrWitness = errors.New("post: witness does not fit the circuit")

// WitnessFor is the circuit's witness from checked sector proofs (Check):
// compound.rs circuit() after post_util.rs single_partition_vanilla_proofs.
// A WindowPoSt partition with fewer sectors repeats its last; a
// WinningPoSt's one sector becomes one circuit sector per challenge.
func WitnessFor(p Params, proofs []*SectorProof) (*Partition, error) {
	if err := checkCount(p, len(proofs)); err != nil {
		return nil, err
	}
	w := &Partition{Sectors: make([]Sector, 0, p.CircuitSectors)}
	add := func(index int, sp *SectorProof, challenge int, inclusions []merkle.Proof[fr.Element]) error {
		o := &sp.Openings[0]
		s := Sector{CommR: sp.CommR, CommC: o.CommC, CommRLast: o.CommRLast,
			Leaves: make([]fr.Element, len(inclusions)), Paths: make([]merkle.Path, len(inclusions)),
			ID: sp.SectorID, Index: index, Challenge: challenge}
		for n := range inclusions {
			s.Leaves[n] = inclusions[n].Leaf
			var err error
			if s.Paths[n], err = inclusions[n].Path(); err != nil {
				return fmt.Errorf("%w: sector %d challenge %d: %w", ErrWitness, sp.SectorID, n, err)
			}
		}
		w.Sectors = append(w.Sectors, s)
		return nil
	}
	for index, sp := range proofs {
		if len(sp.Openings) != 1 {
			return nil, fmt.Errorf("%w: sector %d has %d openings", ErrWitness, sp.SectorID, len(sp.Openings))
		}
		inc := sp.Openings[0].Inclusions
		if p.Kind == Winning {
			for n := range inc {
				if err := add(index, sp, n, inc[n:n+1]); err != nil {
					return nil, err
				}
			}
			continue
		}
		if err := add(index, sp, 0, inc); err != nil {
			return nil, err
		}
	}
	for len(w.Sectors) < p.CircuitSectors {
		w.Sectors = append(w.Sectors, w.Sectors[len(w.Sectors)-1])
	}
	return w, nil
}

// Circuit is storage-proofs-post's FallbackPoStCircuit for one proof, with
// the same variables and rows in the same order.
type Circuit struct {
	Params
	// Witness is the proof's; nil synthesizes the blank circuit (all
	// values zero), which has the same shape.
	Witness *Partition
	// Workers bounds how many sectors are synthesized concurrently into a
	// *synth.ProvingAssignment (0: GOMAXPROCS, 1: sequential).
	Workers int
	// Progress, if set, is called after each sector; calls are serialized.
	Progress func(done, total int)
	// Verify checks, as the witness is computed, what DecodeAndCheckShape
	// leaves out: each comm_r = H(comm_c, comm_r_last) and each path from
	// its leaf to comm_r_last. Synthesize then returns a *FaultsError
	// naming every faulty sector (each once, its first fault), as
	// DecodeAndCheck would have; the assignment is not to be proved.
	Verify bool
}

var _ synth.Circuit = (*Circuit)(nil)

// Synthesize implements synth.Circuit. Into a *synth.ProvingAssignment it
// forks one child per sector unless Workers is 1; the result is the same.
func (c *Circuit) Synthesize(ctx context.Context, cs synth.ConstraintSystem) error {
	w, err := c.witness()
	if err != nil {
		return err
	}
	var faults []*SectorError // per circuit sector: its first fault
	if c.Verify && c.Witness != nil {
		faults = make([]*SectorError, len(w.Sectors))
	}
	if err := c.synthesize(ctx, cs, w, faults); err != nil {
		return err
	}
	return collectFaults(faults)
}

// collectFaults is the *FaultsError of the circuit sectors' faults (nil if
// none): each vanilla proof once, with its first circuit sector's fault, in
// the request's order.
func collectFaults(faults []*SectorError) error {
	var fe FaultsError
	for _, f := range faults {
		if f == nil {
			continue
		}
		if n := len(fe.Faults); n > 0 && fe.Faults[n-1].Index >= f.Index {
			continue // a padding copy, or a later challenge of a WinningPoSt's one sector
		}
		fe.Faults = append(fe.Faults, f)
	}
	if len(fe.Faults) == 0 {
		return nil
	}
	return &fe
}

func (c *Circuit) synthesize(ctx context.Context, cs synth.ConstraintSystem, w *Partition, faults []*SectorError) error {
	sector := func(s *synthesizer, i int) error {
		fault, err := s.sector(i, &w.Sectors[i], faults != nil)
		if fault != nil {
			faults[i] = fault
		}
		return err
	}
	if pa, ok := cs.(*synth.ProvingAssignment); ok && c.Workers != 1 {
		size, err := sectorSize(c.Params)
		if err != nil {
			return err
		}
		workers := c.Workers
		if workers <= 0 {
			workers = runtime.GOMAXPROCS(0)
		}
		return forkjoin.Run(ctx, pa, len(w.Sectors), size, workers, c.Progress,
			func(_ context.Context, i int, cs *synth.ProvingAssignment) error {
				return sector(newSynthesizer(cs), i)
			})
	}
	s := newSynthesizer(cs)
	for i := range w.Sectors {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := sector(s, i); err != nil {
			return err
		}
		if c.Progress != nil {
			c.Progress(i+1, len(w.Sectors))
		}
	}
	return nil
}

func (c *Circuit) witness() (*Partition, error) {
	if c.Witness == nil {
		return blank(&c.Params)
	}
	w := c.Witness
	arities, err := c.Shape.Arities(c.leaves())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrWitness, err)
	}
	if len(w.Sectors) != c.CircuitSectors {
		return nil, fmt.Errorf("%w: %d sectors, want %d", ErrWitness, len(w.Sectors), c.CircuitSectors)
	}
	for i := range w.Sectors {
		s := &w.Sectors[i]
		if len(s.Leaves) != c.CircuitChallenges || len(s.Paths) != c.CircuitChallenges {
			return nil, fmt.Errorf("%w: sector %d has %d leaves and %d paths, want %d", ErrWitness, i, len(s.Leaves), len(s.Paths),
				c.CircuitChallenges)
		}
		for n, path := range s.Paths {
			if len(path) != len(arities) {
				return nil, fmt.Errorf("%w: sector %d challenge %d: path of %d levels, want %d", ErrWitness, i, n, len(path), len(arities))
			}
			for l, e := range path {
				if len(e.Siblings) != arities[l]-1 {
					return nil, fmt.Errorf("%w: sector %d challenge %d level %d: %d siblings, want %d", ErrWitness, i, n, l,
						len(e.Siblings), arities[l]-1)
				}
			}
		}
	}
	return w, nil
}

// blank is the all-zero witness of p's shape.
func blank(p *Params) (*Partition, error) {
	arities, err := p.Shape.Arities(p.leaves())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrWitness, err)
	}
	path := make(merkle.Path, len(arities))
	for l, a := range arities {
		path[l] = merkle.PathElement{Siblings: make([]fr.Element, a-1)}
	}
	s := Sector{Leaves: make([]fr.Element, p.CircuitChallenges), Paths: make([]merkle.Path, p.CircuitChallenges)}
	for n := range s.Paths {
		s.Paths[n] = path
	}
	w := &Partition{Sectors: make([]Sector, p.CircuitSectors)}
	for i := range w.Sectors {
		w.Sectors[i] = s
	}
	return w, nil
}

// synthesizer owns the gadgets over one system; one per goroutine.
type synthesizer struct {
	b   *boolean.Builder
	pos *poseidon.Gadget
	h   posHasher
}

type posHasher struct{ g *poseidon.Gadget }

func (h posHasher) HashNode(c []num.Num) (num.Num, error) { return h.g.Hash(c) }

func newSynthesizer(cs synth.ConstraintSystem) *synthesizer {
	b := boolean.NewBuilder(cs)
	pos := poseidon.New(b)
	return &synthesizer{b: b, pos: pos, h: posHasher{pos}}
}

// sector is circuit.rs Sector::synthesize. With verify it returns the
// sector's first fault among the hashes it computes (Circuit.Verify), and
// synthesizes the rest all the same: the rows and variables do not change.
func (s *synthesizer) sector(i int, w *Sector, verify bool) (fault *SectorError, err error) {
	bad := func(challenge int, field, msg string) {
		if fault == nil {
			fault = &SectorError{Sector: w.ID, Index: w.Index, Challenge: challenge, Field: field, Msg: msg}
		}
	}
	g := s.b
	commRL := num.Alloc(g, w.CommRLast)
	commC := num.Alloc(g, w.CommC)
	commR := num.Alloc(g, w.CommR)
	num.Inputize(g, commR)
	// hash2_circuit(comm_c, comm_r_last): comm_c first.
	h, err := s.pos.Hash([]num.Num{commC, commRL})
	if err != nil {
		return nil, fmt.Errorf("post circuit: sector %d: %w", i, err)
	}
	if verify && h.Value != w.CommR {
		bad(commRChecked, commRField, commRFault)
	}
	num.Equal(g, commR.Var, h.Var) // constraint::equal: comm_r · ONE = hash
	for n := range w.Leaves {
		r, err := por.Synthesize(g, s.h, por.Val(w.Leaves[n]), w.Paths[n], por.Var(commRL), true)
		if err != nil {
			return nil, fmt.Errorf("post circuit: sector %d challenge %d: %w", i, n, err)
		}
		if verify && r.Computed.Value != w.CommRLast {
			bad(w.Challenge+n, inclusionField(w.Challenge+n, ""), pathFault)
		}
	}
	return fault, nil
}

// sectorSizes caches sectorSize per Params.
var sectorSizes sync.Map

// sectorSize is the inputs, variables and rows one sector adds (all
// sectors have the same shape), measured on a blank sector.
func sectorSize(p Params) (synth.Sizes, error) {
	if v, ok := sectorSizes.Load(p); ok {
		return v.(synth.Sizes), nil
	}
	w, err := blank(&p)
	if err != nil {
		return synth.Sizes{}, err
	}
	ch := synth.NewChecker()
	before := ch.Stats()
	if _, err := newSynthesizer(ch).sector(0, &w.Sectors[0], false); err != nil {
		return synth.Sizes{}, err
	}
	after := ch.Stats()
	size := synth.Sizes{Inputs: after.Inputs - before.Inputs, Aux: after.Aux - before.Aux, Rows: after.Constraints - before.Constraints}
	sectorSizes.Store(p, size)
	return size, nil
}

// CircuitSizes returns the exact counts of p's circuit (inputs with ONE,
// aux, rows without the input rows), from one blank sector's.
func (p Params) CircuitSizes() (synth.Sizes, error) {
	one, err := sectorSize(p)
	if err != nil {
		return synth.Sizes{}, err
	}
	n := p.CircuitSectors
	return synth.Sizes{Inputs: 1 + n*one.Inputs, Aux: n * one.Aux, Rows: n * one.Rows}, nil
}

// Sizes is CircuitSizes as the hint groth16.Prove looks for: zero if the
// sizes cannot be measured.
func (c *Circuit) Sizes() synth.Sizes {
	s, _ := c.CircuitSizes()
	return s
}
