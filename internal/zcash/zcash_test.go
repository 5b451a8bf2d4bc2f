package zcash_test

import (
	"bytes"
	"errors"
	"math/big"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/internal/testpoints"
	"github.com/gpuc2/gpuc2/internal/zcash"
)

// encoding is one of the four point encodings: decode decodes b's prefix
// under a policy and returns the decoded point re-encoded, and what Check
// says of it.
type encoding struct {
	name       string
	size       int
	compressed bool
	decode     func(b []byte, id zcash.Identity, sg zcash.Subgroup) (again []byte, check, err error)
}

var (
	g1Compressed = encoding{"G1 compressed", bls12381.SizeOfG1AffineCompressed, true,
		func(b []byte, id zcash.Identity, sg zcash.Subgroup) ([]byte, error, error) {
			var p bls12381.G1Affine
			err := zcash.DecodeCompressed(&p, b, id, sg)
			e := p.Bytes()
			return e[:], zcash.Check(&p, id), err
		}}
	g2Compressed = encoding{"G2 compressed", bls12381.SizeOfG2AffineCompressed, true,
		func(b []byte, id zcash.Identity, sg zcash.Subgroup) ([]byte, error, error) {
			var p bls12381.G2Affine
			err := zcash.DecodeCompressed(&p, b, id, sg)
			e := p.Bytes()
			return e[:], zcash.Check(&p, id), err
		}}
	g1Uncompressed = encoding{"G1 uncompressed", bls12381.SizeOfG1AffineUncompressed, false,
		func(b []byte, id zcash.Identity, sg zcash.Subgroup) ([]byte, error, error) {
			var p bls12381.G1Affine
			p.X.SetOne() // a decoded identity must overwrite it
			err := zcash.DecodeUncompressedG1(&p, b, id, sg)
			e := p.RawBytes()
			return e[:], zcash.Check(&p, id), err
		}}
	g2Uncompressed = encoding{"G2 uncompressed", bls12381.SizeOfG2AffineUncompressed, false,
		func(b []byte, id zcash.Identity, sg zcash.Subgroup) ([]byte, error, error) {
			var p bls12381.G2Affine
			p.X.A0.SetOne()
			err := zcash.DecodeUncompressedG2(&p, b, id, sg)
			e := p.RawBytes()
			return e[:], zcash.Check(&p, id), err
		}}
	encodings = []encoding{g1Compressed, g2Compressed, g1Uncompressed, g2Uncompressed}
)

type policy struct {
	id zcash.Identity
	sg zcash.Subgroup
}

var policies = []policy{
	{zcash.RefuseIdentity, zcash.CheckSubgroup},
	{zcash.RefuseIdentity, zcash.SkipSubgroup},
	{zcash.AcceptIdentity, zcash.CheckSubgroup},
	{zcash.AcceptIdentity, zcash.SkipSubgroup},
}

func (p policy) String() string {
	return [...]string{"refuse identity", "accept identity"}[p.id] + ", " +
		[...]string{"check subgroup", "skip subgroup"}[p.sg]
}

var reasons = []error{zcash.ErrFlags, zcash.ErrBadInfinity, zcash.ErrIdentity,
	zcash.ErrNonCanonical, zcash.ErrNotOnCurve, zcash.ErrNotInSubgroup}

// always, identity and subgroup say what a case wants under a policy.
func always(err error) func(policy) error { return func(policy) error { return err } }

func identity(accepted error) func(policy) error {
	return func(p policy) error {
		if p.id == zcash.RefuseIdentity {
			return zcash.ErrIdentity
		}
		return accepted
	}
}

func subgroup(p policy) error {
	if p.sg == zcash.CheckSubgroup {
		return zcash.ErrNotInSubgroup
	}
	return nil
}

func TestDecode(t *testing.T) {
	g1, g2 := pointG1(), pointG2()
	var ng1 bls12381.G1Affine
	var ng2 bls12381.G2Affine
	ng1.Neg(&g1) // the other sign bit
	ng2.Neg(&g2)
	c1, nc1, c2, nc2 := g1.Bytes(), ng1.Bytes(), g2.Bytes(), ng2.Bytes()
	require.Equal(t, zcash.FlagSign, c1[0]^nc1[0])
	require.Equal(t, zcash.FlagSign, c2[0]^nc2[0])
	out1, out2 := testpoints.OutsideG1(t), testpoints.OutsideG2(t)
	modulus := fp.Modulus().FillBytes(make([]byte, fp.Bytes))

	type tc struct {
		name string
		enc  encoding
		b    []byte
		want func(policy) error
	}
	var cases []tc
	add := func(name string, enc encoding, b []byte, want func(policy) error) {
		cases = append(cases, tc{name, enc, b, want})
	}

	// Good points, both signs, and the identity.
	for i, p := range []*bls12381.G1Affine{&g1, &ng1} {
		c, r := p.Bytes(), p.RawBytes()
		name := [...]string{"good", "good, negated"}[i]
		add(name, g1Compressed, c[:], always(nil))
		add(name, g1Uncompressed, r[:], always(nil))
	}
	for i, p := range []*bls12381.G2Affine{&g2, &ng2} {
		c, r := p.Bytes(), p.RawBytes()
		name := [...]string{"good", "good, negated"}[i]
		add(name, g2Compressed, c[:], always(nil))
		add(name, g2Uncompressed, r[:], always(nil))
	}
	for _, enc := range encodings {
		b := make([]byte, enc.size)
		b[0] = zcash.FlagInfinity
		if enc.compressed {
			b[0] |= zcash.FlagCompressed
		}
		add("identity", enc, b, identity(nil))

		// Infinity with other bits set: a compressed decoder refusing the
		// identity looks no further.
		bad := always(zcash.ErrBadInfinity)
		if enc.compressed {
			bad = identity(zcash.ErrBadInfinity)
		}
		last := bytes.Clone(b)
		last[len(last)-1] = 1
		add("infinity, last byte set", enc, last, bad)
		low := bytes.Clone(b)
		low[0] |= 1
		add("infinity, byte 0 low bit set", enc, low, bad)

		// Flags of the other encoding, and infinity with the sign bit.
		for _, f := range []byte{0, zcash.FlagSign, zcash.FlagInfinity, zcash.FlagCompressed,
			zcash.FlagCompressed | zcash.FlagSign, zcash.FlagCompressed | zcash.FlagInfinity,
			zcash.FlagMask, zcash.FlagInfinity | zcash.FlagSign} {
			valid := f == 0 || f == zcash.FlagInfinity
			if enc.compressed {
				valid = f == zcash.FlagCompressed || f == zcash.FlagCompressed|zcash.FlagSign ||
					f == zcash.FlagCompressed|zcash.FlagInfinity
			}
			if valid {
				continue
			}
			fb := make([]byte, enc.size)
			fb[0] = f
			add("flags", enc, fb, always(zcash.ErrFlags))
		}
	}

	// x (or a coordinate) not below the modulus, in each 48-byte limb.
	for _, enc := range encodings {
		good := map[string][]byte{}
		r1, r2 := g1.RawBytes(), g2.RawBytes()
		good[g1Compressed.name], good[g2Compressed.name] = c1[:], c2[:]
		good[g1Uncompressed.name], good[g2Uncompressed.name] = r1[:], r2[:]
		for off := 0; off < enc.size; off += fp.Bytes {
			b := bytes.Clone(good[enc.name])
			flags := b[0] & zcash.FlagMask
			copy(b[off:], modulus)
			b[0] |= flags
			add("non-canonical limb", enc, b, always(zcash.ErrNonCanonical))
		}
	}

	// Off the curve.
	add("x off the curve", g1Compressed, offCurveG1(t), always(zcash.ErrNotOnCurve))
	add("x off the curve", g2Compressed, offCurveG2(t), always(zcash.ErrNotOnCurve))
	r1, r2 := g1.RawBytes(), g2.RawBytes()
	r1[len(r1)-1] ^= 1
	r2[len(r2)-1] ^= 1
	add("y changed", g1Uncompressed, r1[:], always(zcash.ErrNotOnCurve))
	add("y changed", g2Uncompressed, r2[:], always(zcash.ErrNotOnCurve))
	// (0,0), gnark's in-memory identity, is no point without the flag.
	add("(0,0)", g1Uncompressed, make([]byte, g1Uncompressed.size), always(zcash.ErrNotOnCurve))
	add("(0,0)", g2Uncompressed, make([]byte, g2Uncompressed.size), always(zcash.ErrNotOnCurve))

	// On the curve, outside the prime-order subgroup.
	oc1, oc2, or1, or2 := out1.Bytes(), out2.Bytes(), out1.RawBytes(), out2.RawBytes()
	add("outside the subgroup", g1Compressed, oc1[:], subgroup)
	add("outside the subgroup", g2Compressed, oc2[:], subgroup)
	add("outside the subgroup", g1Uncompressed, or1[:], subgroup)
	add("outside the subgroup", g2Uncompressed, or2[:], subgroup)

	for _, c := range cases {
		for _, p := range policies {
			t.Run(c.enc.name+"/"+c.name+"/"+p.String(), func(t *testing.T) {
				want := c.want(p)
				again, check, err := c.enc.decode(c.b, p.id, p.sg)
				if want != nil {
					require.ErrorIs(t, err, want)
					return
				}
				require.NoError(t, err)
				require.Equal(t, c.b, again, "re-encoding")
				if p.sg == zcash.CheckSubgroup {
					require.NoError(t, check)
				}
			})
		}
	}
}

// The decoders read their encoding's length from a longer slice.
func TestDecodePrefix(t *testing.T) {
	g1, g2 := pointG1(), pointG2()
	c1, c2, r1, r2 := g1.Bytes(), g2.Bytes(), g1.RawBytes(), g2.RawBytes()
	tail := bytes.Repeat([]byte{0xff}, 200)
	for _, c := range []struct {
		enc encoding
		b   []byte
	}{{g1Compressed, c1[:]}, {g2Compressed, c2[:]}, {g1Uncompressed, r1[:]}, {g2Uncompressed, r2[:]}} {
		again, _, err := c.enc.decode(append(bytes.Clone(c.b), tail...), zcash.RefuseIdentity, zcash.CheckSubgroup)
		require.NoError(t, err, c.enc.name)
		require.Equal(t, c.b, again, c.enc.name)
	}
}

func TestFlagsMessage(t *testing.T) {
	var p bls12381.G1Affine
	err := zcash.DecodeCompressed(&p, make([]byte, 48), zcash.AcceptIdentity, zcash.CheckSubgroup)
	require.EqualError(t, err, "invalid flag bits 0x00 (want compressed)")
	b := make([]byte, 96)
	b[0] = 0xc0
	err = zcash.DecodeUncompressedG1(&p, b, zcash.AcceptIdentity, zcash.CheckSubgroup)
	require.EqualError(t, err, "invalid flag bits 0xc0 (want uncompressed)")
}

func TestCheck(t *testing.T) {
	g1, g2 := pointG1(), pointG2()
	out1, out2 := testpoints.OutsideG1(t), testpoints.OutsideG2(t)
	var off1 bls12381.G1Affine
	off1.X.SetOne()
	off1.Y.SetOne()
	var off2 bls12381.G2Affine
	off2.X.A0.SetOne()
	off2.Y.A0.SetOne()
	for _, id := range []zcash.Identity{zcash.RefuseIdentity, zcash.AcceptIdentity} {
		wantIdentity := error(nil)
		if id == zcash.RefuseIdentity {
			wantIdentity = zcash.ErrIdentity
		}
		require.NoError(t, zcash.Check(&g1, id))
		require.NoError(t, zcash.Check(&g2, id))
		require.Equal(t, wantIdentity, zcash.Check(&bls12381.G1Affine{}, id))
		require.Equal(t, wantIdentity, zcash.Check(&bls12381.G2Affine{}, id))
		require.Equal(t, zcash.ErrNotOnCurve, zcash.Check(&off1, id))
		require.Equal(t, zcash.ErrNotOnCurve, zcash.Check(&off2, id))
		require.Equal(t, zcash.ErrNotInSubgroup, zcash.Check(&out1, id))
		require.Equal(t, zcash.ErrNotInSubgroup, zcash.Check(&out2, id))
	}
}

// FuzzDecode decodes arbitrary bytes in each encoding under each policy:
// whatever is accepted re-encodes to the same bytes, is accepted under
// every looser policy, and passes Check as far as the policy tested it;
// every refusal is one of the package's reasons.
func FuzzDecode(f *testing.F) {
	g1, g2 := pointG1(), pointG2()
	out1, out2 := testpoints.OutsideG1(f), testpoints.OutsideG2(f)
	for _, b := range [][]byte{
		g1.Marshal(), g2.Marshal(), out1.Marshal(), out2.Marshal(),
		append([]byte{0xc0}, make([]byte, 191)...),
		append([]byte{0x40}, make([]byte, 191)...),
		offCurveG1(f), offCurveG2(f),
	} {
		f.Add(b)
	}
	c1, c2 := g1.Bytes(), g2.Bytes()
	f.Add(c1[:])
	f.Add(c2[:])
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, enc := range encodings {
			if len(b) < enc.size {
				continue
			}
			ok := map[policy]bool{}
			for _, p := range policies {
				again, check, err := enc.decode(b, p.id, p.sg)
				if err != nil {
					known := false
					for _, r := range reasons {
						known = known || errors.Is(err, r)
					}
					require.True(t, known, "%s, %s: %v", enc.name, p, err)
					continue
				}
				ok[p] = true
				require.Equal(t, b[:enc.size], again, "%s, %s: re-encoding", enc.name, p)
				if p.sg == zcash.CheckSubgroup {
					require.NoError(t, check, "%s, %s", enc.name, p)
				} else if check != nil {
					require.ErrorIs(t, check, zcash.ErrNotInSubgroup, "%s, %s", enc.name, p)
				}
			}
			for _, p := range policies {
				if ok[p] {
					for _, q := range policies {
						if q.id >= p.id && q.sg >= p.sg {
							require.True(t, ok[q], "%s: accepted under %s, not %s", enc.name, p, q)
						}
					}
				}
			}
		}
	})
}

// pointG1 and pointG2 return points of the subgroups other than the
// generators.
func pointG1() bls12381.G1Affine {
	_, _, g, _ := bls12381.Generators()
	var p bls12381.G1Affine
	p.ScalarMultiplication(&g, big.NewInt(0x1234567890abcdef))
	return p
}

func pointG2() bls12381.G2Affine {
	_, _, _, h := bls12381.Generators()
	var p bls12381.G2Affine
	p.ScalarMultiplication(&h, big.NewInt(0x7edcba9876543210))
	return p
}

// offCurveG1 returns a compressed x with no point on E: x³ + 4 is not a
// square.
func offCurveG1(t testing.TB) []byte {
	var x, rhs, four fp.Element
	four.SetUint64(4)
	for k := uint64(1); k < 1000; k++ {
		x.SetUint64(k)
		rhs.Square(&x).Mul(&rhs, &x).Add(&rhs, &four)
		if rhs.Legendre() == -1 {
			b := x.Bytes()
			b[0] |= zcash.FlagCompressed
			return b[:]
		}
	}
	t.Fatal("no x off E found")
	return nil
}

// offCurveG2 is offCurveG1 for the twist, y² = x³ + 4(1 + u).
func offCurveG2(t testing.TB) []byte {
	var x, rhs, b bls12381.E2
	b.A0.SetUint64(4)
	b.A1.SetUint64(4)
	for k := uint64(1); k < 1000; k++ {
		x.A0.SetUint64(k)
		x.A1.SetUint64(1)
		rhs.Square(&x).Mul(&rhs, &x).Add(&rhs, &b)
		if rhs.Legendre() == -1 {
			c1, c0 := x.A1.Bytes(), x.A0.Bytes()
			e := append(c1[:], c0[:]...)
			e[0] |= zcash.FlagCompressed
			return e
		}
	}
	t.Fatal("no x off the twist found")
	return nil
}
