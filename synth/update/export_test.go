package update

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/gadgets/num"
)

// GenChallengeBitsRows returns the rows gen_challenge_bits adds for p,
// over blank values.
func GenChallengeBitsRows(p Params) (int, error) {
	ch := synth.NewChecker()
	s := newSynthesizer(ch, &p)
	commRNew := num.Alloc(s.b, fr.Element{})
	partition := num.Alloc(s.b, fr.Element{})
	before := ch.Stats().Constraints
	if _, err := s.genChallengeBits(commRNew, partition); err != nil {
		return 0, err
	}
	return ch.Stats().Constraints - before, nil
}

// ApexPoRRows returns the rows apex_por adds for p's parameters with
// partitions and apexLeaves overriding p's (as gadgets.rs' tests do), over
// blank values.
func ApexPoRRows(p Params, partitions, apexLeaves int) (int, error) {
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
		return 0, err
	}
	return ch.Stats().Constraints - before, nil
}

// NewSyntheticStructured makes a structured synthetic update (as
// NewSynthetic does beyond 8 MiB) at any size.
func NewSyntheticStructured(p Params, seed uint64) (*Synthetic, error) {
	return newSynthetic(p, seed, true)
}
