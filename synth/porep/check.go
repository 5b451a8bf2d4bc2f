package porep

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/synth/merkle"
)

// Check runs CheckReplicaID and CheckChallenges, which need no hashing
// beyond replica_id and the challenges. CheckAll adds every other hash.
func (c *C1) Check(miner abi.ActorID, sector abi.SectorNumber) error {
	if err := c.CheckReplicaID(miner, sector); err != nil {
		return err
	}
	return c.CheckChallenges()
}

// CheckReplicaID checks that c's replica_id is the one derived from the
// miner, the sector number, c's ticket and comm_d and the proof type.
func (c *C1) CheckReplicaID(miner abi.ActorID, sector abi.SectorNumber) error {
	want, err := ReplicaID(c.RegisteredProof, miner, sector, c.Ticket, c.CommD)
	if err != nil {
		return &C1Error{Partition: -1, Challenge: -1, Field: "registered_proof", Msg: "unknown proof type", Err: err}
	}
	if got := leBytes(&c.ReplicaID); got != want {
		return badC1("replica_id", "got %x, derived %x from miner %d sector %d (wrong miner, sector number, ticket or comm_d?)", got, want, miner, sector)
	}
	return nil
}

// CheckChallenges checks what can be checked without hashing: every proof
// answers the challenge derived from replica_id and seed (tree D, tree R and
// tree C paths, labeling and encoding nodes), its parent columns are the
// graph's parents in order, all proofs agree on comm_d, comm_c and
// comm_r_last, and the stored label parents are the expansion of the
// parent columns. c must have passed Validate. Merkle hashes, labels,
// encodings and comm_r = H(comm_c, comm_r_last) are not checked here
// (CheckHashes does; CheckAll does both).
func (c *C1) CheckChallenges() error {
	sp, err := ParamsFor(c.RegisteredProof)
	if err != nil {
		return &C1Error{Partition: -1, Challenge: -1, Field: "registered_proof", Msg: "unknown proof type", Err: err}
	}
	g := newGraph(sp.Nodes, sp.PoRepID, sp.APIVersion)
	replicaID, commR := leBytes(&c.ReplicaID), leBytes(&c.CommR)
	var commC, commRLast *fr.Element
	for k, part := range c.VanillaProofs {
		chals, err := Challenges(c.RegisteredProof, replicaID, commR, c.Seed, k)
		if err != nil {
			return &C1Error{Partition: k, Challenge: -1, Msg: "cannot derive challenges", Err: err}
		}
		if len(chals) != len(part) {
			return &C1Error{Partition: k, Challenge: -1, Field: "vanilla_proofs", Msg: fmt.Sprintf("got %d challenges, want %d", len(part), len(chals))}
		}
		for i := range part {
			p := &part[i]
			if commC == nil {
				commC, commRLast = &p.ReplicaColumnProofs.CX.InclusionProof.Root, &p.CommRLastProof.Root
			}
			if field, msg := checkChallenge(&sp, g, p, chals[i], &c.CommD, commC, commRLast); msg != "" {
				return &C1Error{Partition: k, Challenge: i, Field: field, Msg: msg}
			}
		}
	}
	return nil
}

func checkChallenge(sp *SealParams, g *Graph, p *ChallengeProof, ch uint64, commD *[32]byte, commC, commRLast *fr.Element) (string, string) {
	treeD := merkle.Shape{Base: 2}
	if got := p.CommDProof.PathIndex(treeD); got != ch {
		return "comm_d_proofs", fmt.Sprintf("path proves node %d, want challenge %d", got, ch)
	}
	if p.CommDProof.Root != *commD {
		return "comm_d_proofs.data.Single.root", "does not match comm_d"
	}
	if got := p.CommRLastProof.PathIndex(sp.Shape); got != ch {
		return "comm_r_last_proof", fmt.Sprintf("path proves node %d, want challenge %d", got, ch)
	}
	if p.CommRLastProof.Root != *commRLast {
		return "comm_r_last_proof", "root differs from the first proof's (comm_r_last)"
	}
	rc := &p.ReplicaColumnProofs
	if f, m := checkColumnAt(sp, &rc.CX, ch, commC); m != "" {
		return "replica_column_proofs.c_x" + f, m
	}
	drg, exp, err := g.Parents(ch)
	if err != nil {
		return "", err.Error()
	}
	for j := range rc.DRGParents {
		if f, m := checkColumnAt(sp, &rc.DRGParents[j], uint64(drg[j]), commC); m != "" {
			return fmt.Sprintf("replica_column_proofs.drg_parents[%d]%s", j, f), m
		}
	}
	for j := range rc.ExpParents {
		if f, m := checkColumnAt(sp, &rc.ExpParents[j], uint64(exp[j]), commC); m != "" {
			return fmt.Sprintf("replica_column_proofs.exp_parents[%d]%s", j, f), m
		}
	}
	for l := range p.LabelingProofs {
		lp := &p.LabelingProofs[l]
		if lp.Node != ch {
			return fmt.Sprintf("labeling_proofs[%d].node", l), fmt.Sprintf("got %d, want challenge %d", lp.Node, ch)
		}
		if j, want := checkExpansion(rc, l, lp.Parents); j >= 0 {
			return fmt.Sprintf("labeling_proofs[%d].parents[%d]", l, j), "differs from the parent columns (" + want + ")"
		}
	}
	ep := &p.EncodingProof
	if ep.Node != ch {
		return "encoding_proof.node", fmt.Sprintf("got %d, want challenge %d", ep.Node, ch)
	}
	last := p.LabelingProofs[len(p.LabelingProofs)-1].Parents
	for j := range ep.Parents {
		if ep.Parents[j] != last[j] {
			return fmt.Sprintf("encoding_proof.parents[%d]", j), "differs from the last labeling proof's"
		}
	}
	return "", ""
}

func checkColumnAt(sp *SealParams, cp *ColumnProof, node uint64, commC *fr.Element) (string, string) {
	if uint64(cp.Column.Index) != node {
		return ".column.index", fmt.Sprintf("got %d, want node %d", cp.Column.Index, node)
	}
	if got := cp.InclusionProof.PathIndex(sp.Shape); got != node {
		return ".inclusion_proof", fmt.Sprintf("path proves node %d, want %d", got, node)
	}
	if cp.InclusionProof.Root != *commC {
		return ".inclusion_proof", "root differs from the first proof's c_x root (comm_c)"
	}
	return "", ""
}

// checkExpansion checks that the 37 label parents of layer index l (0-based)
// are the parent columns' values cycled: layer 1 uses the 6 DRG parents'
// layer-1 rows; later layers add the 8 expander parents' previous-layer rows.
// It returns the first wrong slot, or −1.
func checkExpansion(rc *ReplicaColumnProofs, l int, parents []fr.Element) (int, string) {
	var base [DRGDegree + ExpDegree]*fr.Element
	n := 0
	for j := range rc.DRGParents {
		base[n] = &rc.DRGParents[j].Column.Rows[l]
		n++
	}
	if l > 0 {
		for j := range rc.ExpParents {
			base[n] = &rc.ExpParents[j].Column.Rows[l-1]
			n++
		}
	}
	for j := range parents {
		if parents[j] != *base[j%n] {
			if j%n < DRGDegree {
				return j, fmt.Sprintf("drg_parents[%d] row %d", j%n, l)
			}
			return j, fmt.Sprintf("exp_parents[%d] row %d", j%n-DRGDegree, l-1)
		}
	}
	return -1, ""
}
