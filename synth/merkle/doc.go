// Package merkle builds native Merkle trees in the shapes rust-fil-proofs
// uses and opens inclusion paths in them:
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
// Usage:
//
//	t, err := merkle.NewPoseidon(leaves, merkle.Shape{Base: 8, Sub: 8})
//	p, err := t.Path(i)
//	ok := p.Verify(merkle.PoseidonHash, leaves[i], t.Root())
package merkle
