// Package groth16 is Groth16 over BLS12-381 in bellperson's formats: the
// .vk and .params files Filecoin distributes, the 192-byte proof encoding,
// verification, and the provers that produce proofs from those keys.
//
// # Formats
//
// Points use the ZCash encoding: big-endian coordinates, flags in the top
// three bits of byte 0 (0x80 compressed, 0x40 infinity, 0x20 larger y);
// G1 is x‖y (96 bytes, 48 compressed), G2 is x.c1‖x.c0‖y.c1‖y.c0 (192, 96).
//
//   - .vk: alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2
//     uncompressed, a u32 big-endian count, then the IC points (ONE's first):
//     868 + 96·|ic| bytes, nothing after. ReadVerifyingKey checks every
//     point.
//   - .params: the .vk bytes, then the sections h, l, a, b_g1 (G1) and b_g2
//     (G2), each a u32 big-endian count and uncompressed points.
//     OpenProvingKey maps the file and checks only its layout; each section
//     is decoded on first use, its points checked for flags, field
//     encodings and the curve equation (Filecoin checks none of this and
//     trusts the file's digest), and for the subgroup too with
//     WithChecked(true). A file that shrinks while mapped gives errors, not
//     SIGBUS. WithDigestCheck checks a file's digest first (CheckDigest,
//     ExpectedDigest: Filecoin's published one, else the sidecar the
//     writers leave). WriteParams (WriteParamsContext: cancellable, with
//     progress) writes a key through a temporary file and a rename; an
//     in-memory key (a Setup's) is encoded on all cores, each chunk written
//     at its offset.
//   - Proof: A ‖ B ‖ C compressed, ProofSize = 192 bytes; a sector's
//     partition proofs are concatenated (MarshalProofs, UnmarshalProofs).
//     Decoding rejects identity points and points outside the subgroups;
//     encoding refuses them (and points off the curve) just the same.
//
// Every decoding error wraps ErrMalformedKey or ErrMalformedProof and says
// where the bad bytes are (section, element, byte offset); bad input never
// panics and untrusted counts are checked against the data before any
// allocation.
//
// # Usage
//
//	pk, err := groth16.OpenProvingKey(path)
//	if err != nil { … }
//	defer pk.Close()
//	proof, err := groth16.Prove(ctx, &groth16.CPUProver{}, pk, circuit)
//	if err != nil { … }
//	ok, err := groth16.Verify(pk.VerifyingKey(), proof, publicInputs)
//
// Verify checks e(A,B) = e(α₁,β₂)·e(Σ xᵢ·ICᵢ, γ₂)·e(C,δ₂) with x₀ = 1;
// PrepareVerifyingKey does the per-key pairing work once, and BatchVerify
// checks many proofs with one multi-pairing and random 128-bit weights.
//
// # Concurrency
//
// ProvingKey, VerifyingKey and PreparedVerifyingKey are safe for concurrent
// use once built. The section accessors (H, L, A, BG1, BG2) decode on
// GOMAXPROCS goroutines; concurrent callers share one decode, a cancelled
// decode is not cached, and the returned slices are shared and read-only.
// Evict drops the decoded sections; Close waits for decodes in progress,
// then unmaps the file.
//
// CPUProver stops within a fraction of a second of its context being
// cancelled: the quotient's transforms run as many short steps (gnark-crypto
// FFTs of 2^14 points and the levels above them) and the MSMs as calls of
// about 100 ms, with ctx checked between steps, every goroutine finished when
// Prove returns (TestCPUProverCancelLatency measures it).
//
// # Other provers
//
// Prover is what a backend implements; the GPU's, package groth16/gpu,
// implements it outside this package. What it shares with CPUProver — one
// proof's options as ProveOptions set them, the skeleton every prover runs
// (blinding, the six sections in order, the assembly) and the checks of a
// witness against a key or matrices — is groth16/internal/prover, which
// only groth16 and groth16/gpu import; from this package it reads the
// key's sections (SectionG1Into, BG2Into, EvictSection, SectionCounts.Section).
//
// Setup runs its fixed-base multiplications on the CPU, or with any
// msm.FixedBaseEngine (WithSetupEngine: msm/cuda's on a GPU). The package
// does not depend on the native library or on gpulock.
//
// # Constraint matrices
//
// WithMatrices gives Prove a circuit's compiled R1CS matrices (package
// synth/pce), with which it proves a witness-only assignment
// (synth.NewWitnessAssignment): the CPU evaluates a, b, c from them; a GPU
// may evaluate them on the device (package groth16/gpu).
package groth16
