// Package por holds storage-proofs-core's Merkle inclusion gadgets
// (gadgets/por.rs PoRCircuit and gadgets/insertion.rs insert/pick) for the
// tree shapes Filecoin uses: binary SHA-256 (tree D) and Poseidon trees
// with base arity 8 and sub/top arities (8, 8-8, 8-8-2; 2 and 4 for tests).
//
// Per level: the index bits (AllocatedBit, LSB first), the siblings
// (AllocatedNum), insert (2, 8 or 22 picks), then the node hash. After the
// levels: the packed index bits as one public input, the root (allocated
// after that input when given as a value), the row computed·ONE = root, and
// for a public root an inputize.
//
// Usage:
//
//	b := boolean.NewBuilder(cs)
//	res, err := por.Synthesize(b, por.NewPoseidonHasher(b), por.Val(leaf), path, por.Val(root), false)
package por
