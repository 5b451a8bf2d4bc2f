package aggregate

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/testcircuit"
	"github.com/gpuc2/gpuc2/internal/testprove"
	"github.com/gpuc2/gpuc2/internal/zcash"
)

// maxTestProofs is the most proofs the tests aggregate; the TEST-ONLY SRS
// is made for it once.
const maxTestProofs = 8

// fixture holds real Groth16 proofs of testcircuit.Cubic, proof i for
// x = i+1 (public input x³+x+5), and one more for x = 100. Setup, proofs
// and SRS come from fixed seeds, so aggregates of them have fixed bytes
// (TestBellpersonKnownAnswers).
type fixture struct {
	vk     *groth16.VerifyingKey
	proofs []groth16.Proof
	inputs [][]fr.Element
	other  groth16.Proof
	otherI []fr.Element
	gen    *GenericSRS
	psrs   *ProverSRS
	vsrs   *VerifierSRS
}

var (
	fixtureMu  sync.Mutex
	fixtureVal *fixture
)

func testFixture(t testing.TB) *fixture {
	t.Helper()
	fixtureMu.Lock()
	defer fixtureMu.Unlock()
	if fixtureVal != nil {
		return fixtureVal
	}
	pk := testprove.Setup(t, &testcircuit.Cubic{}, 11)
	f := &fixture{vk: pk.VerifyingKey()}
	prove := func(x uint64) (groth16.Proof, []fr.Element) {
		c := &testcircuit.Cubic{}
		c.X.SetUint64(x)
		p := testprove.Prove(t, pk, c, testprove.Randomness(x, x+1000))
		out := c.Out()
		ok, err := groth16.Verify(f.vk, p, []fr.Element{out})
		require.NoError(t, err)
		require.True(t, ok)
		return *p, []fr.Element{out}
	}
	for i := range maxTestProofs {
		p, in := prove(uint64(i + 1))
		f.proofs = append(f.proofs, p)
		f.inputs = append(f.inputs, in)
	}
	f.other, f.otherI = prove(100)
	var err error
	f.gen, err = TestOnlySRS(rand.NewChaCha8([32]byte{7}), maxTestProofs)
	require.NoError(t, err)
	f.psrs, f.vsrs, err = f.gen.Specialize(maxTestProofs)
	require.NoError(t, err)
	fixtureVal = f
	return f
}

// seededVerify is Verify with the pairing-check coefficients from a seed.
func seededVerify(t testing.TB, f *fixture, inputs [][]fr.Element, p *Proof, include []byte, v Version) bool {
	t.Helper()
	ok, err := verify(context.Background(), f.vsrs, f.vk, inputs, p, include, v, rand.NewChaCha8([32]byte{3}))
	require.NoError(t, err)
	return ok
}

var include = []byte("seeds and comm_rs")

// roundTrip encodes p, an aggregate of n proofs, checks the encoding's size
// and that decoding and encoding again gives the same bytes, and returns
// the bytes and the decoded aggregate.
func roundTrip(t testing.TB, p *Proof, n int) ([]byte, *Proof) {
	t.Helper()
	b, err := p.MarshalBinary()
	require.NoError(t, err)
	size, err := EncodedSize(uint32(n))
	require.NoError(t, err)
	require.Len(t, b, size)
	dec, err := Decode(b)
	require.NoError(t, err)
	b2, err := dec.MarshalBinary()
	require.NoError(t, err)
	require.True(t, bytes.Equal(b, b2), "re-encoded")
	return b, dec
}

func TestAggregateVerify(t *testing.T) {
	f := testFixture(t)
	for _, v := range []Version{V1, V2} {
		for _, n := range []int{2, 4, 8} {
			t.Run(fmt.Sprintf("%v/%d", v, n), func(t *testing.T) {
				agg, err := Aggregate(context.Background(), f.psrs, f.proofs[:n], include, v)
				require.NoError(t, err)
				require.EqualValues(t, n, agg.TMIPP.GIPA.NProofs)
				ok, err := Verify(context.Background(), f.vsrs, f.vk, f.inputs[:n], agg, include, v)
				require.NoError(t, err)
				require.True(t, ok)

				// The wire format round-trips byte for byte, and the decoded
				// aggregate verifies too.
				_, dec := roundTrip(t, agg, n)
				require.True(t, seededVerify(t, f, f.inputs[:n], dec, include, v))
			})
		}
	}
}

// The prover is deterministic, and an SRS specialized to more proofs gives
// the bytes one specialized to exactly the count gives.
func TestAggregateDeterministicAndSRSCut(t *testing.T) {
	f := testFixture(t)
	p4, _, err := f.gen.Specialize(4)
	require.NoError(t, err)
	for _, v := range []Version{V1, V2} {
		a, err := Aggregate(context.Background(), f.psrs, f.proofs[:4], include, v)
		require.NoError(t, err)
		b, err := Aggregate(context.Background(), p4, f.proofs[:4], include, v)
		require.NoError(t, err)
		require.Equal(t, mustMarshal(t, a), mustMarshal(t, b), v)
	}
}

func TestVerifyRejects(t *testing.T) {
	f := testFixture(t)
	const n = 4
	for _, v := range []Version{V1, V2} {
		other := V2
		if v == V2 {
			other = V1
		}
		agg, err := Aggregate(context.Background(), f.psrs, f.proofs[:n], include, v)
		require.NoError(t, err)
		require.True(t, seededVerify(t, f, f.inputs[:n], agg, include, v))

		// One proof replaced by a valid proof of other inputs, aggregated
		// and checked against the original inputs.
		flipped := append([]groth16.Proof(nil), f.proofs[:n]...)
		flipped[2] = f.other
		aggFlipped, err := Aggregate(context.Background(), f.psrs, flipped, include, v)
		require.NoError(t, err)
		flippedIn := append([][]fr.Element(nil), f.inputs[:n]...)
		flippedIn[2] = f.otherI
		require.True(t, seededVerify(t, f, flippedIn, aggFlipped, include, v), "%v: flipped aggregate with its own inputs", v)

		// Two proofs swapped.
		swapped := append([]groth16.Proof(nil), f.proofs[:n]...)
		swapped[0], swapped[1] = swapped[1], swapped[0]
		aggSwapped, err := Aggregate(context.Background(), f.psrs, swapped, include, v)
		require.NoError(t, err)

		altered := make([][]fr.Element, n)
		for i := range altered {
			altered[i] = append([]fr.Element(nil), f.inputs[i]...)
		}
		altered[3][0].Add(&altered[3][0], new(fr.Element).SetOne())

		for name, c := range map[string]struct {
			agg     *Proof
			inputs  [][]fr.Element
			include []byte
			v       Version
		}{
			"flipped proof":       {aggFlipped, f.inputs[:n], include, v},
			"swapped proofs":      {aggSwapped, f.inputs[:n], include, v},
			"swapped inputs":      {agg, [][]fr.Element{f.inputs[1], f.inputs[0], f.inputs[2], f.inputs[3]}, include, v},
			"altered input":       {agg, altered, include, v},
			"other include":       {agg, f.inputs[:n], []byte("other seeds"), v},
			"empty include":       {agg, f.inputs[:n], nil, v},
			"other version":       {agg, f.inputs[:n], include, other},
			"inputs of 4 others":  {agg, f.inputs[4:8], include, v},
			"flipped, own inputs": {agg, flippedIn, include, v},
		} {
			require.False(t, seededVerify(t, f, c.inputs, c.agg, c.include, c.v), "%v: %s", v, name)
		}
	}
}

// Every field of the aggregate matters: changing one element (to another
// valid element) makes it fail.
func TestVerifyRejectsAlteredFields(t *testing.T) {
	f := testFixture(t)
	const n = 4
	agg, err := Aggregate(context.Background(), f.psrs, f.proofs[:n], include, V2)
	require.NoError(t, err)
	_, _, g1, g2 := bls12381.Generators()
	gt := gtMarker() // any GT element other than 1
	alter := map[string]func(p *Proof){
		"com_ab":       func(p *Proof) { p.ComAB[0].Mul(&p.ComAB[0], &gt) },
		"com_c":        func(p *Proof) { p.ComC[1].Mul(&p.ComC[1], &gt) },
		"ip_ab":        func(p *Proof) { p.IPAB.Mul(&p.IPAB, &gt) },
		"agg_c":        func(p *Proof) { p.AggC.Add(&p.AggC, &g1) },
		"comms_ab":     func(p *Proof) { p.TMIPP.GIPA.CommsAB[1][0][1].Mul(&p.TMIPP.GIPA.CommsAB[1][0][1], &gt) },
		"comms_c":      func(p *Proof) { p.TMIPP.GIPA.CommsC[0][1][0].Mul(&p.TMIPP.GIPA.CommsC[0][1][0], &gt) },
		"z_ab":         func(p *Proof) { p.TMIPP.GIPA.ZAB[0][0].Mul(&p.TMIPP.GIPA.ZAB[0][0], &gt) },
		"z_c":          func(p *Proof) { p.TMIPP.GIPA.ZC[1][1].Add(&p.TMIPP.GIPA.ZC[1][1], &g1) },
		"final_a":      func(p *Proof) { p.TMIPP.GIPA.FinalA.Add(&p.TMIPP.GIPA.FinalA, &g1) },
		"final_b":      func(p *Proof) { p.TMIPP.GIPA.FinalB.Add(&p.TMIPP.GIPA.FinalB, &g2) },
		"final_c":      func(p *Proof) { p.TMIPP.GIPA.FinalC.Add(&p.TMIPP.GIPA.FinalC, &g1) },
		"final_vkey":   func(p *Proof) { p.TMIPP.GIPA.FinalVKey[1].Add(&p.TMIPP.GIPA.FinalVKey[1], &g2) },
		"final_wkey":   func(p *Proof) { p.TMIPP.GIPA.FinalWKey[0].Add(&p.TMIPP.GIPA.FinalWKey[0], &g1) },
		"vkey_opening": func(p *Proof) { p.TMIPP.VKeyOpening[0].Add(&p.TMIPP.VKeyOpening[0], &g2) },
		"wkey_opening": func(p *Proof) { p.TMIPP.WKeyOpening[1].Add(&p.TMIPP.WKeyOpening[1], &g1) },
	}
	for name, f2 := range alter {
		p, err := Decode(mustMarshal(t, agg)) // a deep copy
		require.NoError(t, err)
		f2(p)
		require.False(t, seededVerify(t, f, f.inputs[:n], p, include, V2), name)
	}
}

func TestAggregateRefuses(t *testing.T) {
	f := testFixture(t)
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		proofs []groth16.Proof
		want   string
	}{
		{"none", nil, "at least 2"},
		{"one", f.proofs[:1], "at least 2"},
		{"three", f.proofs[:3], "not a power of two; pad to 4"},
		{"seven", f.proofs[:7], "pad to 8"},
	} {
		_, err := Aggregate(ctx, f.psrs, c.proofs, include, V2)
		require.ErrorIs(t, err, ErrInput, c.name)
		require.ErrorContains(t, err, c.want, c.name)
	}

	// More proofs than the SRS was specialized to.
	p4, _, err := f.gen.Specialize(4)
	require.NoError(t, err)
	_, err = Aggregate(ctx, p4, f.proofs[:8], include, V2)
	require.ErrorIs(t, err, ErrSRS)
	require.ErrorContains(t, err, "specialized to 4 proofs, too small for 8")
	_, err = Aggregate(ctx, nil, f.proofs[:2], include, V2)
	require.ErrorIs(t, err, ErrSRS)
	short := *f.psrs
	short.HBetaPowers = short.HBetaPowers[:3]
	_, err = Aggregate(ctx, &short, f.proofs[:4], include, V2)
	require.ErrorIs(t, err, ErrSRS)
	require.ErrorContains(t, err, "h_beta_powers has 3 powers, need 4")

	_, err = Aggregate(ctx, f.psrs, f.proofs[:2], include, Version(3))
	require.ErrorIs(t, err, ErrInput)
	require.ErrorContains(t, err, "unknown SnarkPack version 3")

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = Aggregate(cancelled, f.psrs, f.proofs[:4], include, V2)
	require.ErrorIs(t, err, context.Canceled)

	// Points outside the subgroups or off the curve, each named.
	var outside bls12381.G1Affine
	require.NoError(t, zcash.DecodeCompressed(&outside, onCurveOutsideG1(t), zcash.AcceptIdentity, zcash.SkipSubgroup))
	bad := append([]groth16.Proof(nil), f.proofs[:4]...)
	bad[2].C = outside
	_, err = Aggregate(ctx, f.psrs, bad, include, V2)
	require.ErrorIs(t, err, ErrInput)
	require.ErrorContains(t, err, "proof 2: C is not in the prime-order subgroup")
	bad = append([]groth16.Proof(nil), f.proofs[:4]...)
	bad[1].A = outside
	_, err = Aggregate(ctx, f.psrs, bad, include, V2)
	require.ErrorContains(t, err, "proof 1: A is not in the prime-order subgroup")
	bad = append([]groth16.Proof(nil), f.proofs[:4]...)
	bad[3].B.X.A0.SetUint64(1)
	_, err = Aggregate(ctx, f.psrs, bad, include, V2)
	require.ErrorContains(t, err, "proof 3: B is not on the curve")
}

func TestVerifyErrors(t *testing.T) {
	f := testFixture(t)
	ctx := context.Background()
	agg, err := Aggregate(ctx, f.psrs, f.proofs[:4], include, V2)
	require.NoError(t, err)

	_, err = Verify(ctx, f.vsrs, f.vk, f.inputs[:2], agg, include, V2)
	require.ErrorIs(t, err, ErrInput)
	require.ErrorContains(t, err, "2 sets of public inputs for an aggregate of 4 proofs")

	twoInputs := [][]fr.Element{f.inputs[0], f.inputs[1], {{}, {}}, f.inputs[3]}
	_, err = Verify(ctx, f.vsrs, f.vk, twoInputs, agg, include, V2)
	require.ErrorIs(t, err, ErrInput)
	require.ErrorContains(t, err, "proof 2 has 2 public inputs, verifying key takes 1")

	_, v2, err := f.gen.Specialize(2)
	require.NoError(t, err)
	_, err = Verify(ctx, v2, f.vk, f.inputs[:4], agg, include, V2)
	require.ErrorIs(t, err, ErrSRS)
	require.ErrorContains(t, err, "too small for an aggregate of 4")

	// A verifier SRS specialized to more proofs serves fewer.
	ok, err := Verify(ctx, f.vsrs, f.vk, f.inputs[:4], agg, include, V2)
	require.NoError(t, err)
	require.True(t, ok)

	bad := *agg
	bad.TMIPP.GIPA.ZC = bad.TMIPP.GIPA.ZC[:1]
	_, err = Verify(ctx, f.vsrs, f.vk, f.inputs[:4], &bad, include, V2)
	require.ErrorIs(t, err, ErrFormat)
	require.ErrorContains(t, err, "z_c")

	bad = *agg
	require.NoError(t, zcash.DecodeCompressed(&bad.AggC, onCurveOutsideG1(t), zcash.AcceptIdentity, zcash.SkipSubgroup))
	_, err = Verify(ctx, f.vsrs, f.vk, f.inputs[:4], &bad, include, V2)
	require.ErrorIs(t, err, ErrFormat)
	require.ErrorContains(t, err, "agg_c")

	_, err = Verify(ctx, f.vsrs, f.vk, f.inputs[:4], agg, include, 0)
	require.ErrorIs(t, err, ErrInput)
	_, err = Verify(ctx, nil, f.vk, f.inputs[:4], agg, include, V2)
	require.ErrorIs(t, err, ErrSRS)
	_, err = Verify(ctx, f.vsrs, nil, f.inputs[:4], agg, include, V2)
	require.ErrorIs(t, err, ErrInput)
	_, err = Verify(ctx, f.vsrs, f.vk, f.inputs[:4], nil, include, V2)
	require.ErrorIs(t, err, ErrFormat)

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = Verify(cancelled, f.vsrs, f.vk, f.inputs[:4], agg, include, V2)
	require.True(t, errors.Is(err, context.Canceled))
}

var benchLog2 = flag.Int("aggregate.log2", 3, "BenchmarkAggregate/BenchmarkVerify aggregate 2^k proofs (13: 8,192)")

// benchInputs repeats the fixture's 8 real proofs to 2^k, as filecoin-proofs
// pads with repeats, so that the aggregate verifies.
func benchInputs(b *testing.B) (*fixture, *ProverSRS, *VerifierSRS, []groth16.Proof, [][]fr.Element) {
	f := testFixture(b)
	n := 1 << *benchLog2
	proofs := make([]groth16.Proof, n)
	inputs := make([][]fr.Element, n)
	for i := range proofs {
		proofs[i] = f.proofs[i%maxTestProofs]
		inputs[i] = f.inputs[i%maxTestProofs]
	}
	if n <= maxTestProofs {
		return f, f.psrs, f.vsrs, proofs, inputs
	}
	gen, err := TestOnlySRS(rand.NewChaCha8([32]byte{7}), n)
	require.NoError(b, err)
	p, v, err := gen.Specialize(n)
	require.NoError(b, err)
	return f, p, v, proofs, inputs
}

func BenchmarkAggregate(b *testing.B) {
	_, psrs, _, proofs, _ := benchInputs(b)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Aggregate(context.Background(), psrs, proofs, include, V2); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(proofs)), "proofs")
}

func BenchmarkVerify(b *testing.B) {
	f, psrs, vsrs, proofs, inputs := benchInputs(b)
	agg, err := Aggregate(context.Background(), psrs, proofs, include, V2)
	require.NoError(b, err)
	b.ResetTimer()
	for b.Loop() {
		ok, err := Verify(context.Background(), vsrs, f.vk, inputs, agg, include, V2)
		if err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
	b.ReportMetric(float64(len(proofs)), "proofs")
}

// 8,192 proofs, the most Filecoin aggregates (65 NI sectors' 8,190
// partition proofs, padded): the aggregate verifies and round-trips, and
// fails for a proof replaced by another statement's, a swapped pair and an
// altered public input; cut short it does not decode. About a minute on two
// cores (three aggregates).
func TestAggregate8192(t *testing.T) {
	if testing.Short() {
		t.Skip("three aggregates of 8,192 proofs")
	}
	f := testFixture(t)
	const n = 8192
	gen, err := TestOnlySRS(rand.NewChaCha8([32]byte{8}), n)
	require.NoError(t, err)
	psrs, vsrs, err := gen.Specialize(n)
	require.NoError(t, err)
	proofs := make([]groth16.Proof, n)
	inputs := make([][]fr.Element, n)
	for i := range proofs {
		proofs[i], inputs[i] = f.proofs[i%maxTestProofs], f.inputs[i%maxTestProofs]
	}
	ctx := context.Background()
	verify := func(p *Proof, in [][]fr.Element) bool {
		ok, err := Verify(ctx, vsrs, f.vk, in, p, include, V2)
		require.NoError(t, err)
		return ok
	}
	agg, err := Aggregate(ctx, psrs, proofs, include, V2)
	require.NoError(t, err)
	require.True(t, verify(agg, inputs))
	b, _ := roundTrip(t, agg, n)
	_, err = Decode(b[:len(b)-1])
	require.ErrorIs(t, err, ErrFormat, "cut short")

	altered := append([][]fr.Element(nil), inputs...)
	altered[5000] = []fr.Element{inputs[5000][0]}
	altered[5000][0].Add(&altered[5000][0], new(fr.Element).SetOne())
	require.False(t, verify(agg, altered), "an altered public input")

	other := append([]groth16.Proof(nil), proofs...)
	other[4097] = f.other // a valid proof, of another statement
	a2, err := Aggregate(ctx, psrs, other, include, V2)
	require.NoError(t, err)
	require.False(t, verify(a2, inputs), "a proof of another statement")

	swapped := append([]groth16.Proof(nil), proofs...)
	swapped[1], swapped[2] = swapped[2], swapped[1] // different proofs (x = 2 and 3)
	a3, err := Aggregate(ctx, psrs, swapped, include, V2)
	require.NoError(t, err)
	require.False(t, verify(a3, inputs), "a swapped pair")
}
