// Package circuits is gpuc2's one table of circuit kinds: for every kind
// of proof it proves (PoRep C2, SnapDeals), the go-state-types proof types
// it serves and, for each, what the facade, Requirements, the parameter
// lookup, the TEST-ONLY setups, the recorded-matrices cache and the daemon
// ask of it:
//
//   - the type's name as the Rust enums spell it, and its sector size;
//   - its partition circuit: sizes (synth.Sizes), partition count, and the
//     blank circuit a setup is made for;
//   - Filecoin's parameter files: the name prefix looked for, the published
//     names and digests (groth16's parameters.json table);
//   - the TEST-ONLY setup's name, whether it is made on demand, and the
//     flag examples/testsetup takes to make one beforehand;
//   - the name of its recorded matrices' cache file;
//   - the section counts of its keys where they are known without the file
//     (Requirements' estimate: PoRep's published 32 GiB counts, SnapDeals'
//     derived ones);
//   - the daemon's circuit ids (cuzk's "porep-32g", "snap-32g", …) with the
//     type that stands for each, and the daemon's proof-kind name as
//     cuzk.v1's ProofKind enum spells it.
//
// A Type is one proof type of one kind: comparable (the facade's key cache
// is keyed by it) and made for any value of the kind's enum; a value the
// kind does not serve answers its facts with the circuit package's error.
//
//	t := circuits.PoRep.Type(int64(abi.RegisteredSealProof_StackedDrg32GiBV1_1))
//	sizes, partitions, err := t.CircuitSizes()
//	prefix, err := t.ParamsPrefix()     // v28-stacked-proof-of-replication-…-82a357d2
//	c, ok := t.Circuit()                // the daemon's "porep-32g"
//	c, ok = circuits.CircuitByID("snap-32g")
//
// # Adding a kind
//
// A new kind is one entry in table.go (its facts, each a call into its
// circuit package) and its circuit package. What stays per kind outside
// this table, because a kind's requests differ in shape (PoRep a C1, a
// SnapDeals update its commitments and vanilla partition proofs): the
// facade's public calls and their request and result types (seal.go,
// update.go, typed by go-state-types' own enums, and the lines of the
// root's kinds.go mapping those enums to a Type and back, KeyStatus' per-kind
// lists included); the parse and check of a request, each partition's
// witness and its public inputs, which the facade hands the pipeline
// through its generic seams (a partition's circuit, a partition checker);
// synthetic inputs for tests (porep.SyntheticC1, update.NewSynthetic);
// and the daemon's request decoding and calls into the facade.
//
// It imports the circuit packages (synth/porep, synth/stacked,
// synth/update), groth16 for its types and go-state-types; never the
// facade or the daemon. Everything here is read-only after init: safe for
// concurrent use.
package circuits
