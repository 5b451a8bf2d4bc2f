package porep

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/synth/stacked"
)

// CircuitParams returns the shape of p's partition circuit.
func CircuitParams(p abi.RegisteredSealProof) (stacked.Params, error) {
	sp, err := ParamsFor(p)
	if err != nil {
		return stacked.Params{}, err
	}
	return stacked.Params{
		Layers:     sp.Layers,
		Nodes:      sp.Nodes,
		TreeDDepth: sp.TreeDDepth,
		TreeShape:  sp.Shape,
		Challenges: sp.ChallengesPerPartition,
	}, nil
}

// Circuit returns partition k's circuit with its witness taken from the C1,
// as rust-fil-proofs' StackedCompound::circuit builds it: comm_c and
// comm_r_last from the partition's first challenge proof (all must agree;
// Validate and Check ensure it), one circuit challenge per vanilla proof.
func (c *C1) Circuit(k int) (*stacked.Circuit, error) {
	params, err := CircuitParams(c.RegisteredProof)
	if err != nil {
		return nil, err
	}
	if k < 0 || k >= len(c.VanillaProofs) {
		return nil, fmt.Errorf("%w: partition %d of %d", ErrBadC1, k, len(c.VanillaProofs))
	}
	proofs := c.VanillaProofs[k]
	if len(proofs) == 0 {
		return nil, &C1Error{Partition: k, Challenge: -1, Field: "vanilla_proofs", Msg: "no challenges"}
	}
	commD, err := frFromBytes(c.CommD)
	if err != nil {
		return nil, &C1Error{Partition: k, Challenge: -1, Field: "comm_d", Msg: err.Error()}
	}
	w := &stacked.Partition{
		ReplicaID: c.ReplicaID, CommD: commD, CommR: c.CommR,
		CommC:      proofs[0].ReplicaColumnProofs.CX.InclusionProof.Root,
		CommRLast:  proofs[0].CommRLastProof.Root,
		Challenges: make([]stacked.Challenge, len(proofs)),
	}
	for i := range proofs {
		p := &proofs[i]
		if len(p.LabelingProofs) == 0 {
			return nil, &C1Error{Partition: k, Challenge: i, Field: "labeling_proofs", Msg: "empty"}
		}
		leaf, err := frFromBytes(p.CommDProof.Leaf)
		if err != nil {
			return nil, &C1Error{Partition: k, Challenge: i, Field: "comm_d_proofs.leaf", Msg: err.Error()}
		}
		treeD, err := p.CommDProof.Path()
		if err != nil {
			return nil, &C1Error{Partition: k, Challenge: i, Field: "comm_d_proofs.path", Msg: err.Error()}
		}
		ch := &w.Challenges[i]
		ch.Node = p.LabelingProofs[0].Node
		ch.DataLeaf = leaf
		ch.TreeD = treeD
		ch.TreeR, _ = p.CommRLastProof.Path()
		ch.ColumnC = columnOf(&p.ReplicaColumnProofs.CX)
		for j := range ch.DRG {
			ch.DRG[j] = columnOf(&p.ReplicaColumnProofs.DRGParents[j])
		}
		for j := range ch.Exp {
			ch.Exp[j] = columnOf(&p.ReplicaColumnProofs.ExpParents[j])
		}
	}
	if err := w.Validate(params); err != nil {
		return nil, fmt.Errorf("%w: partition %d: %w", ErrBadC1, k, err)
	}
	return &stacked.Circuit{Params: params, Witness: w}, nil
}

// frFromBytes reads a 32-byte little-endian value that must be below r.
func frFromBytes(b [32]byte) (fr.Element, error) { return fr.LittleEndian.Element(&b) }

func columnOf(cp *ColumnProof) stacked.Column {
	path, _ := cp.InclusionProof.Path()
	return stacked.Column{Rows: cp.Column.Rows, Path: path}
}
