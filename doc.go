// Package gpuc2 proves Filecoin's SNARKs: PoRep Commit2 (C2), which turns the
// C1 output of a sealed sector into the Groth16 proof bytes the chain
// verifies, SnapDeals' sector update, WindowPoSt and WinningPoSt.
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
//	info, err := gpuc2.NewSealVerifyInfo(c1, proof, sector, miner)
//	ok, err := p.VerifySeal(info)
//
// Example (example_test.go, copied into the README) runs this at 2 KiB.
//
// Several proofs share one pipeline (ProveSeal): their partitions are
// synthesized in (proof, partition) order under a host memory budget and
// proven by workers on each GPU (or the CPU); Requirements prices a proof
// for a scheduler, Status shows the queues and memory, VerifySeal checks a
// proof as filecoin-ffi does.
//
// SnapDeals' sector-update proof (filecoin-ffi's
// SectorUpdate.GenerateUpdateProofWithVanilla and VerifyUpdateProof) goes
// through the same pipeline: ProveUpdate, GenerateUpdateProofWithVanilla,
// VerifyUpdateProof, with PreloadUpdate, EvictUpdate and UpdateRequirements.
// Each circuit has its own parameters and constraint matrices, on the same
// GPUs; CircuitsRequirements says what a set of circuits loaded at once
// needs, and where each key is held.
//
// WindowPoSt partitions and WinningPoSt (filecoin-ffi's
// GenerateSinglePartitionWindowPoStWithVanilla,
// GenerateWinningPoStWithVanilla, VerifyWindowPoSt, VerifyWinningPoSt) go
// through it too, from the per-sector vanilla proofs
// GenerateSingleVanillaProof returns: ProvePoSt checks every sector first
// and reports the faulty ones (FaultySectorsError) as ffi does; its
// priority (Curio sends WindowPoSt HIGH, WinningPoSt CRITICAL) puts its one
// partition ahead of every queued partition of lower priority. PreloadPoSt,
// EvictPoSt and PoStRequirements are its Preload, Evict and Requirements.
//
// A proving daemon (Curio's cuzk protocol) names circuits, not proof
// types: Circuits lists them ("porep-32g", "snap-32g", …) with their kind
// and sector size, and PreloadCircuit, EvictCircuit, FindCircuitParams,
// CircuitTestParamsPath and KeyStatus.Circuits take or give their ids, so
// it serves every kind without a branch per kind.
// SplitUpdateVanillaProofsJSON reads the SnapDeals vanilla proofs as Curio
// stores them.
//
// Parameters are Filecoin's .params/.vk files (ParamsDir), each loaded once
// and shared by the proof types that use it. Where they are missing,
// Config.TestParamsDir allows a TEST-ONLY setup from local toxic waste
// (TestParams): made on demand up to 512 MiB sectors, made beforehand with
// examples/testsetup (on a GPU) for 32 GiB and 64 GiB; never valid on chain.
//
// Errors wrap ErrBadInput, ErrParamsMissing, ErrParamsCorrupt, ErrBudget,
// ErrOutOfDeviceMemory, ErrProofInvalid, ErrClosed or the context's error.
// The API speaks go-state-types: abi.RegisteredSealProof,
// abi.RegisteredUpdateProof, abi.RegisteredPoStProof, abi.SectorNumber,
// abi.ActorID and proof's verify infos, whose CIDs are go-fil-commcid's.
package gpuc2
