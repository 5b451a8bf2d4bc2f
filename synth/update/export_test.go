package update

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/gadgets/num"
)

// GadgetRows returns the rows gen_challenge_bits and apex_por add for p's
// parameters, with partitions, apexLeaves overriding p's (as
// gadgets.rs' tests do), over blank values.
func GadgetRows(p Params, partitions, apexLeaves int) (genChallengeBits, apexPoR int, err error) {
	p.Partitions, p.ApexLeaves = partitions, apexLeaves
	ch := synth.NewChecker()
	s := newSynthesizer(ch, &p)
	g := s.b
	sh := &shared{partitionBits: allocBits(g, fr.Element{}, p.PartitionBits())}
	commD := num.Alloc(g, fr.Element{})
	sh.apexLeaves = allocNums(g, make([]fr.Element, p.ApexLeaves))
	path := allocNums(g, make([]fr.Element, p.PartitionBits()))
	before := ch.Stats().Constraints
	if err := s.apexPoR(sh, path, commD); err != nil {
		return 0, 0, err
	}
	apexPoR = ch.Stats().Constraints - before

	commRNew := num.Alloc(g, fr.Element{})
	partition := num.Alloc(g, fr.Element{})
	before = ch.Stats().Constraints
	if _, err := s.genChallengeBits(commRNew, partition); err != nil {
		return 0, 0, err
	}
	return ch.Stats().Constraints - before, apexPoR, nil
}

// NewSyntheticStructured makes a structured synthetic update (as
// NewSynthetic does beyond 8 MiB) at any size.
func NewSyntheticStructured(p Params, seed uint64) (*Synthetic, error) {
	return newSynthetic(p, seed, true)
}
