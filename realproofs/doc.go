// Package realproofs holds real Filecoin seal proofs and checks them: the
// 124 records for 2 KiB sectors of rust-fil-proofs' seal regression file
// (testdata/README.md: source, commit, licence), each a sector's comm_r,
// comm_d, prover_id, sector_id, ticket, seed and the 192-byte proof that
// rust-fil-proofs' verify_seal accepted against Filecoin's published 2 KiB
// parameters (v28) before writing it.
//
// They are the evidence that gpuc2 speaks Filecoin's formats: every proof
// decodes with gpuc2's proof decoder (always, in this package's tests),
// and, where Filecoin's 2 KiB .vk is at hand, every one verifies with the
// public inputs gpuc2 computes and every tampered copy fails:
//
//	recs, err := realproofs.Records2KiB()
//	vk, err := groth16.ReadVerifyingKeyFile(ctx, vkPath, groth16.WithDigestCheck())
//	for _, res := range realproofs.Check(groth16.PrepareVerifyingKey(vk), recs) {
//		fmt.Printf("%s: %d of %d verified\n", res.Kind, res.Verified, res.Records)
//	}
//
// `go run ./examples/c2prove -check-real` runs this check, and also proves
// a synthetic sector with the real .params and verifies it with the real .vk.
//
// A record carries its own porep_id and API version (rust-fil-proofs'
// PoRepConfig), which need not be a registered proof type's, and a random
// 32-byte prover_id rather than an actor id's: records are verified from
// those values, with the porep package's replica_id, challenges and public
// inputs, the same code gpuc2.VerifySeal runs after mapping a proof type
// and an actor id to them.
//
// Parse is strict (ErrBadRecord names the line and the field) and fuzzed.
// Records are read-only after Parse and safe to share between goroutines.
package realproofs
