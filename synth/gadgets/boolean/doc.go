// Package boolean holds bellpepper-core's Boolean gadget as rust-fil-proofs
// v19 uses it (bellperson 0.27 re-exports it): a Boolean is a constant, a
// bit variable, or the negation of one, and every operation folds constants
// before it allocates, so the R1CS shape depends only on which operands are
// constants, never on witness values.
//
// Each operation allocates its result (with the value computed natively)
// and then enforces its row, in the variable and row order of the Rust code,
// because the Filecoin Groth16 parameters bind every index.
//
// Usage:
//
//	b := boolean.NewBuilder(cs)
//	x := b.AllocBit(true)
//	y := b.AllocBit(false)
//	z := b.Xor(x, y) // one variable, one row: 2x·y = x + y − z
//
// A Builder keeps scratch linear combinations so that the hot path does not
// allocate; it is not safe for concurrent use.
package boolean
