// Package num holds the field-element gadgets of bellpepper-core (AllocatedNum
// and its bit decompositions), bellperson's multipack, and the small
// storage-proofs-core gadgets built on them (UInt64 for the challenge,
// constraint::equal and constraint::add), each with the variable and row
// order of the Rust code.
//
// Usage:
//
//	g := boolean.NewBuilder(cs)
//	x := num.Alloc(g, value)
//	bits := num.ToBitsLE(g, x)        // 255 bits + 1 unpacking row
//	idx := num.PackIntoInputs(g, bits[:64])
//
// Functions take the boolean.Builder that owns the constraint system and the
// scratch buffers; they are not safe for concurrent use on one Builder.
package num
