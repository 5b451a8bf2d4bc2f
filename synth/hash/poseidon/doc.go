// Package poseidon is the Poseidon hash as Filecoin uses it: neptune 11 with
// Strength::Standard and HashType::MerkleTree over BLS12-381 Fr, for the
// arities 2, 4, 8 and 11 (t = arity + 1 state elements, R_F = 8 full rounds,
// R_P = 55, 56, 57, 57 partial rounds, x⁵ S-box, Cauchy MDS matrix, round
// constants from the Grain LFSR, domain tag 2^arity − 1). CustomConstants
// gives neptune's HashType::Custom tags (id·2^40, same round constants),
// which storage-proofs-update hashes its randomness with.
//
// The constants are derived once per arity on first use (sync.Once), as
// neptune does: the plain round constants and MDS matrix, and from them the
// compressed constants, the pre-sparse matrix and the sparse matrices of
// neptune's optimized form. The native hash runs the optimized form, which
// gives the same values as the plain definition (tested); the circuit gadget
// in synth/gadgets/poseidon uses the same constants, because its R1CS shape
// follows neptune's circuit, which is built on the optimized form.
//
// Usage:
//
//	h, err := poseidon.Hash([]fr.Element{a, b}) // arity 2
//
// Hashing allocates nothing and is safe for concurrent use.
package poseidon
