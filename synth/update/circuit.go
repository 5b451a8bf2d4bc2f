package update

import (
	"context"
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/synth"
)

// Partition is the witness of one partition: what circuit.rs PublicInputs
// and PrivateInputs hold, independent of any file format. Values derived
// in the circuit (challenges, rho, the new replica nodes, the apex root)
// are not part of it.
type Partition struct {
	K int // partition index
	H int // one of Params.Hs (DefaultH in every filecoin-proofs API)

	CommROld, CommDNew, CommRNew fr.Element // public
	CommC                        fr.Element // comm_r = Poseidon(comm_c, root)
	RootROld, RootRNew           fr.Element

	// ApexLeaves are this partition's ApexLeaves nodes of tree D new, at
	// height ChallengeBits − PartitionBits − ApexBits.
	ApexLeaves []fr.Element
	// PartitionPath holds the PartitionBits siblings of tree D new from
	// this partition's apex root up to comm_d_new (the top of every
	// challenge's tree-D path).
	PartitionPath []fr.Element
	// Challenges are the challenge openings, in challenge order.
	Challenges []Challenge
}

// Challenge opens one challenged node in the three trees.
type Challenge struct {
	LeafROld, LeafDNew fr.Element
	// PathROld and PathRNew hold the siblings of each tree-R level, leaf
	// to root (arity − 1 each).
	PathROld, PathRNew [][]fr.Element
	// PathDNew holds the tree-D siblings from the leaf up to the apex
	// leaf: ChallengeBits − PartitionBits − ApexBits of them.
	PathDNew []fr.Element
}

// ErrWitness reports a witness whose shape does not fit the parameters.
var ErrWitness = errors.New("update: witness does not fit the circuit")

// Circuit is storage-proofs-update's EmptySectorUpdateCircuit for one
// partition (circuit.rs), with the same variables and rows in the same
// order, since the Filecoin Groth16 parameters bind every index.
type Circuit struct {
	Params
	// Witness is the partition; nil synthesizes the blank circuit (all
	// values zero), which has the same shape.
	Witness *Partition
	// Workers bounds how many challenges are synthesized concurrently when
	// the system is a *synth.ProvingAssignment (SynthesizeParallel): 0
	// means GOMAXPROCS, 1 sequential. Other systems are always filled
	// sequentially.
	Workers int
	// Progress, if set, is called after each challenge with the number of
	// challenges done; calls are serialized.
	Progress func(done, total int)
}

var _ synth.Circuit = (*Circuit)(nil)

// Synthesize implements synth.Circuit. It checks ctx between challenges.
// Into a *synth.ProvingAssignment it runs SynthesizeParallel unless Workers
// is 1; the result is the same.
func (c *Circuit) Synthesize(ctx context.Context, cs synth.ConstraintSystem) error {
	if p, ok := cs.(*synth.ProvingAssignment); ok && c.Workers != 1 {
		return c.SynthesizeParallel(ctx, p, c.Workers)
	}
	w, kh, err := c.witness()
	if err != nil {
		return err
	}
	s := newSynthesizer(cs, &c.Params)
	sh, err := s.top(w, kh)
	if err != nil {
		return err
	}
	for i := range w.Challenges {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.challenge(sh, i, &w.Challenges[i]); err != nil {
			return fmt.Errorf("update circuit: challenge %d: %w", i, err)
		}
		if c.Progress != nil {
			c.Progress(i+1, len(w.Challenges))
		}
	}
	return nil
}

// witness returns the witness to synthesize, blank if c has none, after
// checking its shape, and the value of k_and_h_select.
func (c *Circuit) witness() (*Partition, fr.Element, error) {
	var kh fr.Element
	if c.Witness == nil {
		return blank(&c.Params), kh, nil
	}
	w := c.Witness
	v, err := KAndHSelect(c.Params, w.K, w.H)
	if err != nil {
		return nil, kh, fmt.Errorf("%w: %w", ErrWitness, err)
	}
	kh.SetUint64(v)
	if err := c.checkShape(w); err != nil {
		return nil, kh, err
	}
	return w, kh, nil
}

func (c *Circuit) checkShape(w *Partition) error {
	p := &c.Params
	arities, err := p.TreeR.Arities(p.Nodes)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrWitness, err)
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrWitness}, args...)...)
	}
	if len(w.ApexLeaves) != p.ApexLeaves {
		return bad("%d apex leaves, want %d", len(w.ApexLeaves), p.ApexLeaves)
	}
	if len(w.PartitionPath) != p.PartitionBits() {
		return bad("partition path of %d siblings, want %d", len(w.PartitionPath), p.PartitionBits())
	}
	if len(w.Challenges) != p.Challenges {
		return bad("%d challenges, want %d", len(w.Challenges), p.Challenges)
	}
	toApex := p.ChallengeBits() - p.PartitionBits() - p.ApexBits()
	for i := range w.Challenges {
		ch := &w.Challenges[i]
		if len(ch.PathDNew) != toApex {
			return bad("challenge %d: tree-D path of %d siblings to the apex leaf, want %d", i, len(ch.PathDNew), toApex)
		}
		for name, path := range map[string][][]fr.Element{"tree R old": ch.PathROld, "tree R new": ch.PathRNew} {
			if len(path) != len(arities) {
				return bad("challenge %d: %s path of %d levels, want %d", i, name, len(path), len(arities))
			}
			for l, sibs := range path {
				if len(sibs) != arities[l]-1 {
					return bad("challenge %d: %s level %d has %d siblings, want %d", i, name, l, len(sibs), arities[l]-1)
				}
			}
		}
	}
	return nil
}

// blank is the all-zero witness of p's shape.
func blank(p *Params) *Partition {
	arities, _ := p.TreeR.Arities(p.Nodes) // the presets fit their sizes
	zeros := func(n int) []fr.Element { return make([]fr.Element, n) }
	pathR := make([][]fr.Element, len(arities))
	for l, a := range arities {
		pathR[l] = zeros(a - 1)
	}
	ch := Challenge{PathROld: pathR, PathRNew: pathR, PathDNew: zeros(p.ChallengeBits() - p.PartitionBits() - p.ApexBits())}
	w := &Partition{ApexLeaves: zeros(p.ApexLeaves), PartitionPath: zeros(p.PartitionBits()), Challenges: make([]Challenge, p.Challenges)}
	for i := range w.Challenges {
		w.Challenges[i] = ch
	}
	return w
}
