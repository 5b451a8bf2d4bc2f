package groth16

import (
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

// VerifyingKey is bellperson's verifying key, in the paper's notation:
// e(A,B) = e(α₁,β₂)·e(Σ xᵢ·ICᵢ, γ₂)·e(C, δ₂), with x₀ = 1 (the ONE input).
type VerifyingKey struct {
	AlphaG1 bls12381.G1Affine
	BetaG1  bls12381.G1Affine
	BetaG2  bls12381.G2Affine
	GammaG2 bls12381.G2Affine
	DeltaG1 bls12381.G1Affine
	DeltaG2 bls12381.G2Affine
	// IC holds one point per public input, ONE first: (β·uᵢ(τ)+α·vᵢ(τ)+wᵢ(τ))/γ.
	IC []bls12381.G1Affine
}

// NumPublicInputs is the number of public inputs a proof is verified
// against, not counting ONE.
func (vk *VerifyingKey) NumPublicInputs() int { return len(vk.IC) - 1 }

// SectionCounts are the lengths of the five query sections of a proving key.
type SectionCounts struct {
	H int // m−1 points: τⁱ·Z(τ)/δ
	L int // one per aux variable: (β·uᵢ+α·vᵢ+wᵢ)/δ
	A int // inputs, then aux with a non-zero A column: uᵢ(τ)
	B int // inputs and aux with a non-zero B column: vᵢ(τ) (same count in G1 and G2)
}

// Section returns the number of points in section s (SectionH, SectionL,
// SectionA, SectionBG1 or SectionBG2: b_g1 and b_g2 have B each).
func (c SectionCounts) Section(s int) int {
	switch s {
	case SectionH:
		return c.H
	case SectionL:
		return c.L
	case SectionA:
		return c.A
	default:
		return c.B
	}
}
