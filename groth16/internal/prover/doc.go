// Package prover is what groth16's CPU prover and groth16/gpu's provers
// share, kept out of groth16's public API: one proof's Settings (its
// groth16.ProveOptions applied), the six Sections a Backend computes,
// ProveWith (the skeleton that draws r and s, runs them in order and
// assembles the proof), and the checks of a witness against a key
// (CheckCounts) or against compiled matrices (CheckWitness,
// ProofAssignment).
//
// Package groth16 imports this one, so this one cannot import groth16.
// Where it needs groth16's public types it declares its own of the same
// layout — VerifyingKey, Proof, Counts (groth16.SectionCounts) and Timings
// — and callers convert between the two, which copies nothing (a pointer
// conversion, or four ints) and stops compiling if the two ever differ.
// ErrKeyMismatch and ErrInvalidInput are groth16's sentinels, defined here
// so that the checks can wrap them; groth16 exports the same values.
//
//	cfg := prover.Configure(opts) // opts []groth16.ProveOption
//	proof, err := prover.ProveWith(ctx, &cfg, (*prover.VerifyingKey)(vk), prover.Counts(c), backend, "device", 0)
//	return (*groth16.Proof)(proof), err
//
// Nothing here keeps state between calls; a Settings belongs to one proof.
package prover
