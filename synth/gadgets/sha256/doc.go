// Package sha256 holds bellperson's SHA-256 gadget (sha256.rs) with its
// UInt32 and MultiEq helpers (uint32.rs, multieq.rs), and the Filecoin
// wrappers over it from filecoin-hashers (hash_circuit: digest to a 254-bit
// field element; hash_multi_leaf_circuit: the tree-D node hash).
//
// The variable and row order follows bellperson 0.27 exactly: constants are
// folded before anything is allocated, σ/Σ are chained two-way xors, and the
// additions are packed by MultiEq, whose deferred rows appear in the middle
// of the row stream. One compression of an allocated 512-bit block from the
// IV is 25,840 rows; a padded hash of a 512-bit message is 44,874.
//
// Usage:
//
//	g := sha256.New(cs)
//	digest, err := g.Hash(bits)            // 256 Booleans, standard bit order
//	node, err := g.HashLeaves(left, right) // tree-D node hash of two Nums
//
// Into a witness-only synth.ProvingAssignment, compressions are replayed
// from a record of the first compression of the same input shape
// (template.go); the result is the same, several times faster.
//
// A Gadget holds scratch buffers and the open MultiEq group of the
// compression in progress; it is not safe for concurrent use.
package sha256
