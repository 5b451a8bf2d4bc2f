package update

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// WitnessFor returns partition k's circuit witness from its vanilla proof
// and the sector's public values, as circuit.rs PrivateInputs::new takes
// it: comm_c, the roots of the first challenge's tree-R proofs, the apex
// leaves, the top PartitionBits siblings of the first tree-D path, and per
// challenge the old and data leaves and the siblings of its paths (the
// tree-D path only up to the apex leaf). The proofs must have passed
// Validate; Check first for errors that name the vanilla proof rather than
// an unsatisfied circuit.
func WitnessFor(p Params, k, h int, pp *PartitionProof, commROld, commDNew, commRNew fr.Element) (*Partition, error) {
	if _, err := KAndHSelect(p, k, h); err != nil {
		return nil, err
	}
	if _, err := p.TreeR.Arities(p.Nodes); err != nil {
		return nil, err
	}
	if err := validatePartition(&p, k, pp); err != nil {
		return nil, err
	}
	toApex := p.ChallengeBits() - p.PartitionBits() - p.ApexBits()
	w := &Partition{
		K: k, H: h,
		CommROld: commROld, CommDNew: commDNew, CommRNew: commRNew,
		CommC:    pp.CommC,
		RootROld: pp.Challenges[0].ROld.Root, RootRNew: pp.Challenges[0].RNew.Root,
		ApexLeaves: make([]fr.Element, len(pp.ApexLeaves)),
		Challenges: make([]Challenge, len(pp.Challenges)),
	}
	for j := range pp.ApexLeaves {
		w.ApexLeaves[j], _ = fr.LittleEndian.Element(&pp.ApexLeaves[j])
	}
	top, _ := dPath(&pp.Challenges[0].DNew)
	for _, e := range top[p.ChallengeBits()-p.PartitionBits():] {
		w.PartitionPath = append(w.PartitionPath, e.Siblings[0])
	}
	for i := range pp.Challenges {
		cp := &pp.Challenges[i]
		path, leaf := dPath(&cp.DNew)
		ch := &w.Challenges[i]
		ch.LeafROld, ch.LeafDNew = cp.ROld.Leaf, leaf
		for _, e := range path[:toApex] {
			ch.PathDNew = append(ch.PathDNew, e.Siblings[0])
		}
		for _, e := range rPath(&cp.ROld) {
			ch.PathROld = append(ch.PathROld, e.Siblings)
		}
		for _, e := range rPath(&cp.RNew) {
			ch.PathRNew = append(ch.PathRNew, e.Siblings)
		}
	}
	return w, nil
}
