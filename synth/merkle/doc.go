// Package merkle holds the Merkle trees of Filecoin's proofs: native trees
// in the shapes rust-fil-proofs uses with their inclusion paths, and the
// Merkle proof format every vanilla proof embeds, shared by all circuits
// (PoRep's C1, SnapDeals' partition proofs, PoSt's sector proofs).
//
// Trees:
//
//   - tree D: binary, node = sha254(left ‖ right) (synth/hash/sha256);
//   - trees R and C: Poseidon with base arity 8 and optional sub and top
//     arities (8-0-0, 8-8-0, 8-8-2; also the test shapes with 2 and 4).
//
// A compound tree (sub/top) splits its leaves into contiguous base trees and
// hashes their roots with the sub (then top) arity, so it is a tree whose
// levels have different arities: base levels, then one sub level, then one
// top level. Paths list levels leaf to root; each element holds the
// arity − 1 siblings in order and the node's index within its group, so the
// index bits, least significant first and concatenated over the levels,
// are the leaf index.
//
// Proofs: Proof[T] is storage-proofs-core's MerkleProof, a Single, Sub or
// Top variant whose levels are split into base, sub and top parts, with
// values of T (fr.Element for Poseidon trees, [32]byte for tree D). Its
// bincode form is DecodeProofBincode and AppendProofBincode (ReadProofBincode
// inside a circuit package's own decoder); CheckShape checks it against a
// tree's shape; Path reads it as a native Path; NewProof builds one from a
// path's levels. Its JSON form, which only C1 carries, is synth/porep's.
//
// Usage:
//
//	t, err := merkle.NewPoseidon(leaves, merkle.Shape{Base: 8, Sub: 8})
//	p, err := t.Path(i)
//	ok := p.Verify(merkle.PoseidonHash, leaves[i], t.Root())
//
//	m, n, err := merkle.DecodeProofBincode[fr.Element](b) // errors.Is(err, merkle.ErrBadProof)
//	if field, msg := m.CheckShape(shape, leaves); msg != "" { … }
//	path, err := m.Path()
//	ok = path.Verify(merkle.PoseidonHash, m.Leaf, m.Root)
package merkle
