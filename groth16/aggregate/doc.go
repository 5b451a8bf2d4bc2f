// Package aggregate holds the parts of SnarkPack (bellperson's
// groth16::aggregate) built so far: the wire format of an aggregate proof
// (AggregateProof, the bytes filecoin-proofs' aggregate_seal_commit_proofs
// returns), the inner-product SRS (its file format, its specialization to a
// proof count and a TEST-ONLY generator), the Fiat–Shamir transcript, and
// the commitments and inner products the prover and verifier build on
// (CommitPair, CommitSingleG1, Key's GIPA operations, the pairing product
// and the G1 multiexponentiation). There is no aggregating prover and no
// verifier yet (issue 58). The GT values they will commit to and hash are
// bellperson's: gnark-crypto's final exponentiation raises to 3·(p¹²−1)/r,
// and so does blst's final_exp (TestFinalExponentiationIsBlsts).
//
// Checked against bellperson d1fa22cbed33ca5281a3c52ed8c91af5af64f3e3
// (src/groth16/aggregate/proof.rs: AggregateProof, TippMippProof, GipaProof
// write/read/parsing_check; srs.rs: GenericSRS, read_mmap, specialize,
// MAX_SRS_SIZE; transcript.rs; commit.rs: Output, Key, scale, split,
// compress, first, single_g1, pair; inner_product.rs: pairing,
// multiexponentiation), blstrs 0.7.1 at
// 6646be1fdf596a51dc68c746a1efb7e199b10865 (src/gt.rs: Compress for Gt;
// src/g1.rs, src/g2.rs: GroupEncoding; src/fp.rs: from_bytes_le), blst
// dece82ea537b422890888bacde4034ca5b5a44d8 (point uncompression,
// blst_fp12_in_group, final_exp) and rust-fil-proofs
// 87348a749d80447d00c595af834a8ed73c09e4d9 (parameter_cache.rs: the SRS
// prefix it reads), and by decoding and re-encoding rust-fil-proofs'
// 512-proof vector byte for byte (TestVector, given a copy of it). Not
// checked against bytes bellperson made: the SRS file, the transcript's
// challenges and the commitments' GT values (no Rust build here, no such
// vectors). SnarkPack v1 and v2 share the proof format; the version only
// changes the transcript.
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
