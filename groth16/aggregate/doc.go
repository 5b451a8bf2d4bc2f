// Package aggregate is SnarkPack (bellperson's groth16::aggregate) on the
// CPU: Aggregate folds a power-of-two count of Groth16 proofs into one
// aggregate proof and Verify checks it against the verifying key and every
// proof's public inputs, for SnarkPack V1 and V2 (Version; filecoin-proofs
// uses V2). Around them: the wire format of an aggregate (Proof, Decode,
// MarshalBinary: the bytes filecoin-proofs' aggregate_seal_commit_proofs
// returns), the inner-product SRS (its file format, its specialization to a
// proof count and a TEST-ONLY generator), the Fiat–Shamir transcript, and
// the commitments and inner products both build on (CommitPair,
// CommitSingleG1, Key's GIPA operations, the pairing product and the
// multiexponentiation). The GT values committed to and hashed are
// bellperson's: gnark-crypto's final exponentiation raises to 3·(p¹²−1)/r,
// and so does blst's final_exp (TestFinalExponentiationIsBlsts).
//
// Padding is the caller's: Aggregate refuses a count that is not a power of
// two. filecoin-proofs (api/util.rs get_aggregate_target_len,
// pad_proofs_to_target, pad_inputs_to_target) pads 1 proof to 2 and n to
// the next power of two by repeating the last proof, and before verifying
// repeats the last public-input vectors to match.
//
// Prover and verifier follow bellperson d1fa22cbed33ca5281a3c52ed8c91af5af64f3e3:
// src/groth16/aggregate/prove.rs (aggregate_proofs, prove_tipp_mipp,
// gipa_tipp_mipp, prove_commitment_v/w, create_kzg_opening,
// polynomial_coefficients_from_transcript,
// polynomial_evaluation_product_form_from_transcript), verify.rs
// (verify_aggregate_proof, verify_tipp_mipp, gipa_verify_tipp_mipp,
// verify_kzg_v/w), accumulator.rs (PairingChecks), poly.rs, mod.rs
// (AggregateVersion, structured_scalar_power, compress), transcript.rs.
// Carried over: every transcript tag, what each hashes and in which order,
// the V1/V2 differences (V1's first GIPA challenge is "gipa-0" over hcom,
// ip_ab, agg_c and r alone and its KZG point hashes the last challenge and
// the final keys; V2 hashes round 0 into the first challenge, and the
// "gipa-extra-link" challenge and final A, B, C into the KZG point), which
// vectors fold with x and which with x⁻¹, the key polynomials and shifts,
// and the verifier's merging of pairing checks under random coefficients,
// including its use of blstrs' Gt::generator() = e(g1, g2) as the marker
// for 1 (a right side equal to it counts as 1; TestGTMarkerIsBlstrsGenerator
// pins the constant). Differences, none of which changes the bytes of an
// aggregate: the KZG quotient is by synthetic rather than long division
// (the same quotient); an SRS specialized to more proofs than given is cut
// to the count, as Specialize(count) would give, where bellperson's prover
// refuses it and its verifier, using the SRS's n, returns false; Verify
// checks an in-memory Proof as Decode checks bytes (bellperson reads its
// proof from bytes); the merge order of the pairing checks is fixed where
// bellperson's threads race (the product only differs if a partial product
// equals the marker).
//
// Checked against bellperson itself: bellperson d1fa22cb's aggregate_proofs
// (with blstrs 6646be1f, blst dece82ea) run on this package's test fixture
// (TEST-ONLY SRS written by WriteTo and read by bellperson's
// GenericSRS::read, real Groth16 proofs of a small circuit) wrote the same
// bytes as Aggregate for 2, 4 and 8 proofs and for 64 (the 8 repeated, a
// TEST-ONLY SRS for 64), V1 and V2 (TestBellpersonKnownAnswers pins their
// SHA-256), and its
// verify_aggregate_proof accepted those aggregates and refused them under
// another version, swapped or altered inputs and another transcript
// include, as Verify does. The harness that ran it is
// testdata/bellperson-xcheck. Counts above 64 (more than six GIPA rounds)
// were not cross-checked.
//
// The wire format, SRS and transcript were checked against bellperson
// d1fa22cb (src/groth16/aggregate/proof.rs: AggregateProof, TippMippProof,
// GipaProof write/read/parsing_check; srs.rs: GenericSRS, read_mmap,
// specialize, MAX_SRS_SIZE; transcript.rs; commit.rs: Output, Key, scale,
// split, compress, first, single_g1, pair; inner_product.rs: pairing,
// multiexponentiation), blstrs 0.7.1 at
// 6646be1fdf596a51dc68c746a1efb7e199b10865 (src/gt.rs: Compress and
// generator for Gt; src/serde_impl.rs: the transcript's encodings;
// src/g1.rs, src/g2.rs: GroupEncoding; src/fp.rs: from_bytes_le), blst
// dece82ea537b422890888bacde4034ca5b5a44d8 (point uncompression,
// blst_fp12_in_group, final_exp) and rust-fil-proofs
// 87348a749d80447d00c595af834a8ed73c09e4d9 (parameter_cache.rs: the SRS
// prefix it reads; api/seal.rs and api/util.rs: padding, V2), and by
// decoding and re-encoding rust-fil-proofs' 512-proof vector byte for byte
// (TestVector, given a copy of it). The transcript's challenges and the
// commitments' GT values are checked only through the aggregates above;
// an SRS file bellperson wrote was not read here. SnarkPack v1 and v2
// share the proof format.
//
// Layout, in order, no length prefixes other than nproofs:
//
//	com_ab (2 GT) ‖ com_c (2 GT) ‖ ip_ab (GT) ‖ agg_c (G1)
//	‖ nproofs (u32 little-endian)
//	‖ comms_ab (k × 4 GT) ‖ comms_c (k × 4 GT) ‖ z_ab (k × 2 GT) ‖ z_c (k × 2 G1)
//	‖ final_a (G1) ‖ final_b (G2) ‖ final_c (G1)
//	‖ final_vkey (2 G2) ‖ final_wkey (2 G1)
//	‖ vkey_opening (2 G2) ‖ wkey_opening (2 G1)
//
// where k = log2(nproofs). G1 and G2 points are ZCash-compressed (48 and 96
// bytes, big-endian); the identity (0xc0 then zeros) is accepted, as
// bellperson's read_affine accepts it. A GT element is blstrs' torus
// compression: the Fp6 element b = (c0 + 1)/c1 of g = c0 + c1·w, written as
// its six Fp coefficients c0.c0, c0.c1, c1.c0, c1.c1, c2.c0, c2.c1, each 48
// bytes little-endian and below the modulus; it decodes to (b + w)/(b − w),
// which must lie in the order-r subgroup (blst_fp12_in_group).
//
// Where Decode is stricter than bellperson's AggregateProof::read, it is as
// strict as bellperson's verifier, which calls parsing_check first: nproofs
// must be a power of two in [2, 2^20]. One difference remains: read takes a
// stream and ignores whatever follows the proof, while Decode wants the
// exact length (EncodedSize).
package aggregate
