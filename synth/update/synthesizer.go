package update

import (
	"fmt"
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/gadgets/boolean"
	"github.com/gpuc2/gpuc2/synth/gadgets/num"
	"github.com/gpuc2/gpuc2/synth/gadgets/por"
	"github.com/gpuc2/gpuc2/synth/gadgets/poseidon"
	"github.com/gpuc2/gpuc2/synth/gadgets/sha256"
)

// shared holds what the top level allocates and every challenge reads.
type shared struct {
	partitionBits, hSelectBits []boolean.Boolean
	phi, rootROld, rootRNew    num.Num
	apexLeaves                 []num.Num
	challengeBits              [][]boolean.Boolean // per challenge, random bits only (gen_challenge_bits)
}

// synthesizer owns the gadgets over one system.
type synthesizer struct {
	p    *Params
	b    *boolean.Builder
	sha  *sha256.Gadget
	pos  *poseidon.Gadget
	shaH shaHasher
	posH posHasher
}

type shaHasher struct{ g *sha256.Gadget }

func (h shaHasher) HashNode(c []num.Num) (num.Num, error) { return h.g.HashLeaves(c...) }

type posHasher struct{ g *poseidon.Gadget }

func (h posHasher) HashNode(c []num.Num) (num.Num, error) { return h.g.Hash(c) }

func newSynthesizer(cs synth.ConstraintSystem, p *Params) *synthesizer {
	b := boolean.NewBuilder(cs)
	s := &synthesizer{p: p, b: b, sha: sha256.NewWithBuilder(b), pos: poseidon.New(b)}
	s.shaH, s.posH = shaHasher{s.sha}, posHasher{s.pos}
	return s
}

func (s *synthesizer) randomness(a, b num.Num) (num.Num, error) {
	return s.pos.HashWith(randomnessConstants(), []num.Num{a, b})
}

// top is EmptySectorUpdateCircuit::synthesize up to the challenge loop,
// and gen_challenge_bits, which circuit.rs calls just before it.
func (s *synthesizer) top(w *Partition, kh fr.Element) (*shared, error) {
	g, p := s.b, s.p
	sh := &shared{}

	// k_and_h_select: input, then its partition and h_select bits.
	khNum := num.Alloc(g, kh)
	num.Inputize(g, khNum)
	khBits := allocBits(g, kh, p.PartitionBits()+HCount)
	enforceSum(g, khBits, khNum)
	sh.partitionBits, sh.hSelectBits = khBits[:p.PartitionBits()], khBits[p.PartitionBits():]
	partition := num.PackBits(g, sh.partitionBits)

	// each commitment is an aux variable the circuit uses, made public by
	// inputize
	commROld := num.Alloc(g, w.CommROld)
	num.Inputize(g, commROld)
	commDNew := num.Alloc(g, w.CommDNew)
	num.Inputize(g, commDNew)
	commRNew := num.Alloc(g, w.CommRNew)
	num.Inputize(g, commRNew)

	var err error
	if sh.phi, err = s.randomness(commDNew, commROld); err != nil {
		return nil, err
	}

	commC := num.Alloc(g, w.CommC)
	sh.rootROld = num.Alloc(g, w.RootROld)
	sh.rootRNew = num.Alloc(g, w.RootRNew)
	sh.apexLeaves = allocNums(g, w.ApexLeaves)
	partitionPath := allocNums(g, w.PartitionPath)

	// comm_r = hash2_circuit(comm_c, root): Poseidon arity 2, comm_c first;
	// the row puts the computed value in A.
	for _, r := range []struct{ root, commR num.Num }{{sh.rootROld, commROld}, {sh.rootRNew, commRNew}} {
		h, err := s.pos.Hash([]num.Num{commC, r.root})
		if err != nil {
			return nil, err
		}
		num.Equal(g, h.Var, r.commR.Var)
	}

	if err := s.apexPoR(sh, partitionPath, commDNew); err != nil {
		return nil, fmt.Errorf("update circuit: apex tree: %w", err)
	}
	if sh.challengeBits, err = s.genChallengeBits(commRNew, partition); err != nil {
		return nil, err
	}
	return sh, nil
}

// apexPoR is gadgets.rs apex_por: the apex tree over the apex leaves
// (SHA-256 hash2, row by row), then its root's path to comm_d_new along
// the partition bits.
func (s *synthesizer) apexPoR(sh *shared, partitionPath []num.Num, commDNew num.Num) error {
	row := sh.apexLeaves
	for len(row) > 1 {
		next := make([]num.Num, len(row)/2)
		for i := range next {
			var err error
			if next[i], err = s.sha.HashLeaves(row[2*i], row[2*i+1]); err != nil {
				return err
			}
		}
		row = next
	}
	path := make([][]num.Num, len(partitionPath))
	for i := range path {
		path[i] = partitionPath[i : i+1]
	}
	return s.porNoChallengeInput(s.shaH, sh.partitionBits, row[0], path, commDNew)
}

// genChallengeBits is gadgets.rs gen_challenge_bits: per digest j, the
// index k·perPartition + j (allocated, row (perPartition·k + j)·ONE =
// index), the digest Poseidon-randomness(comm_r_new, index) and its 255
// bits; each challenge takes RandomBits of them.
func (s *synthesizer) genChallengeBits(commRNew, partition num.Num) ([][]boolean.Boolean, error) {
	g, d := s.b, s.p.digests()
	out := make([][]boolean.Boolean, 0, s.p.Challenges)
	var per fr.Element
	per.SetUint64(uint64(d.perPartition))
	for j := 0; j < d.perPartition; j++ {
		var jv, v fr.Element
		jv.SetUint64(uint64(j))
		v.Mul(&partition.Value, &per)
		v.Add(&v, &jv)
		index := num.Alloc(g, v)
		g.A = boolean.Canon(append(g.A[:0], synth.Term{Coeff: per, Var: partition.Var}, synth.Term{Coeff: jv, Var: synth.One}))
		g.B = append(g.B[:0], synth.Term{Coeff: synth.CoeffOne, Var: synth.One})
		g.C = append(g.C[:0], synth.Term{Coeff: synth.CoeffOne, Var: index.Var})
		g.CS.Enforce(g.A, g.B, g.C)

		digest, err := s.randomness(commRNew, index)
		if err != nil {
			return nil, err
		}
		dbits := allocBits(g, digest.Value, num.NumBits)
		enforceSum(g, dbits, digest)
		take := d.perDigest
		if j == d.perPartition-1 {
			take = s.p.Challenges - len(out)
		}
		for c := 0; c < take; c++ {
			out = append(out, dbits[c*d.randomBits:(c+1)*d.randomBits])
		}
	}
	return out, nil
}

// challenge is the body of circuit.rs' challenge loop.
func (s *synthesizer) challenge(sh *shared, i int, ch *Challenge) error {
	g, p := s.b, s.p
	cBits := append(append(make([]boolean.Boolean, 0, p.ChallengeBits()), sh.challengeBits[i]...), sh.partitionBits...)

	high, err := s.challengeHigh(cBits, sh.hSelectBits)
	if err != nil {
		return err
	}
	rho, err := s.randomness(sh.phi, high)
	if err != nil {
		return err
	}
	leafROld := num.Alloc(g, ch.LeafROld)
	leafDNew := num.Alloc(g, ch.LeafDNew)
	leafRNew := labelRNew(g, leafROld, leafDNew, rho)

	if err := s.porNoChallengeInput(s.posH, cBits, leafROld, allocPath(g, ch.PathROld), sh.rootROld); err != nil {
		return fmt.Errorf("tree R old: %w", err)
	}
	if err := s.porNoChallengeInput(s.posH, cBits, leafRNew, allocPath(g, ch.PathRNew), sh.rootRNew); err != nil {
		return fmt.Errorf("tree R new: %w", err)
	}

	toApex := p.ChallengeBits() - p.PartitionBits() - p.ApexBits()
	apexLeaf := selectNum(g, sh.apexLeaves, cBits[toApex:toApex+p.ApexBits()])
	pathD := make([][]num.Num, len(ch.PathDNew))
	for l := range pathD {
		pathD[l] = []num.Num{num.Alloc(g, ch.PathDNew[l])}
	}
	if err := s.porNoChallengeInput(s.shaH, cBits[:toApex], leafDNew, pathD, apexLeaf); err != nil {
		return fmt.Errorf("tree D new: %w", err)
	}
	return nil
}

// challengeHigh is gadgets.rs get_challenge_high_bits: for each h in Hs,
// the h high bits of the challenge packed (pack_bits) and multiplied by
// its h_select bit; then their sum, which is the selected one.
func (s *synthesizer) challengeHigh(cBits, hSelect []boolean.Boolean) (num.Num, error) {
	g := s.b
	var sum fr.Element
	scaled := make([]num.Num, HCount)
	for k, h := range s.p.Hs {
		if h > len(cBits) {
			return num.Num{}, fmt.Errorf("%w: h = %d exceeds the %d challenge bits", ErrParams, h, len(cBits))
		}
		high := num.PackBits(g, cBits[len(cBits)-h:])
		var v fr.Element
		if hSelect[k].Value {
			v = high.Value
		}
		scaled[k] = num.Alloc(g, v)
		g.A = append(g.A[:0], synth.Term{Coeff: synth.CoeffOne, Var: high.Var})
		one := synth.CoeffOne
		g.B = hSelect[k].AppendLC(g.B[:0], &one)
		g.C = append(g.C[:0], synth.Term{Coeff: synth.CoeffOne, Var: scaled[k].Var})
		g.CS.Enforce(g.A, g.B, g.C)
		sum.Add(&sum, &v)
	}
	selected := num.Alloc(g, sum)
	g.A = g.A[:0]
	for _, x := range scaled {
		g.A = append(g.A, synth.Term{Coeff: synth.CoeffOne, Var: x.Var})
	}
	g.B = append(g.B[:0], synth.Term{Coeff: synth.CoeffOne, Var: synth.One})
	g.C = append(g.C[:0], synth.Term{Coeff: synth.CoeffOne, Var: selected.Var})
	g.CS.Enforce(g.A, g.B, g.C)
	return selected, nil
}

// labelRNew is gadgets.rs label_r_new: d·rho (mul: A = d, B = rho), then
// new = old + d·rho (row (old + d·rho)·ONE = new).
func labelRNew(g *boolean.Builder, old, data, rho num.Num) num.Num {
	return num.Add(g, old, num.Mul(g, data, rho))
}

// porNoChallengeInput is storage-proofs-core's por_no_challenge_input: the
// path's siblings are already allocated; per level the node is inserted
// among them at the index the next log2(arity) challenge bits spell and
// hashed; all bits must be used; the last row is computed·ONE = root.
func (s *synthesizer) porNoChallengeInput(h por.Hasher, cBits []boolean.Boolean, leaf num.Num, path [][]num.Num, root num.Num) error {
	cur := leaf
	for l, sibs := range path {
		nb := bits.TrailingZeros(uint(len(sibs) + 1))
		if len(cBits) < nb {
			return fmt.Errorf("%w: %d challenge bits for a path of %d levels", ErrWitness, len(cBits), len(path))
		}
		ins, err := por.Insert(s.b, cur, cBits[:nb], sibs)
		if err != nil {
			return fmt.Errorf("level %d: %w", l, err)
		}
		cBits = cBits[nb:]
		if cur, err = h.HashNode(ins); err != nil {
			return err
		}
	}
	if len(cBits) != 0 {
		return fmt.Errorf("%w: %d challenge bits left after the path", ErrWitness, len(cBits))
	}
	num.Equal(s.b, cur.Var, root.Var)
	return nil
}

// selectNum is insertion.rs select: from[n] for the index n the bits spell
// (LSB first), by halving with pick from the most significant bit down.
func selectNum(g *boolean.Builder, from []num.Num, sel []boolean.Boolean) num.Num {
	state := append([]num.Num(nil), from...)
	for i := len(sel) - 1; i >= 0; i-- {
		half := len(state) / 2
		next := make([]num.Num, half)
		for j := range next {
			next[j] = por.Pick(g, sel[i], state[half+j], state[j])
		}
		state = next
	}
	return state[0]
}

// allocBits is field_into_allocated_bits_le cut to n bits: bits 0…n−1 of
// v, each an AllocatedBit.
func allocBits(g *boolean.Builder, v fr.Element, n int) []boolean.Boolean {
	vb := v.Bits()
	out := make([]boolean.Boolean, n)
	for i := range out {
		out[i] = g.AllocBit(vb[i>>6]>>(uint(i)&63)&1 == 1)
	}
	return out
}

// enforceSum emits (Σ 2^i·bit_i)·ONE = x, the unpacking row of
// allocated_num_to_allocated_bits and of k_and_h_select (not the
// 0·0 = Σ − x of to_bits_le).
func enforceSum(g *boolean.Builder, bs []boolean.Boolean, x num.Num) {
	a := g.A[:0]
	for i := range bs {
		a = bs[i].AppendLC(a, &num.Pow2[i])
	}
	g.A = a
	g.B = append(g.B[:0], synth.Term{Coeff: synth.CoeffOne, Var: synth.One})
	g.C = append(g.C[:0], synth.Term{Coeff: synth.CoeffOne, Var: x.Var})
	g.CS.Enforce(g.A, g.B, g.C)
}

func allocNums(g *boolean.Builder, vs []fr.Element) []num.Num {
	out := make([]num.Num, len(vs))
	for i := range vs {
		out[i] = num.Alloc(g, vs[i])
	}
	return out
}

// allocPath allocates a tree-R path's siblings, all levels first, as
// circuit.rs does before calling por_no_challenge_input.
func allocPath(g *boolean.Builder, path [][]fr.Element) [][]num.Num {
	out := make([][]num.Num, len(path))
	for l := range path {
		out[l] = allocNums(g, path[l])
	}
	return out
}
