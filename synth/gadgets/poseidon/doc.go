// Package poseidon is neptune 11's legacy Poseidon circuit
// (circuit::poseidon_hash), the one rust-fil-proofs v19 calls for tree R/C
// node hashes, column hashes and comm_r. It is built on neptune's optimized
// constants (compressed round keys, pre-sparse and sparse matrices from
// synth/hash/poseidon), so its R1CS is not the textbook permutation's:
//
//   - round 0 folds the domain tag's S-box into a constant and uses the
//     preimage variables directly, with the pre-key inside the x² and x⁵ rows;
//   - every later S-box first materializes its input linear combination
//     (a variable and a row LC·ONE = y), then allocates x², x⁴ and x⁵ + key;
//   - linear layers only build linear combinations, never rows;
//   - the output (element 1) is materialized at the end.
//
// Rows = 3·arity + 28·t + 4·R_P + 1: 311, 377, 505, 598 for arity 2, 4, 8, 11.
// HashWith takes other constants of an arity (a custom domain tag: the
// same rows with another constant on ONE).
//
// Usage:
//
//	g := poseidon.New(boolean.NewBuilder(cs))
//	h, err := g.Hash([]num.Num{a, b})
//
// A Gadget reuses its buffers between hashes; it is not safe for concurrent use.
package poseidon
