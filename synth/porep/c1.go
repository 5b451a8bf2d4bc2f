package porep

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/synth/merkle"
)

// The Merkle proofs inside (CommDProof, CommRLastProof, a column's
// InclusionProof) are merkle.Proof, the format every vanilla proof shares:
// merkle.Proof[[32]byte] for the SHA-256 tree D, merkle.Proof[fr.Element]
// for the Poseidon trees R and C.

// Column is the column of labels of one node: Rows[l] is layer l+1's label.
type Column struct {
	Index uint32
	Rows  []fr.Element
}

// ColumnProof opens a column in tree C.
type ColumnProof struct {
	Column         Column
	InclusionProof merkle.Proof[fr.Element]
}

// ReplicaColumnProofs holds the challenged column and its 6 DRG and 8
// expander parent columns, in graph order.
type ReplicaColumnProofs struct {
	CX         ColumnProof
	DRGParents []ColumnProof
	ExpParents []ColumnProof
}

// LabelingProof is the label derivation of Node at LayerIndex (1-based):
// Parents holds the 37 parent labels as hashed (already expanded).
// EncodingProof has the same shape, for the last layer.
type LabelingProof struct {
	Parents    []fr.Element
	LayerIndex uint32
	Node       uint64
}

// ChallengeProof is the vanilla proof of one challenge.
type ChallengeProof struct {
	CommDProof          merkle.Proof[[32]byte]
	CommRLastProof      merkle.Proof[fr.Element]
	ReplicaColumnProofs ReplicaColumnProofs
	LabelingProofs      []LabelingProof
	EncodingProof       LabelingProof
}

// C1 is a sector's Commit1 output (SealCommitPhase1Output).
type C1 struct {
	RegisteredProof abi.RegisteredSealProof
	// VanillaProofs[k][i] is challenge i of partition k.
	VanillaProofs [][]ChallengeProof
	CommR         fr.Element
	CommD         [32]byte // SHA-256 tree D root, validated < r
	ReplicaID     fr.Element
	Seed          [32]byte
	Ticket        [32]byte
}
