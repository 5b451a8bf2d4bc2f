// Package update is the SnapDeals sector-update proof's circuit and its
// inputs: storage-proofs-update's EmptySectorUpdateCircuit (rust-fil-proofs
// v19, src/{circuit,gadgets,constants,challenges,vanilla}.rs) for one
// partition, with the same variables and rows in the same order, since the
// Filecoin Groth16 parameters bind every index; the vanilla partition
// proofs as filecoin-ffi and Curio hand them over; their checks; and
// synthetic updates for tests.
//
// # Which circuit
//
// Every abi.RegisteredUpdateProof (StackedDrg{2KiB,8MiB,512MiB,32GiB,64GiB}V1)
// is filecoin-proofs-api API 1.1.0, which proves EmptySectorUpdateCompound:
// this circuit, with partitions (1, 4, 16, 16, 16) and the parameter files
// v28-empty-sector-update-merkletree-poseidon_hasher-… (ParamsFileBase).
// The EmptySectorUpdate-Poseidon variant (src/poseidon: one partition,
// files v28-empty-sector-update-poseidon-…) has no proof type on chain and
// is refused by name (ErrPoseidonVariant).
//
// # The circuit, in order
//
// Public inputs: k_and_h_select = k | h_select << PartitionBits (h_select
// one-hot over Params.Hs; h = DefaultH = 10 in production), comm_r_old,
// comm_d_new, comm_r_new. Then: the bits of k_and_h_select; phi =
// H_rand(comm_d_new, comm_r_old); comm_c, root_r_old, root_r_new, the
// partition's apex leaves and partition path; comm_r_old and comm_r_new =
// Poseidon(comm_c, root); the apex tree (SHA-256) and its path to
// comm_d_new; the challenge bits from digests H_rand(comm_r_new,
// k·perPartition + j); and per challenge: its h high bits selected by
// h_select, rho = H_rand(phi, high), the old and data leaves, new = old +
// data·rho, the tree-R old and new inclusions, the apex leaf selected by
// the challenge bits and the tree-D inclusion up to it. H_rand is Poseidon
// arity 2 with neptune's custom domain tag 2^40. 32 GiB: 81,049,499
// constraints, 5 inputs with ONE (tests pin every size of tests/circuit.rs).
//
// # Inputs
//
// Curio stores and sends the vanilla proofs as a JSON array of base64
// byte strings (ParseVanillaProofsJSON), one per partition, each the
// bincode PartitionProof {comm_c, apex_leafs, challenge_proofs: [{r_old,
// d_new, r_new}]} that filecoin-proofs-api's generate_partition_proofs
// returns (DecodeVanillaProofs; the Merkle proofs inside are
// merkle.Proof, in storage-proofs-core's bincode form, which synth/merkle
// decodes). Validate checks every count and path shape
// (merkle.Proof.CheckShape); Check recomputes every hash and derivation
// against the commitments (errors are *ProofError wrapping
// ErrBadVanillaProof, naming partition, challenge and field); WitnessFor
// turns a partition proof into the circuit's witness, and PublicInputs
// computes the inputs natively.
//
//	raw, err := update.ParseVanillaProofsJSON(data)
//	proofs, err := update.DecodeVanillaProofs(p, raw)
//	err = update.Check(ctx, p, proofs, p.DefaultH(), commROld, commDNew, commRNew)
//	w, err := update.WitnessFor(p, k, p.DefaultH(), proofs[k], commROld, commDNew, commRNew)
//	err = (&update.Circuit{Params: p, Witness: w}).Synthesize(ctx, cs)
//
// # Synthetic updates
//
// NewSynthetic makes a consistent update of a made-up sector (TEST-ONLY),
// with every partition's vanilla proof. Up to 8 MiB all nodes are random
// and the trees are built in full. Beyond, the trees cannot be sparse the
// way synth/porep's SyntheticC1 makes them (the challenges derive from
// comm_r_new, which commits to every node of the new replica), so the
// sector is structured: old replica and data repeat every 64 nodes, and
// the tree nodes, which then repeat too, are computed once each. A 32 GiB
// update and its proofs take about a second.
//
// # Concurrency
//
// Into a *synth.ProvingAssignment, Synthesize runs SynthesizeParallel (the
// top level, then the challenges in forks of exact size on up to Workers
// goroutines, joined in order: the same result as sequential synthesis);
// into any other system (Checker, Recorder) it is sequential. A Circuit may
// be synthesized concurrently into different systems (the witness is only
// read). Check runs partitions in parallel. Everything else is plain data.
//
// # Tests
//
// The 32 GiB count and satisfaction, and a CPU proof at 2 KiB under a
// TEST-ONLY setup, are opt-in:
//
//	GPUC2_UPDATE_32GIB=1 go test -run TestCircuitCount32GiB -v -timeout 30m ./synth/update
//	GPUC2_TEST_UPDATE_PROOF=1 go test -run TestProve2KiB -v ./synth/update
//
// Fuzz the decoders with, e.g.,
//
//	go test ./synth/update -run XXX -fuzz 'FuzzDecodePartitionProof$' -fuzztime 20000x
package update
