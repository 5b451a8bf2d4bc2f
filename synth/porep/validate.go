package porep

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/synth/merkle"
)

// Graph degrees and label parent slots (storage-proofs-porep).
const (
	DRGDegree    = 6
	ExpDegree    = 8
	TotalParents = 37
)

// Validate checks that c has exactly the shape its registered proof needs:
// partition and challenge counts, column heights, parent counts, Merkle path
// lengths and arities, layer indices, and that no commitment or seed is zero.
// Field-element ranges are checked by the parsers. Errors are *C1Error.
func (c *C1) Validate() error {
	sp, err := ParamsFor(c.RegisteredProof)
	if err != nil {
		return &C1Error{Partition: -1, Challenge: -1, Field: "registered_proof", Msg: "unknown proof type", Err: err}
	}
	if !canonical(&c.CommD) {
		return badC1("comm_d", "value is not a canonical field element (>= r)")
	}
	var zero [32]byte
	if c.CommD == zero {
		return badC1("comm_d", "all-zero commitment")
	}
	if c.CommR.IsZero() {
		return badC1("comm_r", "all-zero commitment")
	}
	if c.Seed == zero {
		return badC1("seed", "all-zero challenge seed")
	}
	if len(c.VanillaProofs) != sp.Partitions {
		return badC1("vanilla_proofs", "got %d partitions, want %d for %v", len(c.VanillaProofs), sp.Partitions, ProofName(c.RegisteredProof))
	}
	for k, part := range c.VanillaProofs {
		if len(part) != sp.ChallengesPerPartition {
			e := badC1("vanilla_proofs", "got %d challenges, want %d for %v", len(part), sp.ChallengesPerPartition, ProofName(c.RegisteredProof))
			e.Partition = k
			return e
		}
		for i := range part {
			if field, msg := validateChallenge(&sp, &part[i]); msg != "" {
				return &C1Error{Partition: k, Challenge: i, Field: field, Msg: msg}
			}
		}
	}
	return nil
}

// canonical reports whether b, read little-endian, is below r.
func canonical(b *[32]byte) bool {
	_, err := fr.LittleEndian.Element(b)
	return err == nil
}

func validateChallenge(sp *SealParams, p *ChallengeProof) (field, msg string) {
	if f, m := checkTreeD(sp, &p.CommDProof); m != "" {
		return "comm_d_proofs" + f, m
	}
	if f, m := checkTreeRC(sp, &p.CommRLastProof); m != "" {
		return "comm_r_last_proof" + f, m
	}
	rc := &p.ReplicaColumnProofs
	if f, m := checkColumn(sp, &rc.CX); m != "" {
		return "replica_column_proofs.c_x" + f, m
	}
	if len(rc.DRGParents) != DRGDegree {
		return "replica_column_proofs.drg_parents", fmt.Sprintf("got %d columns, want %d", len(rc.DRGParents), DRGDegree)
	}
	for j := range rc.DRGParents {
		if f, m := checkColumn(sp, &rc.DRGParents[j]); m != "" {
			return fmt.Sprintf("replica_column_proofs.drg_parents[%d]%s", j, f), m
		}
	}
	if len(rc.ExpParents) != ExpDegree {
		return "replica_column_proofs.exp_parents", fmt.Sprintf("got %d columns, want %d", len(rc.ExpParents), ExpDegree)
	}
	for j := range rc.ExpParents {
		if f, m := checkColumn(sp, &rc.ExpParents[j]); m != "" {
			return fmt.Sprintf("replica_column_proofs.exp_parents[%d]%s", j, f), m
		}
	}
	if len(p.LabelingProofs) != sp.Layers {
		return "labeling_proofs", fmt.Sprintf("got %d proofs, want %d layers", len(p.LabelingProofs), sp.Layers)
	}
	for l := range p.LabelingProofs {
		if m := checkLabeling(&p.LabelingProofs[l], uint32(l+1)); m != "" {
			return fmt.Sprintf("labeling_proofs[%d]", l), m
		}
	}
	if m := checkLabeling(&p.EncodingProof, uint32(sp.Layers)); m != "" {
		return "encoding_proof", m
	}
	return "", ""
}

func checkLabeling(lp *LabelingProof, layer uint32) string {
	if len(lp.Parents) != TotalParents {
		return fmt.Sprintf("parents: got %d values, want %d", len(lp.Parents), TotalParents)
	}
	if lp.LayerIndex != layer {
		return fmt.Sprintf("layer_index: got %d, want %d", lp.LayerIndex, layer)
	}
	return ""
}

func checkColumn(sp *SealParams, cp *ColumnProof) (string, string) {
	if len(cp.Column.Rows) != sp.Layers {
		return ".column.rows", fmt.Sprintf("got %d rows, want %d layers", len(cp.Column.Rows), sp.Layers)
	}
	if f, m := checkTreeRC(sp, &cp.InclusionProof); m != "" {
		return ".inclusion_proof" + f, m
	}
	return "", ""
}

func checkTreeD(sp *SealParams, m *merkle.Proof[[32]byte]) (string, string) {
	return m.CheckShape(merkle.Shape{Base: 2}, 1<<sp.TreeDDepth)
}

// checkTreeRC checks a tree R or tree C proof against the tree shape.
func checkTreeRC(sp *SealParams, m *merkle.Proof[fr.Element]) (string, string) {
	return m.CheckShape(sp.Shape, int(sp.Nodes))
}
