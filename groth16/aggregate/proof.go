package aggregate

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"

	"github.com/gpuc2/gpuc2/internal/zcash"
)

// ErrFormat reports bytes that are not an aggregate proof, or a Proof that
// cannot be encoded; every such error wraps it and names the field.
var ErrFormat = errors.New("malformed aggregate proof")

// Element sizes and the bounds on nproofs.
const (
	g1Size     = bls12381.SizeOfG1AffineCompressed
	g2Size     = bls12381.SizeOfG2AffineCompressed
	gtSize     = 6 * fp.Bytes // torus-compressed: one Fp6 element
	nproofSize = 4            // u32

	// MinProofs and MaxProofs bound nproofs as bellperson's parsing_check
	// does: at least 2, at most MAX_SRS_SIZE = 2^20 + 1, so 2^20 for a
	// power of two.
	MinProofs = 2
	MaxProofs = 1 << 20

	// fixedSize is everything but the k GIPA rounds.
	fixedSize = 5*gtSize + g1Size + nproofSize + // com_ab, com_c, ip_ab, agg_c, nproofs
		g1Size + g2Size + g1Size + // final_a, final_b, final_c
		2*g2Size + 2*g1Size + // final_vkey, final_wkey
		2*g2Size + 2*g1Size // vkey_opening, wkey_opening
	// roundSize is one GIPA round: comms_ab, comms_c, z_ab, z_c.
	roundSize = 4*gtSize + 4*gtSize + 2*gtSize + 2*g1Size
)

// Commitment is commit::Output: a pair commitment, two GT elements.
type Commitment [2]bls12381.GT

// Proof is bellperson's AggregateProof; field order is the wire order.
type Proof struct {
	ComAB Commitment        // com_ab: commitment to the A and B points
	ComC  Commitment        // com_c: commitment to the C points
	IPAB  bls12381.GT       // ip_ab: the inner pairing product of A^r and B
	AggC  bls12381.G1Affine // agg_c: C^r
	TMIPP TippMippProof     // tmipp
}

// TippMippProof is the GIPA rounds plus the KZG openings of the final
// commitment keys v (in G2) and w (in G1).
type TippMippProof struct {
	GIPA        GipaProof
	VKeyOpening [2]bls12381.G2Affine // vkey_opening
	WKeyOpening [2]bls12381.G1Affine // wkey_opening
}

// GipaProof holds one entry per GIPA round in each slice; all have
// log2(NProofs) entries.
type GipaProof struct {
	NProofs   uint32
	CommsAB   [][2]Commitment        // comms_ab: (left, right) per round
	CommsC    [][2]Commitment        // comms_c
	ZAB       [][2]bls12381.GT       // z_ab
	ZC        [][2]bls12381.G1Affine // z_c
	FinalA    bls12381.G1Affine
	FinalB    bls12381.G2Affine
	FinalC    bls12381.G1Affine
	FinalVKey [2]bls12381.G2Affine
	FinalWKey [2]bls12381.G1Affine
}

// rounds returns log2(n) for a valid nproofs n.
func rounds(n uint32) (int, error) {
	if n < MinProofs || n > MaxProofs || n&(n-1) != 0 {
		return 0, fmt.Errorf("aggregate: field tmipp.gipa.nproofs: %d is not a power of two in [%d, %d]: %w", n, MinProofs, MaxProofs, ErrFormat)
	}
	return bits.TrailingZeros32(n), nil
}

// EncodedSize is the length of an aggregate of nproofs proofs. Callers that
// must accept what bellperson's stream reader accepts can cut the input to
// it before Decode.
func EncodedSize(nproofs uint32) (int, error) {
	k, err := rounds(nproofs)
	if err != nil {
		return 0, err
	}
	return fixedSize + k*roundSize, nil
}

// nproofsOffset is where nproofs sits: after com_ab, com_c, ip_ab, agg_c.
const nproofsOffset = 5*gtSize + g1Size

// Decode parses an aggregate proof of exactly EncodedSize(nproofs) bytes.
// Every point must be on the curve and in the prime-order subgroup, every
// GT element in the order-r subgroup, every coordinate canonical.
func Decode(b []byte) (*Proof, error) {
	if len(b) < nproofsOffset+nproofSize {
		return nil, fmt.Errorf("aggregate: %d bytes, too short to hold nproofs: %w", len(b), ErrFormat)
	}
	n := binary.LittleEndian.Uint32(b[nproofsOffset:])
	size, err := EncodedSize(n)
	if err != nil {
		return nil, err
	}
	if len(b) != size {
		return nil, fmt.Errorf("aggregate: %d bytes, want %d for nproofs %d: %w", len(b), size, n, ErrFormat)
	}
	k := bits.TrailingZeros32(n)
	d := decoder{b: b}
	p := &Proof{}
	d.commitment(&p.ComAB, "com_ab")
	d.commitment(&p.ComC, "com_c")
	d.gt(&p.IPAB, "ip_ab")
	d.g1(&p.AggC, "agg_c")
	g := &p.TMIPP.GIPA
	g.NProofs = n
	d.off += nproofSize
	g.CommsAB = make([][2]Commitment, k)
	for i := range g.CommsAB {
		d.commitment(&g.CommsAB[i][0], fmt.Sprintf("tmipp.gipa.comms_ab[%d].0", i))
		d.commitment(&g.CommsAB[i][1], fmt.Sprintf("tmipp.gipa.comms_ab[%d].1", i))
	}
	g.CommsC = make([][2]Commitment, k)
	for i := range g.CommsC {
		d.commitment(&g.CommsC[i][0], fmt.Sprintf("tmipp.gipa.comms_c[%d].0", i))
		d.commitment(&g.CommsC[i][1], fmt.Sprintf("tmipp.gipa.comms_c[%d].1", i))
	}
	g.ZAB = make([][2]bls12381.GT, k)
	for i := range g.ZAB {
		d.gt(&g.ZAB[i][0], fmt.Sprintf("tmipp.gipa.z_ab[%d].0", i))
		d.gt(&g.ZAB[i][1], fmt.Sprintf("tmipp.gipa.z_ab[%d].1", i))
	}
	g.ZC = make([][2]bls12381.G1Affine, k)
	for i := range g.ZC {
		d.g1(&g.ZC[i][0], fmt.Sprintf("tmipp.gipa.z_c[%d].0", i))
		d.g1(&g.ZC[i][1], fmt.Sprintf("tmipp.gipa.z_c[%d].1", i))
	}
	d.g1(&g.FinalA, "tmipp.gipa.final_a")
	d.g2(&g.FinalB, "tmipp.gipa.final_b")
	d.g1(&g.FinalC, "tmipp.gipa.final_c")
	d.g2(&g.FinalVKey[0], "tmipp.gipa.final_vkey.0")
	d.g2(&g.FinalVKey[1], "tmipp.gipa.final_vkey.1")
	d.g1(&g.FinalWKey[0], "tmipp.gipa.final_wkey.0")
	d.g1(&g.FinalWKey[1], "tmipp.gipa.final_wkey.1")
	d.g2(&p.TMIPP.VKeyOpening[0], "tmipp.vkey_opening.0")
	d.g2(&p.TMIPP.VKeyOpening[1], "tmipp.vkey_opening.1")
	d.g1(&p.TMIPP.WKeyOpening[0], "tmipp.wkey_opening.0")
	d.g1(&p.TMIPP.WKeyOpening[1], "tmipp.wkey_opening.1")
	if d.err != nil {
		return nil, d.err
	}
	return p, nil
}

// decoder reads elements in order; after the first error it reads nothing.
type decoder struct {
	b   []byte
	off int
	err error
}

func (d *decoder) next(n int, field string, decode func([]byte) error) {
	if d.err != nil {
		return
	}
	if err := decode(d.b[d.off : d.off+n]); err != nil {
		d.err = fmt.Errorf("aggregate: field %s at offset %d: %v: %w", field, d.off, err, ErrFormat)
	}
	d.off += n
}

// g1 and g2 accept the identity, as bellperson's read_affine does: a
// verifier must not refuse what bellperson's accepts.
func (d *decoder) g1(p *bls12381.G1Affine, field string) {
	d.next(g1Size, field, func(b []byte) error {
		return zcash.DecodeCompressed(p, b, zcash.AcceptIdentity, zcash.CheckSubgroup)
	})
}

func (d *decoder) g2(p *bls12381.G2Affine, field string) {
	d.next(g2Size, field, func(b []byte) error {
		return zcash.DecodeCompressed(p, b, zcash.AcceptIdentity, zcash.CheckSubgroup)
	})
}

func (d *decoder) gt(z *bls12381.GT, field string) {
	d.next(gtSize, field, func(b []byte) error { return decodeGT(z, b) })
}

func (d *decoder) commitment(c *Commitment, field string) {
	d.gt(&c[0], field+".0")
	d.gt(&c[1], field+".1")
}

// Reasons a GT element fails; points fail with internal/zcash's.
var (
	errGTNotInSubgroup = errors.New("not in the prime-order subgroup")
	errGTOne           = errors.New("GT element ±1 has no torus compression")
)

// gtCoeffs lists the Fp coefficients of a torus-compressed GT element in
// blstrs' write order.
func gtCoeffs(b *bls12381.E6) [6]*fp.Element {
	return [6]*fp.Element{&b.B0.A0, &b.B0.A1, &b.B1.A0, &b.B1.A1, &b.B2.A0, &b.B2.A1}
}

// decodeGT is blstrs' Gt::read_compressed: six canonical little-endian Fp,
// decompressed as (b + w)/(b − w), which must be in the order-r subgroup.
func decodeGT(z *bls12381.GT, b []byte) error {
	var c bls12381.E6
	for i, e := range gtCoeffs(&c) {
		v, err := fp.LittleEndian.Element((*[fp.Bytes]byte)(b[i*fp.Bytes:]))
		if err != nil {
			return zcash.ErrNonCanonical
		}
		*e = v
	}
	*z = c.DecompressTorus()
	if !z.IsInSubGroup() {
		return errGTNotInSubgroup
	}
	return nil
}

// MarshalBinary encodes p as bellperson's AggregateProof::write does. It
// refuses what Decode would refuse, so its output always decodes: an
// invalid nproofs, slices whose length is not log2(nproofs), points off the
// curve or the subgroup, GT elements outside the order-r subgroup.
func (p *Proof) MarshalBinary() ([]byte, error) {
	g := &p.TMIPP.GIPA
	k, err := rounds(g.NProofs)
	if err != nil {
		return nil, err
	}
	for _, s := range []struct {
		name string
		n    int
	}{{"comms_ab", len(g.CommsAB)}, {"comms_c", len(g.CommsC)}, {"z_ab", len(g.ZAB)}, {"z_c", len(g.ZC)}} {
		if s.n != k {
			return nil, fmt.Errorf("aggregate: field tmipp.gipa.%s: %d rounds, want %d for nproofs %d: %w", s.name, s.n, k, g.NProofs, ErrFormat)
		}
	}
	e := encoder{b: make([]byte, 0, fixedSize+k*roundSize)}
	e.commitment(&p.ComAB, "com_ab")
	e.commitment(&p.ComC, "com_c")
	e.gt(&p.IPAB, "ip_ab")
	e.g1(&p.AggC, "agg_c")
	e.b = binary.LittleEndian.AppendUint32(e.b, g.NProofs)
	for i := range g.CommsAB {
		e.commitment(&g.CommsAB[i][0], fmt.Sprintf("tmipp.gipa.comms_ab[%d].0", i))
		e.commitment(&g.CommsAB[i][1], fmt.Sprintf("tmipp.gipa.comms_ab[%d].1", i))
	}
	for i := range g.CommsC {
		e.commitment(&g.CommsC[i][0], fmt.Sprintf("tmipp.gipa.comms_c[%d].0", i))
		e.commitment(&g.CommsC[i][1], fmt.Sprintf("tmipp.gipa.comms_c[%d].1", i))
	}
	for i := range g.ZAB {
		e.gt(&g.ZAB[i][0], fmt.Sprintf("tmipp.gipa.z_ab[%d].0", i))
		e.gt(&g.ZAB[i][1], fmt.Sprintf("tmipp.gipa.z_ab[%d].1", i))
	}
	for i := range g.ZC {
		e.g1(&g.ZC[i][0], fmt.Sprintf("tmipp.gipa.z_c[%d].0", i))
		e.g1(&g.ZC[i][1], fmt.Sprintf("tmipp.gipa.z_c[%d].1", i))
	}
	e.g1(&g.FinalA, "tmipp.gipa.final_a")
	e.g2(&g.FinalB, "tmipp.gipa.final_b")
	e.g1(&g.FinalC, "tmipp.gipa.final_c")
	e.g2(&g.FinalVKey[0], "tmipp.gipa.final_vkey.0")
	e.g2(&g.FinalVKey[1], "tmipp.gipa.final_vkey.1")
	e.g1(&g.FinalWKey[0], "tmipp.gipa.final_wkey.0")
	e.g1(&g.FinalWKey[1], "tmipp.gipa.final_wkey.1")
	e.g2(&p.TMIPP.VKeyOpening[0], "tmipp.vkey_opening.0")
	e.g2(&p.TMIPP.VKeyOpening[1], "tmipp.vkey_opening.1")
	e.g1(&p.TMIPP.WKeyOpening[0], "tmipp.wkey_opening.0")
	e.g1(&p.TMIPP.WKeyOpening[1], "tmipp.wkey_opening.1")
	if e.err != nil {
		return nil, e.err
	}
	return e.b, nil
}

// encoder appends elements in order; after the first error it appends
// nothing.
type encoder struct {
	b   []byte
	err error
}

func (e *encoder) fail(field string, err error) {
	if e.err == nil {
		e.err = fmt.Errorf("aggregate: field %s: %v: %w", field, err, ErrFormat)
	}
}

func (e *encoder) g1(p *bls12381.G1Affine, field string) {
	if e.err != nil {
		return
	}
	if err := zcash.Check(p, zcash.AcceptIdentity); err != nil {
		e.fail(field, err)
		return
	}
	c := p.Bytes()
	e.b = append(e.b, c[:]...)
}

func (e *encoder) g2(p *bls12381.G2Affine, field string) {
	if e.err != nil {
		return
	}
	if err := zcash.Check(p, zcash.AcceptIdentity); err != nil {
		e.fail(field, err)
		return
	}
	c := p.Bytes()
	e.b = append(e.b, c[:]...)
}

// gt is blstrs' Gt::write_compressed: b = (c0 + 1)/c1, where blstrs
// panics on c1 = 0 (only ±1, neither of order r besides 1 itself).
func (e *encoder) gt(z *bls12381.GT, field string) {
	if e.err != nil {
		return
	}
	if !z.IsInSubGroup() {
		e.fail(field, errGTNotInSubgroup)
		return
	}
	c, err := z.CompressTorus()
	if err != nil {
		e.fail(field, errGTOne)
		return
	}
	var limb [fp.Bytes]byte
	for _, v := range gtCoeffs(&c) {
		fp.LittleEndian.PutElement(&limb, *v)
		e.b = append(e.b, limb[:]...)
	}
}

func (e *encoder) commitment(c *Commitment, field string) {
	e.gt(&c[0], field+".0")
	e.gt(&c[1], field+".1")
}
