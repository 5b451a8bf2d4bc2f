package groth16

import (
	"fmt"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/gpuc2/gpuc2/internal/zcash"
)

// ProofSize is the length of an encoded proof: A (48) ‖ B (96) ‖ C (48).
const ProofSize = g1Compressed + g2Compressed + g1Compressed

// Proof is a Groth16 proof. Its binary form is bellperson's: the three points
// compressed in the ZCash encoding. Filecoin concatenates one per partition.
type Proof struct {
	A bls12381.G1Affine
	B bls12381.G2Affine
	C bls12381.G1Affine
}

// MarshalBinary returns the 192-byte encoding of p. Points that no reader
// would accept are refused (ErrMalformedProof, naming the point): identity,
// off the curve, outside the prime-order subgroup. A prover fed a corrupt
// key could make such a point; it never leaves as proof bytes.
func (p *Proof) MarshalBinary() ([]byte, error) {
	return p.appendBinary(make([]byte, 0, ProofSize), "proof")
}

func (p *Proof) appendBinary(b []byte, what string) ([]byte, error) {
	for _, c := range []struct {
		name string
		err  error
	}{
		{"A", zcash.Check(&p.A, zcash.RefuseIdentity)},
		{"B", zcash.Check(&p.B, zcash.RefuseIdentity)},
		{"C", zcash.Check(&p.C, zcash.RefuseIdentity)},
	} {
		if c.err != nil {
			return b, fmt.Errorf("groth16: %s point %s: %v: %w", what, c.name, c.err, ErrMalformedProof)
		}
	}
	a, bb, c := p.A.Bytes(), p.B.Bytes(), p.C.Bytes()
	b = append(b, a[:]...)
	b = append(b, bb[:]...)
	return append(b, c[:]...), nil
}

// UnmarshalBinary decodes exactly ProofSize bytes. Each point must be a
// compressed encoding of a non-identity point of the prime-order subgroup;
// errors wrap ErrMalformedProof and name the point.
func (p *Proof) UnmarshalBinary(b []byte) error {
	if len(b) != ProofSize {
		return fmt.Errorf("groth16: proof is %d bytes, want %d: %w", len(b), ProofSize, ErrMalformedProof)
	}
	return p.decode(b, "proof")
}

// decode decodes a proof of ProofSize bytes; what names it in errors.
func (p *Proof) decode(b []byte, what string) error {
	var q Proof
	const offB, offC = g1Compressed, g1Compressed + g2Compressed
	if err := zcash.DecodeCompressed(&q.A, b[:offB], zcash.RefuseIdentity, zcash.CheckSubgroup); err != nil {
		return fmt.Errorf("groth16: %s point A at offset 0: %v: %w", what, err, ErrMalformedProof)
	}
	if err := zcash.DecodeCompressed(&q.B, b[offB:offC], zcash.RefuseIdentity, zcash.CheckSubgroup); err != nil {
		return fmt.Errorf("groth16: %s point B at offset %d: %v: %w", what, offB, err, ErrMalformedProof)
	}
	if err := zcash.DecodeCompressed(&q.C, b[offC:ProofSize], zcash.RefuseIdentity, zcash.CheckSubgroup); err != nil {
		return fmt.Errorf("groth16: %s point C at offset %d: %v: %w", what, offC, err, ErrMalformedProof)
	}
	*p = q
	return nil
}

// MarshalProofs concatenates the encodings of ps in order, as Filecoin does
// for the partition proofs of one sector.
func MarshalProofs(ps []Proof) ([]byte, error) {
	b := make([]byte, 0, len(ps)*ProofSize)
	for i := range ps {
		var err error
		if b, err = ps[i].appendBinary(b, fmt.Sprintf("proof %d", i)); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// UnmarshalProofs splits b into proofs; its length must be a positive
// multiple of ProofSize.
func UnmarshalProofs(b []byte) ([]Proof, error) {
	if len(b) == 0 || len(b)%ProofSize != 0 {
		return nil, fmt.Errorf("groth16: %d bytes is not a positive multiple of %d: %w", len(b), ProofSize, ErrMalformedProof)
	}
	ps := make([]Proof, len(b)/ProofSize)
	for i := range ps {
		if err := ps[i].decode(b[i*ProofSize:], fmt.Sprintf("proof %d", i)); err != nil {
			return nil, err
		}
	}
	return ps, nil
}
