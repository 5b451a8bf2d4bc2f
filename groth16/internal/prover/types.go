package prover

import (
	"errors"
	"time"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

// The sentinels groth16 exports as its own (groth16.ErrKeyMismatch,
// groth16.ErrInvalidInput): errors.Is sees one value in both packages.
var (
	// ErrKeyMismatch reports a proving key whose sections do not fit the circuit.
	ErrKeyMismatch = errors.New("groth16: proving key does not match the circuit")
	// ErrInvalidInput reports arguments that do not fit together.
	ErrInvalidInput = errors.New("invalid groth16 input")
)

// VerifyingKey has groth16.VerifyingKey's layout; (*VerifyingKey)(vk)
// converts one.
type VerifyingKey struct {
	AlphaG1 bls12381.G1Affine
	BetaG1  bls12381.G1Affine
	BetaG2  bls12381.G2Affine
	GammaG2 bls12381.G2Affine
	DeltaG1 bls12381.G1Affine
	DeltaG2 bls12381.G2Affine
	IC      []bls12381.G1Affine
}

// Proof has groth16.Proof's layout; (*groth16.Proof)(p) converts one.
type Proof struct {
	A bls12381.G1Affine
	B bls12381.G2Affine
	C bls12381.G1Affine
}

// Counts has groth16.SectionCounts' layout: the lengths of a proving key's
// h, l, a and b sections; Counts(c) converts one.
type Counts struct {
	H, L, A, B int
}

// Timings has groth16.Timings' layout; (*Timings)(t) converts one.
type Timings struct {
	Synthesis time.Duration
	H         time.Duration
	MSMH      time.Duration
	MSML      time.Duration
	MSMA      time.Duration
	MSMBG1    time.Duration
	MSMBG2    time.Duration
	Total     time.Duration
}
