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
// This package is the facade a storage provider embeds:
//
//	p, err := gpuc2.New(ctx, gpuc2.Config{})    // parameters from $FIL_PROOFS_PARAMETER_CACHE
//	defer p.Close()
//	proof, err := p.SealCommitPhase2(ctx, c1, sector, miner) // 192 bytes per partition
//
// Errors wrap ErrBadInput, ErrParamsMissing, ErrProofInvalid, ErrClosed or
// the context's error. Sector numbers and actor ids are synth/porep's
// mirrors of go-state-types' abi types (that module could not be fetched
// where gpuc2 is developed).
package gpuc2
