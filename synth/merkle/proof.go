package merkle

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Domain is the type of a Merkle tree value in a Proof: fr.Element for the
// Poseidon trees (R and C), [32]byte for the SHA-256 tree D (read as a
// field element, little-endian, where a circuit needs one).
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

// KindFor is the variant of the proofs of a tree of shape s.
func KindFor(s Shape) ProofKind {
	switch {
	case s.Top != 0:
		return ProofTop
	case s.Sub != 0:
		return ProofSub
	}
	return ProofSingle
}

// ProofElement is one level of a Proof as rust-fil-proofs writes it
// (storage-proofs-core PathElement): the arity−1 sibling hashes and the
// position of the path's node among its arity siblings. A Path's
// PathElement is the same level read as field elements.
type ProofElement[T Domain] struct {
	Hashes []T
	Index  uint64
}

// Proof is an inclusion proof of Leaf under Root in the form every Filecoin
// vanilla proof embeds (storage-proofs-core MerkleProof: C1's challenge
// proofs, SnapDeals' partition proofs, PoSt's sector proofs). Base lists
// the base levels leaf to root; Sub and Top hold the sub and top levels
// (one element each) for Sub and Top proofs and are nil otherwise.
type Proof[T Domain] struct {
	Kind ProofKind
	Root T
	Leaf T
	Base []ProofElement[T]
	Sub  []ProofElement[T]
	Top  []ProofElement[T]
}

// PathIndex returns the leaf index the proof's path spells in a tree of
// shape s (index bits of all levels, leaf level least significant; each
// level contributes log2 of its arity in s).
func (m *Proof[T]) PathIndex(s Shape) uint64 {
	var idx uint64
	var shift uint
	for l, lv := range [3][]ProofElement[T]{m.Base, m.Sub, m.Top} {
		bits := uint(log2([3]int{s.Base, s.Sub, s.Top}[l]))
		for _, e := range lv {
			idx |= e.Index << shift
			shift += bits
		}
	}
	return idx
}

func log2(n int) int {
	l := 0
	for n > 1 {
		n >>= 1
		l++
	}
	return l
}

// Path returns the proof's levels (base, sub, top), leaf to root, as a
// native Path. [32]byte values must be canonical field elements
// (little-endian); CheckShape has checked that of a proof it accepted.
func (m *Proof[T]) Path() (Path, error) {
	var out Path
	for _, lv := range [3][]ProofElement[T]{m.Base, m.Sub, m.Top} {
		for _, e := range lv {
			pe := PathElement{Index: int(e.Index), Siblings: make([]fr.Element, len(e.Hashes))}
			for j := range e.Hashes {
				v, err := Element(e.Hashes[j])
				if err != nil {
					return nil, err
				}
				pe.Siblings[j] = v
			}
			out = append(out, pe)
		}
	}
	return out, nil
}

// Element is a tree value as a field element: itself, or 32 little-endian
// bytes that must be below r.
func Element[T Domain](v T) (fr.Element, error) {
	if b, ok := any(v).([32]byte); ok {
		e, err := fr.LittleEndian.Element(&b)
		if err != nil {
			return fr.Element{}, fmt.Errorf("%w: %s", ErrPath, notCanonical)
		}
		return e, nil
	}
	return any(v).(fr.Element), nil
}

const notCanonical = "value is not a canonical field element (>= r)"

// CheckShape checks that m has the shape of a proof in a tree of shape s
// with the given number of leaves: the variant s calls for (KindFor), the
// number of levels of each part, arity−1 hashes and an index below the
// arity at every level and, for [32]byte values, that each is a canonical
// field element (circuits read them as Fr). On a fault it returns the field,
// relative to the proof and named as serde names it
// (".data.Sub.base_proof.path[2].hashes"), and what is wrong; msg is ""
// when m fits. It checks no hash: that is the caller's, with the roots it
// expects.
func (m *Proof[T]) CheckShape(s Shape, leaves int) (field, msg string) {
	base, err := s.BaseLevels(leaves)
	if err != nil {
		return "", err.Error()
	}
	want := KindFor(s)
	if m.Kind != want {
		return ".data", fmt.Sprintf("got a %v proof, want %v for tree shape %v", m.Kind, want, s)
	}
	// names are built on a fault only: CheckShape runs on every proof of a C1
	pre := func() string { return ".data." + want.String() + "." }
	if !canonical(&m.Root) {
		return pre() + "root", notCanonical
	}
	if !canonical(&m.Leaf) {
		return pre() + "leaf", notCanonical
	}
	parts := [3]struct {
		name   string
		arity  int
		levels int
	}{{"path", s.Base, base}, {"sub_proof", s.Sub, 0}, {"top_proof", s.Top, 0}}
	if s.Sub != 0 {
		parts[0].name, parts[1].levels = "base_proof", 1
	}
	if s.Top != 0 {
		parts[2].levels = 1
	}
	for p, levels := range [3][]ProofElement[T]{m.Base, m.Sub, m.Top} {
		part := &parts[p]
		name := func() string { return pre() + part.name + ".path" }
		if len(levels) != part.levels {
			return name(), fmt.Sprintf("got %d path elements, want %d", len(levels), part.levels)
		}
		a := part.arity
		for j, e := range levels {
			if len(e.Hashes) != a-1 {
				return fmt.Sprintf("%s[%d].hashes", name(), j), fmt.Sprintf("got %d hashes, want %d (arity %d)", len(e.Hashes), a-1, a)
			}
			if e.Index >= uint64(a) {
				return fmt.Sprintf("%s[%d].index", name(), j), fmt.Sprintf("got %d, want < %d (arity %d)", e.Index, a, a)
			}
			for h := range e.Hashes {
				if !canonical(&e.Hashes[h]) {
					return fmt.Sprintf("%s[%d].hashes[%d]", name(), j, h), notCanonical
				}
			}
		}
	}
	return "", ""
}

// canonical reports whether v is a field element: always for fr.Element,
// for [32]byte when, read little-endian, it is below r.
func canonical[T Domain](v *T) bool {
	if b, ok := any(v).(*[32]byte); ok {
		_, err := fr.LittleEndian.Element(b)
		return err == nil
	}
	return true
}

// NewProof is the proof of leaf under root whose levels, leaf to root, are
// levels, split as a tree of shape s splits them (KindFor): the last level
// is Top's and the one before Sub's where s has them, the rest are Base.
// The parts share levels' backing array with their capacities cut.
func NewProof[T Domain](s Shape, root, leaf T, levels []ProofElement[T]) Proof[T] {
	m := Proof[T]{Kind: KindFor(s), Root: root, Leaf: leaf}
	n := len(levels)
	switch {
	case m.Kind == ProofTop && n >= 2:
		m.Base, m.Sub, m.Top = levels[:n-2:n-2], levels[n-2:n-1:n-1], levels[n-1:]
	case m.Kind == ProofSub && n >= 1:
		m.Base, m.Sub = levels[:n-1:n-1], levels[n-1:]
	default:
		m.Base = levels
	}
	return m
}
