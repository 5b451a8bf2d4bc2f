// Package porep holds the non-circuit half of Filecoin's PoRep Commit2: the
// C1 output (SealCommitPhase1Output) with strict parsing and validation, the
// SDR graph, challenge derivation, replica_id and the Groth16 public inputs
// of each partition, all as rust-fil-proofs v19 computes them.
//
//	c1, err := porep.ParseC1(data) // filecoin-ffi JSON or the Commit2In envelope
//	if err != nil { … }            // errors.Is(err, porep.ErrBadC1); errors.As → *porep.C1Error
//	if err := c1.CheckAll(ctx, miner, sector); err != nil { … } // every hash, natively
//	inputs, err := porep.PublicInputs(c1, miner, sector, k) // 3 + 18·challenges Fr
//
// # Forms
//
//   - JSON: serde_json of rust-filecoin-proofs-api's SealCommitPhase1Output.
//     registered_proof is the Rust enum name (ProofName:
//     "StackedDrg32GiBV1", "…V1_1", "…V1_1_Feat_SyntheticPoRep",
//     "…V1_2_Feat_NonInteractivePoRep"); the vanilla_proofs enum key is
//     always "StackedDrg<size>V1", whatever the version. 32-byte values are
//     arrays of 32 integers. A hand-rolled decoder parses a 32 GiB C1
//     (≈ 39 MB) in a fraction of a second; EncodeJSON writes the same form.
//   - Commit2In envelope {"SectorNum","Phase1Out"(base64),"SectorSize"}
//     (lotus-bench, Curio cuzk, snark market); Phase1Out is JSON, or bincode,
//     which is then taken as StackedDrg<SectorSize>V1_1 as Curio does.
//   - bincode of filecoin-proofs' SealCommitPhase1Output (supraseal's
//     commit-phase1-output, Curio lib/proof): no proof type, so
//     ParseC1Bincode takes one.
//
// Parsing rejects values that are not canonical field elements (Poseidon
// values, and tree-D values and comm_d, which the circuit also reads as Fr),
// wrong counts of partitions, challenges, columns, rows, label parents and
// Merkle path elements and hashes for the tree shape (8-0-0, 8-8-0, 8-8-2;
// tree D binary, depth log2(nodes)), wrong layer indices, zero comm_d,
// comm_r or seed (rust-fil-proofs' C2 refuses them). List lengths are capped
// before allocation. Check adds what needs no hashing: replica_id, the
// derived challenges, graph parents, path indices, shared roots and the
// expansion of label parents. CheckHashes recomputes every hash natively
// (tree-D, tree-R and tree-C paths, column hashes, labels, encodings,
// comm_r = Poseidon(comm_c, comm_r_last)), as the vanilla verifier does;
// CheckAll runs all of it in one pass, parallel over challenges, so that a
// C1 the chain would reject fails here with the partition, challenge and
// field named, not after a proof.
//
// # Synthetic C1
//
// SyntheticC1 makes a consistent C1 for a made-up sector, deterministic
// from a seed: synthetic data for tests, examples and benchmarks, never a
// real sector; whatever uses one must say so. For interactive proof types,
// of any size, only the opened values are real (sparse trees C and R with
// random untouched subtrees, labels computed from random parent labels,
// real encodings). Synthetic-PoRep and NI-PoRep types, whose challenges
// depend on comm_r, are built in full, up to 8 MiB.
//
// # Graph and challenges
//
// Graph gives each node's 6 DRG parents (bucket sampling with ChaCha8, as in
// storage-proofs-core drgraph.rs; unsorted, predecessor last before API
// 1.1.0 and first from it on) and 8 expander parents (3-round Feistel on
// BLAKE2b). Whole graphs are checked against the digests of the production
// parent caches (parent_cache.json). Challenges implements interactive,
// synthetic (ChaCha20 selection, checked against challenges.rs' hard-coded
// vectors) and non-interactive PoRep.
//
// # Proof types
//
// Proof types are go-state-types' abi.RegisteredSealProof (0–19); ParamsFor
// adds what abi does not say (layers, partitions, challenges, tree shape,
// challenge derivation) and ProofName gives the Rust enum name.
//
// # Tests
//
// ShapeC1 (export_test.go) C1s have the right shape and consistent indices
// but random values: no hash in them is real. SyntheticC1 gives real ones. Fuzz with, e.g.,
//
//	go test ./synth/porep -run XXX -fuzz 'FuzzParseC1$' -fuzztime 15s -fuzzminimizetime 1s
//
// (the seeds are ~100 KB, so minimization needs the short limit).
//
// Everything here is safe for concurrent use once built; a C1 is plain data.
package porep
