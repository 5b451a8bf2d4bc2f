// Package zcash decodes and checks BLS12-381 points in the ZCash encoding
// bellperson and blst read and write. groth16's keys and proofs and
// SnarkPack's SRS and aggregates share it, each with its own policy for the
// identity and the subgroup test.
package zcash

import (
	"bytes"
	"errors"
	"fmt"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
)

// Flag bits in the first byte of an encoded point.
const (
	FlagMask       byte = 0xe0
	FlagCompressed byte = 0x80
	FlagInfinity   byte = 0x40
	FlagSign       byte = 0x20
)

// Reasons a point is refused; callers wrap them with the place and their
// own package's sentinel.
var (
	ErrFlags         = errors.New("invalid flag bits")
	ErrBadInfinity   = errors.New("infinity flag with non-zero coordinates")
	ErrIdentity      = errors.New("point at infinity not allowed here")
	ErrNonCanonical  = errors.New("coordinate not below the field modulus")
	ErrNotOnCurve    = errors.New("point not on the curve")
	ErrNotInSubgroup = errors.New("point not in the prime-order subgroup")
)

// Identity says whether the point at infinity is a valid value.
type Identity uint8

const (
	// RefuseIdentity refuses it (ErrIdentity): where a real key, proof or
	// SRS power never holds it, one marks a corrupt or forged file.
	RefuseIdentity Identity = iota
	// AcceptIdentity takes it where bellperson does, so that a verifier
	// does not refuse what bellperson's accepts. Compressed, it must be as
	// blst wants it: the infinity flag, no sign bit, all other bits zero.
	AcceptIdentity
)

// Subgroup says whether a decoder tests the prime-order subgroup.
type Subgroup uint8

const (
	// CheckSubgroup tests each point as it is decoded.
	CheckSubgroup Subgroup = iota
	// SkipSubgroup leaves the test, about 200 times the cost of decoding,
	// to a caller that tests many points at once (internal/subgroup).
	SkipSubgroup
)

// Point is a G1 or G2 point in gnark-crypto's affine form.
type Point interface {
	*bls12381.G1Affine | *bls12381.G2Affine
	IsInfinity() bool
	IsOnCurve() bool
	IsInSubGroup() bool
}

// DecodeCompressed decodes the compressed point at the start of b (48 bytes
// for G1, 96 for G2) into p, giving a precise reason on failure: flags,
// identity, x encoding, curve, subgroup. What it accepts under
// AcceptIdentity and CheckSubgroup is what blst_p1_uncompress and
// blst_p2_uncompress accept, followed by blstrs' torsion check. Under
// RefuseIdentity the infinity flag is refused before the other bits are
// read. On failure p may hold anything.
func DecodeCompressed[P Point](p P, b []byte, id Identity, sg Subgroup) error {
	n := bls12381.SizeOfG1AffineCompressed
	if _, ok := any(p).(*bls12381.G2Affine); ok {
		n = bls12381.SizeOfG2AffineCompressed
	}
	b = b[:n]
	switch b[0] & FlagMask {
	case FlagCompressed, FlagCompressed | FlagSign:
	case FlagCompressed | FlagInfinity:
		if id == RefuseIdentity {
			return ErrIdentity
		}
		if b[0]&^FlagMask != 0 || !allZero(b[1:]) {
			return ErrBadInfinity
		}
	default:
		return fmt.Errorf("%w 0x%02x (want compressed)", ErrFlags, b[0]&FlagMask)
	}
	// Each 48-byte limb of x must be canonical (blst refuses x ≥ p, gnark
	// would reduce it); checked on a copy with the flags cleared, so any
	// remaining failure means x is not on the curve.
	var limb [fp.Bytes]byte
	var z fp.Element
	for i := 0; i < len(b); i += fp.Bytes {
		copy(limb[:], b[i:i+fp.Bytes])
		if i == 0 {
			limb[0] &^= FlagMask
		}
		if z.SetBytesCanonical(limb[:]) != nil {
			return ErrNonCanonical
		}
	}
	if err := bls12381.NewDecoder(bytes.NewReader(b), bls12381.NoSubgroupChecks()).Decode(p); err != nil {
		return ErrNotOnCurve
	}
	if sg == CheckSubgroup && !p.IsInSubGroup() {
		return ErrNotInSubgroup
	}
	return nil
}

// DecodeUncompressedG1 decodes the 96-byte uncompressed G1 point (x ‖ y) at
// the start of b into p and checks its flags, field encodings and curve
// equation, which any flipped byte breaks; the identity is 0x40 then zeros.
// On failure p may hold anything.
func DecodeUncompressedG1(p *bls12381.G1Affine, b []byte, id Identity, sg Subgroup) error {
	b = b[:bls12381.SizeOfG1AffineUncompressed]
	if done, err := uncompressedInfinity(b, id); done {
		if err == nil {
			*p = bls12381.G1Affine{}
		}
		return err
	}
	if err := setFp(&p.X, b[:fp.Bytes]); err != nil {
		return err
	}
	if err := setFp(&p.Y, b[fp.Bytes:]); err != nil {
		return err
	}
	return checkDecoded(p, sg)
}

// DecodeUncompressedG2 is DecodeUncompressedG1 for the 192-byte G2 encoding
// (x.c1 ‖ x.c0 ‖ y.c1 ‖ y.c0).
func DecodeUncompressedG2(p *bls12381.G2Affine, b []byte, id Identity, sg Subgroup) error {
	b = b[:bls12381.SizeOfG2AffineUncompressed]
	if done, err := uncompressedInfinity(b, id); done {
		if err == nil {
			*p = bls12381.G2Affine{}
		}
		return err
	}
	for i, z := range []*fp.Element{&p.X.A1, &p.X.A0, &p.Y.A1, &p.Y.A0} {
		if err := setFp(z, b[fp.Bytes*i:fp.Bytes*(i+1)]); err != nil {
			return err
		}
	}
	return checkDecoded(p, sg)
}

// uncompressedInfinity reads the flags of the uncompressed point b: done is
// true where they settle the result, err nil for a well-formed identity
// that id accepts.
func uncompressedInfinity(b []byte, id Identity) (done bool, err error) {
	switch b[0] & FlagMask {
	case 0:
		return false, nil
	case FlagInfinity:
		if b[0]&^FlagMask != 0 || !allZero(b[1:]) {
			return true, ErrBadInfinity
		}
		if id == RefuseIdentity {
			return true, ErrIdentity
		}
		return true, nil
	default:
		return true, fmt.Errorf("%w 0x%02x (want uncompressed)", ErrFlags, b[0]&FlagMask)
	}
}

func setFp(z *fp.Element, b []byte) error {
	if z.SetBytesCanonical(b) != nil {
		return ErrNonCanonical
	}
	return nil
}

// checkDecoded checks the curve and, under CheckSubgroup, the subgroup of a
// point decoded from coordinates.
func checkDecoded[P Point](p P, sg Subgroup) error {
	// (0,0) is gnark-crypto's in-memory identity, which IsOnCurve accepts;
	// as coordinates without the infinity flag it is off the curve.
	if p.IsInfinity() || !p.IsOnCurve() {
		return ErrNotOnCurve
	}
	if sg == CheckSubgroup && !p.IsInSubGroup() {
		return ErrNotInSubgroup
	}
	return nil
}

// Check checks an in-memory point as a decoder would its encoding: on the
// curve and in the prime-order subgroup, the identity as id says (gnark's
// (0,0), which encodes as the identity). It lets an encoder refuse to
// write what no reader would accept.
func Check[P Point](p P, id Identity) error {
	switch {
	case p.IsInfinity():
		if id == RefuseIdentity {
			return ErrIdentity
		}
		return nil
	case !p.IsOnCurve():
		return ErrNotOnCurve
	case !p.IsInSubGroup():
		return ErrNotInSubgroup
	}
	return nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
