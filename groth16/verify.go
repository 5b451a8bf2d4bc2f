package groth16

import (
	"crypto/rand"
	"fmt"
	"math/big"
	"runtime"

	"github.com/consensys/gnark-crypto/ecc"
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// g2Lines are the Miller-loop line evaluations of a fixed G2 point.
type g2Lines = [2][len(bls12381.LoopCounter) - 1]bls12381.LineEvaluationAff

// PreparedVerifyingKey is a verifying key with the work shared by all
// verifications done once: e(α₁,β₂) and the Miller-loop lines of −γ₂, −δ₂
// and −β₂. It is immutable and safe for concurrent use.
type PreparedVerifyingKey struct {
	ic        []bls12381.G1Affine
	alphaG1   bls12381.G1Affine
	alphaBeta bls12381.GT // e(α₁, β₂)
	negGamma  g2Lines
	negDelta  g2Lines
	negBeta   g2Lines // batch verification folds e(α,β)^Σr into the Miller loop
}

// PrepareVerifyingKey precomputes what Verify needs from vk. vk's IC slice is
// shared, not copied. It returns nil for a nil vk.
func PrepareVerifyingKey(vk *VerifyingKey) *PreparedVerifyingKey {
	if vk == nil {
		return nil
	}
	pvk := prepare(vk)
	// Pair fails only on mismatched lengths; identity points give GT one.
	pvk.alphaBeta, _ = bls12381.Pair([]bls12381.G1Affine{vk.AlphaG1}, []bls12381.G2Affine{vk.BetaG2})
	return pvk
}

// prepare computes the line evaluations, all that BatchVerify needs.
func prepare(vk *VerifyingKey) *PreparedVerifyingKey {
	pvk := &PreparedVerifyingKey{ic: vk.IC, alphaG1: vk.AlphaG1}
	var q bls12381.G2Affine
	pvk.negGamma = bls12381.PrecomputeLines(*q.Neg(&vk.GammaG2))
	pvk.negDelta = bls12381.PrecomputeLines(*q.Neg(&vk.DeltaG2))
	pvk.negBeta = bls12381.PrecomputeLines(*q.Neg(&vk.BetaG2))
	return pvk
}

// Verify checks proof against vk and the public inputs (ONE excluded):
// e(A,B) = e(α₁,β₂)·e(Σ xᵢ·ICᵢ, γ₂)·e(C,δ₂) with x₀ = 1. It returns an error
// wrapping ErrInvalidInput only for a wrong number of inputs, and false for
// any proof that does not verify, including points outside the subgroups.
// To verify many proofs against one key, prepare the key once.
func Verify(vk *VerifyingKey, proof *Proof, public []fr.Element) (bool, error) {
	if vk == nil || proof == nil {
		return false, fmt.Errorf("groth16: nil verifying key or proof: %w", ErrInvalidInput)
	}
	if err := checkInputs(len(vk.IC), -1, public); err != nil {
		return false, err
	}
	if !inSubgroups(proof) {
		return false, nil
	}
	acc, err := inputSum(vk.IC, public)
	if err != nil {
		return false, err
	}
	// One multi-Miller loop: e(A,B)·e(acc,−γ)·e(C,−δ)·e(α,−β) = 1.
	var ng, nd, nb bls12381.G2Affine
	ng.Neg(&vk.GammaG2)
	nd.Neg(&vk.DeltaG2)
	nb.Neg(&vk.BetaG2)
	return bls12381.PairingCheck(
		[]bls12381.G1Affine{proof.A, acc, proof.C, vk.AlphaG1},
		[]bls12381.G2Affine{proof.B, ng, nd, nb})
}

// Verify is Verify with the pairing work on the key already done.
func (pvk *PreparedVerifyingKey) Verify(proof *Proof, public []fr.Element) (bool, error) {
	if pvk == nil || proof == nil {
		return false, fmt.Errorf("groth16: nil verifying key or proof: %w", ErrInvalidInput)
	}
	if err := checkInputs(len(pvk.ic), -1, public); err != nil {
		return false, err
	}
	if !inSubgroups(proof) {
		return false, nil
	}
	acc, err := inputSum(pvk.ic, public)
	if err != nil {
		return false, err
	}
	// e(A,B)·e(acc,−γ)·e(C,−δ) = e(α,β): one final exponentiation.
	ml1, err := bls12381.MillerLoop([]bls12381.G1Affine{proof.A}, []bls12381.G2Affine{proof.B})
	if err != nil {
		return false, err
	}
	ml2, err := bls12381.MillerLoopFixedQ([]bls12381.G1Affine{acc, proof.C}, []g2Lines{pvk.negGamma, pvk.negDelta})
	if err != nil {
		return false, err
	}
	got := bls12381.FinalExponentiation(&ml1, &ml2)
	return got.Equal(&pvk.alphaBeta), nil
}

// BatchVerify checks all proofs at once, like bellperson's
// verify_proofs_batch: with random 128-bit weights rᵢ from crypto/rand it
// tests ∏ e(rᵢAᵢ,Bᵢ)·e(Σ rᵢ·accᵢ,−γ)·e(Σ rᵢCᵢ,−δ)·e(Σrᵢ·α,−β) = 1, which
// fails (except with probability 2⁻¹²⁸) when any single proof is invalid.
// public[i] are proof i's inputs. Errors wrap ErrInvalidInput.
func BatchVerify(vk *VerifyingKey, proofs []Proof, public [][]fr.Element) (bool, error) {
	if vk == nil {
		return false, fmt.Errorf("groth16: nil verifying key: %w", ErrInvalidInput)
	}
	return prepare(vk).BatchVerify(proofs, public)
}

// BatchVerify is BatchVerify with the pairing work on the key already done.
func (pvk *PreparedVerifyingKey) BatchVerify(proofs []Proof, public [][]fr.Element) (bool, error) {
	if pvk == nil {
		return false, fmt.Errorf("groth16: nil verifying key: %w", ErrInvalidInput)
	}
	if len(proofs) == 0 || len(proofs) != len(public) {
		return false, fmt.Errorf("groth16: %d proofs with %d input vectors: %w", len(proofs), len(public), ErrInvalidInput)
	}
	for i := range public {
		if err := checkInputs(len(pvk.ic), i, public[i]); err != nil {
			return false, err
		}
	}
	for i := range proofs {
		if !inSubgroups(&proofs[i]) {
			return false, nil
		}
	}
	n := len(proofs)
	r, err := randomWeights(n)
	if err != nil {
		return false, err
	}

	// IC scalars: Σrᵢ for ONE, Σᵢ rᵢ·xᵢⱼ for input j.
	s := make([]fr.Element, len(pvk.ic))
	var t fr.Element
	for i := range proofs {
		s[0].Add(&s[0], &r[i])
		for j := range public[i] {
			t.Mul(&r[i], &public[i][j])
			s[j+1].Add(&s[j+1], &t)
		}
	}
	accIC, err := msmG1(pvk.ic, s)
	if err != nil {
		return false, err
	}
	cs := make([]bls12381.G1Affine, n)
	rA := make([]bls12381.G1Affine, n)
	bs := make([]bls12381.G2Affine, n)
	var k big.Int
	for i := range proofs {
		cs[i] = proofs[i].C
		bs[i] = proofs[i].B
		rA[i].ScalarMultiplication(&proofs[i].A, r[i].BigInt(&k))
	}
	accC, err := msmG1(cs, r)
	if err != nil {
		return false, err
	}
	var alpha bls12381.G1Affine
	alpha.ScalarMultiplication(&pvk.alphaG1, s[0].BigInt(&k))

	ml1, err := bls12381.MillerLoop(rA, bs)
	if err != nil {
		return false, err
	}
	ml2, err := bls12381.MillerLoopFixedQ([]bls12381.G1Affine{accIC, accC, alpha},
		[]g2Lines{pvk.negGamma, pvk.negDelta, pvk.negBeta})
	if err != nil {
		return false, err
	}
	got := bls12381.FinalExponentiation(&ml1, &ml2)
	return got.IsOne(), nil
}

// checkInputs checks that public fits an IC of icLen points; index ≥ 0
// names the proof in a batch.
func checkInputs(icLen, index int, public []fr.Element) error {
	if len(public)+1 == icLen {
		return nil
	}
	what := "proof"
	if index >= 0 {
		what = fmt.Sprintf("proof %d", index)
	}
	return fmt.Errorf("groth16: %s has %d public inputs, verifying key takes %d: %w", what, len(public), icLen-1, ErrInvalidInput)
}

// inSubgroups guards the pairing: points outside the prime-order subgroups
// could cancel against each other in a batch.
func inSubgroups(p *Proof) bool {
	return p.A.IsInSubGroup() && p.B.IsInSubGroup() && p.C.IsInSubGroup()
}

// inputSum is IC₀ + Σ xᵢ·ICᵢ₊₁.
func inputSum(ic []bls12381.G1Affine, public []fr.Element) (bls12381.G1Affine, error) {
	acc := ic[0]
	if len(public) == 0 {
		return acc, nil
	}
	sum, err := msmG1(ic[1:], public)
	if err != nil {
		return acc, err
	}
	return *acc.Add(&acc, &sum), nil
}

// msmG1 is Σ sᵢ·Pᵢ; verification sizes are small, so short sums skip the
// bucket method's setup.
func msmG1(points []bls12381.G1Affine, scalars []fr.Element) (bls12381.G1Affine, error) {
	var res bls12381.G1Affine
	if len(points) >= 16 {
		_, err := res.MultiExp(points, scalars, ecc.MultiExpConfig{NbTasks: runtime.GOMAXPROCS(0)})
		return res, err
	}
	var acc, t bls12381.G1Jac
	var k big.Int
	for i := range points {
		t.FromAffine(&points[i])
		t.ScalarMultiplication(&t, scalars[i].BigInt(&k))
		acc.AddAssign(&t)
	}
	res.FromJacobian(&acc)
	return res, nil
}

// randomWeights draws n non-zero 128-bit scalars from crypto/rand.
func randomWeights(n int) ([]fr.Element, error) {
	r := make([]fr.Element, n)
	var buf [16]byte
	for i := range r {
		for r[i].IsZero() {
			if _, err := rand.Read(buf[:]); err != nil {
				return nil, fmt.Errorf("groth16: batch weights: %w", err)
			}
			r[i].SetBytes(buf[:])
		}
	}
	return r, nil
}
