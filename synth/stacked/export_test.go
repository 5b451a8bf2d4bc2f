package stacked

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/gadgets/boolean"
	"github.com/gpuc2/gpuc2/synth/gadgets/num"
)

// SetOnStep installs the step hook (called with a step name before each
// step of synthesis).
func (c *Circuit) SetOnStep(f func(string)) { c.onStep = f }

// SynthesizeTop synthesizes only the top level (steps 1–9 of
// CIRCUIT-SPEC-POREP.md §5.2).
func SynthesizeTop(cs synth.ConstraintSystem, p Params, w *Partition) error {
	ar, err := p.TreeArities()
	if err != nil {
		return err
	}
	_, err = newSynthesizer(cs, &p, ar, nil).top(w)
	return err
}

// SynthesizeH7 is the H7 setup of CIRCUIT-SPEC-BELLPERSON.md §7.2: replica
// id (alloc, inputize, bits), the challenge (UInt64, input), 14 parent
// values, their bits, and one layer-2 label.
func SynthesizeH7(cs synth.ConstraintSystem, rid fr.Element, node uint64, parents [14]fr.Element) (fr.Element, error) {
	p := Params2KiB
	s := newSynthesizer(cs, &p, nil, nil)
	g := s.b
	r := num.Alloc(g, rid)
	num.Inputize(g, r)
	rbits := num.ReverseBitNumbering(num.ToBitsLE(g, r))
	u := num.AllocUInt64(g, node)
	u.PackIntoInput(g)
	var nums [14]num.Num
	for k := range nums {
		nums[k] = num.Alloc(g, parents[k])
	}
	pb := make([][]boolean.Boolean, 0, 14)
	for k := range nums {
		pb = append(pb, num.ReverseBitNumbering(num.ToBitsLE(g, nums[k])))
	}
	l, err := s.label(rbits, 2, &u, pb)
	return l.Value, err
}

// ChallengeParts returns the sizes SynthesizeParallel forks a challenge
// along, in synthesis order: data leaf, tree D, columns, each layer, tail.
func (p Params) ChallengeParts() ([]synth.Sizes, error) {
	c, err := p.challengeParts()
	if err != nil {
		return nil, err
	}
	out := []synth.Sizes{c.leaf, c.treeD, c.columns}
	out = append(out, c.layers...)
	return append(out, c.tail), nil
}
