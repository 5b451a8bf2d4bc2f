// Package gpuc2 proves Filecoin PoRep Commit2 (C2): it turns the C1 output of a
// sealed sector into the Groth16 proof bytes the chain verifies.
//
// The work is split into packages:
//
//   - synth: rank-1 constraint systems (bellperson semantics) and their gadgets;
//   - groth16: BLS12-381 Groth16 in bellperson's file formats, CPU and CUDA provers;
//   - msm: multi-scalar multiplication over G1 and G2, CPU and CUDA;
//   - gpulock: the per-device VRAM ledger and compute lock;
//   - native: the runtime-loaded CUDA library.
//
// The PoRep facade (SealCommitPhase2) lives in this package once the circuit is
// in place; see the README for what works today.
package gpuc2
