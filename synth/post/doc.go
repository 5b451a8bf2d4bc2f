// Package post is Filecoin's PoSt SNARK: storage-proofs-post's
// FallbackPoStCircuit for WindowPoSt partitions and WinningPoSt, its public
// inputs, the per-sector vanilla proofs filecoin-ffi's
// GenerateSingleVanillaProof returns (bincode FallbackPoStSectorProof) and
// their check, and synthetic vanilla proofs for tests and benchmarks.
//
// Checked against rust-fil-proofs (storage-proofs-post/src/fallback
// circuit.rs, compound.rs, vanilla.rs, utils.rs; filecoin-proofs
// api/{window_post,winning_post,post_util}.rs, parameters.rs,
// constants.rs, parameters.json) and rust-filecoin-proofs-api
// (registry.rs, post.rs):
//
//   - The circuit, per sector: comm_r_last, comm_c, comm_r allocated in
//     that order, comm_r an input, Poseidon(comm_c, comm_r_last) = comm_r;
//     then per challenge PoRCircuit (leaf allocated, the path's index bits
//     packed into one input, the root comm_r_last, private). The prover id
//     and sector id do not enter it: a proof binds the sectors through
//     comm_r and the challenges through the path index inputs.
//   - WindowPoSt: the partition circuit has WINDOW_POST_SECTOR_COUNT sectors
//     (2 up to 1 GiB, 2,349 at 32 GiB, 2,300 at 64 GiB) of
//     WINDOW_POST_CHALLENGE_COUNT = 10 challenges; a partition with fewer
//     sectors repeats its last sector, in the witness and in the inputs.
//   - WinningPoSt: the API proves 1 sector with 66 challenges, but the
//     circuit (parameters.rs winning_post_setup_params) has 66 sectors of 1
//     challenge: circuit sector n is the one sector with its n-th
//     challenge, and the verifier lists the sector 66 times.
//   - Leaf challenge: the first 8 bytes (little-endian) of
//     SHA-256(randomness ‖ sector id u64 LE ‖ index u64 LE), mod the
//     sector's nodes. The index is get_challenge_index: the sector's index
//     in the proof × challenges per sector + n for API versions 1.0 and 1.1,
//     n alone for 1.2.0 (FIP-0061's grindability fix). go-state-types'
//     WindowPoSt V1_1 types are the Rust API's StackedDrgWindow*V1_2 (API
//     1.2.0); the Winning types are API 1.0.0, where the index is the
//     same n as the one sector's index is 0.
//   - Served: the five StackedDrgWinning*V1 and the five
//     StackedDrgWindow*V1_1 types. The StackedDrgWindow*V1 types are
//     refused by name: FIP-0061 retired them at network version 19 (the
//     miner actor moved every miner to V1_1).
//   - Parameter files: v28-proof-of-spacetime-fallback-merkletree-
//     poseidon_hasher-<shape>-<hash>, hash = SHA-256 of
//     "FallbackPoSt::PublicParams{sector_size: S, challenge_count: C,
//     sector_count: N}" with the circuit's C and N (recomputed in tests
//     against parameters.json's names).
package post
