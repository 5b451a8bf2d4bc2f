package porep

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"
)

// Domain is the type of a Merkle tree value: fr.Element for the Poseidon
// trees (R and C), [32]byte for the SHA-256 tree D.
type Domain interface {
	fr.Element | [32]byte
}

// ProofKind is the variant of a Merkle proof (storage-proofs-core ProofData).
type ProofKind uint32

// Merkle proof variants, with their bincode tags.
const (
	ProofSingle ProofKind = 0 // base levels only
	ProofSub    ProofKind = 1 // base levels and one sub level
	ProofTop    ProofKind = 2 // base, sub and top levels
)

func (k ProofKind) String() string {
	switch k {
	case ProofSingle:
		return "Single"
	case ProofSub:
		return "Sub"
	case ProofTop:
		return "Top"
	}
	return "ProofKind(?)"
}

// PathElement is one level of a Merkle path: the arity−1 sibling hashes and
// the position of the path's node among its arity siblings.
type PathElement[T Domain] struct {
	Hashes []T
	Index  uint64
}

// MerkleProof is an inclusion proof of Leaf under Root. Base lists the base
// levels leaf to root; Sub and Top hold the sub and top levels (one element
// each) for Sub and Top proofs and are nil otherwise.
type MerkleProof[T Domain] struct {
	Kind ProofKind
	Root T
	Leaf T
	Base []PathElement[T]
	Sub  []PathElement[T]
	Top  []PathElement[T]
}

// PathIndex returns the leaf index the path proves (index bits of all
// levels, leaf level least significant).
func (m *MerkleProof[T]) PathIndex(shape TreeShape) uint64 {
	var idx uint64
	levels := [3][]PathElement[T]{m.Base, m.Sub, m.Top}
	arity := [3]int{shape.Base, shape.Sub, shape.Top}
	var shift uint
	for l, lv := range levels {
		bits := uint(log2(uint64(arity[l])))
		for _, e := range lv {
			idx |= e.Index << shift
			shift += bits
		}
	}
	return idx
}

// Column is the column of labels of one node: Rows[l] is layer l+1's label.
type Column struct {
	Index uint32
	Rows  []fr.Element
}

// ColumnProof opens a column in tree C.
type ColumnProof struct {
	Column         Column
	InclusionProof MerkleProof[fr.Element]
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
	CommDProof          MerkleProof[[32]byte]
	CommRLastProof      MerkleProof[fr.Element]
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

func log2(n uint64) int {
	l := 0
	for n > 1 {
		n >>= 1
		l++
	}
	return l
}
