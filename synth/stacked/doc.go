// Package stacked is the PoRep C2 circuit: rust-fil-proofs v19's
// StackedCircuit (storage-proofs-porep src/stacked/circuit/{proof,params,
// create_label,column,hash}.rs) for one partition, with the same variables
// and rows in the same order, since the Filecoin Groth16 parameters bind
// every index.
//
// Shape, in order: replica_id (input and bits), comm_d and comm_r (inputs),
// comm_r_last, comm_c and comm_r = Poseidon2(comm_c, comm_r_last); then per
// challenge: the data leaf and its tree-D inclusion, the 6 DRG and 8
// expander parent columns (rows, column hash, tree-C inclusion), the
// challenge as a UInt64 input, one label per layer recomputed with SHA-256
// from the parent columns (create_label), the encoding label + data leaf and
// its tree-R inclusion, and the column hash of the labels with its tree-C
// inclusion. Every inclusion exposes its packed path index as one input:
// 3 + 18 per challenge, plus ONE.
//
// The witness (Partition) is independent of any file format; parameters
// (Params) fix the shape, with presets for every sector size
// (Params2KiB … Params64GiB) and the shapes of rust-fil-proofs'
// tests/stacked_circuit.rs (TestCircuitParams). A nil witness gives the
// blank circuit, for setups and counting. Labels, the encoded node and all
// hash outputs are computed natively by the gadgets as they allocate them;
// nothing derived is read from the witness.
//
// Usage:
//
//	c := &stacked.Circuit{Params: stacked.Params32GiB, Witness: w}
//	pa := synth.NewProvingAssignment(c.Sizes())
//	err := c.Synthesize(ctx, pa) // challenges in parallel, as sequential
//
// Concurrency: Synthesize into a *synth.ProvingAssignment synthesizes the
// challenges' parts (tree D, columns, each layer's label, the rest) on up to
// Workers goroutines (SynthesizeParallel: nested forks, joined in order); the
// result equals sequential synthesis exactly. Into any other system (Checker, Recorder) it is sequential.
// A Circuit may be synthesized concurrently into different systems; the
// witness is only read.
//
// Package stackedtest generates synthetic consistent witnesses.
package stacked
