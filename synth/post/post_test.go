package post_test

import (
	"context"
	"errors"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/merkle"
	"github.com/gpuc2/gpuc2/synth/post"
)

func params(t testing.TB, pt abi.RegisteredPoStProof) post.Params {
	t.Helper()
	p, err := post.ParamsFor(pt)
	require.NoError(t, err)
	return p
}

func synthesize(t testing.TB, c *post.Circuit) *synth.Checker {
	t.Helper()
	ch := synth.NewChecker()
	require.NoError(t, c.Synthesize(context.Background(), ch))
	return ch
}

var randomness = [32]byte{1, 2, 3, 4, 5, 6, 7, 8, 31: 0x2a}

// The parameter file names of every served type are parameters.json's
// (rust-fil-proofs 87348a74): the name hashes the circuit's sector and
// challenge counts, so this pins WinningPoSt's 66×1 circuit too.
func TestParamsFileNames(t *testing.T) {
	const pre = "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-"
	want := map[abi.RegisteredPoStProof]string{
		abi.RegisteredPoStProof_StackedDrgWinning2KiBV1:    pre + "8-0-0-3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e",
		abi.RegisteredPoStProof_StackedDrgWinning8MiBV1:    pre + "8-0-0-50c7368dea9593ed0989e70974d28024efa9d156d585b7eea1be22b2e753f331",
		abi.RegisteredPoStProof_StackedDrgWinning512MiBV1:  pre + "8-0-0-7d739b8cf60f1b0709eeebee7730e297683552e4b69cab6984ec0285663c5781",
		abi.RegisteredPoStProof_StackedDrgWinning32GiBV1:   pre + "8-8-0-559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e",
		abi.RegisteredPoStProof_StackedDrgWinning64GiBV1:   pre + "8-8-2-b62098629d07946e9028127e70295ed996fe3ed25b0f9f88eb610a0ab4385a3c",
		abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1:   pre + "8-0-0-0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0",
		abi.RegisteredPoStProof_StackedDrgWindow8MiBV1_1:   pre + "8-0-0-5294475db5237a2e83c3e52fd6c2b03859a1831d45ed08c4f35dbf9a803165a9",
		abi.RegisteredPoStProof_StackedDrgWindow512MiBV1_1: pre + "8-0-0-0cfb4f178bbb71cf2ecfcd42accce558b27199ab4fb59cb78f2483fe21ef36d9",
		abi.RegisteredPoStProof_StackedDrgWindow32GiBV1_1:  pre + "8-8-0-0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc",
		abi.RegisteredPoStProof_StackedDrgWindow64GiBV1_1:  pre + "8-8-2-2627e4006b67f99cef990c0a47d5426cb7ab0a0ad58fc1061547bf2d28b09def",
	}
	assert.Len(t, post.Types(), len(want))
	for _, pt := range post.Types() {
		assert.Equal(t, want[pt], params(t, pt).ParamsFileBase(), post.ProofName(pt))
	}
}

// The retired WindowPoSt V1 types and values outside the enum are refused
// by name.
func TestRefusedTypes(t *testing.T) {
	_, err := post.ParamsFor(abi.RegisteredPoStProof_StackedDrgWindow32GiBV1)
	assert.ErrorIs(t, err, post.ErrProofType)
	assert.ErrorContains(t, err, "StackedDrgWindow32GiBV1 was retired by FIP-0061")
	assert.ErrorContains(t, err, "StackedDrgWindow32GiBV1_1")
	_, err = post.ParamsFor(15)
	assert.ErrorIs(t, err, post.ErrProofType)
	_, err = post.ParamsFor(-1)
	assert.ErrorIs(t, err, post.ErrProofType)
	p := params(t, abi.RegisteredPoStProof_StackedDrgWinning32GiBV1)
	assert.Equal(t, [4]int{1, 66, 66, 1}, [4]int{p.Sectors, p.Challenges, p.CircuitSectors, p.CircuitChallenges})
	p = params(t, abi.RegisteredPoStProof_StackedDrgWindow64GiBV1_1)
	assert.Equal(t, [4]int{2300, 10, 2300, 10}, [4]int{p.Sectors, p.Challenges, p.CircuitSectors, p.CircuitChallenges})
}

// storage-proofs-post tests/fallback_circuit.rs: the blank circuit's
// inputs and constraints for its trees (64 leaves per base tree, 5
// challenges, API 1.1) and its BenchCS count for 5 sectors of a 2^30-leaf
// base-8 tree (266,665).
func TestCircuitCountsRustTests(t *testing.T) {
	for _, tc := range []struct {
		shape       merkle.Shape
		leaves      uint64
		sectors     int
		challenges  int
		inputs      int
		constraints int
	}{
		{merkle.Shape{Base: 8}, 64, 3, 5, 19, 16_869},
		{merkle.Shape{Base: 8, Sub: 4}, 256, 3, 5, 19, 22_674},
		{merkle.Shape{Base: 8, Sub: 4, Top: 2}, 512, 3, 5, 19, 27_384},
		{merkle.Shape{Base: 8}, 64, 2, 5, 13, 11_246},
		{merkle.Shape{Base: 8}, 1 << 30, 5, 10, 56, 266_665},
	} {
		p := post.Params{Kind: post.Window, SectorSize: tc.leaves * 32, Nodes: tc.leaves, Shape: tc.shape,
			Sectors: tc.sectors, Challenges: tc.challenges, CircuitSectors: tc.sectors, CircuitChallenges: tc.challenges}
		st := synthesize(t, &post.Circuit{Params: p}).Stats()
		assert.Equal(t, tc.inputs, st.Inputs, "%v %d leaves", tc.shape, tc.leaves)
		assert.Equal(t, tc.constraints, st.Constraints, "%v %d leaves", tc.shape, tc.leaves)
		sizes, err := p.CircuitSizes()
		require.NoError(t, err)
		assert.Equal(t, synth.Sizes{Inputs: st.Inputs, Aux: st.Aux, Rows: st.Constraints}, sizes)
	}
}

// The served circuits' sizes: constants.rs' 125,279,217 and 129,887,900
// constraints for the 32 and 64 GiB WindowPoSt partitions, 370,590 for
// the 32 GiB WinningPoSt (66 sectors of one challenge), and an input per
// sector and per challenge.
func TestCircuitSizes(t *testing.T) {
	for _, tc := range []struct {
		t    abi.RegisteredPoStProof
		rows int
	}{
		{abi.RegisteredPoStProof_StackedDrgWindow32GiBV1_1, 125_279_217},
		{abi.RegisteredPoStProof_StackedDrgWindow64GiBV1_1, 129_887_900},
		// Not stated in rust-fil-proofs; it follows from the two pinned
		// above and the 2^30-leaf test's: 313 rows a sector and 5,302 a
		// challenge (53,333 = 313 + 10·5,302), 66·(313 + 5,302).
		{abi.RegisteredPoStProof_StackedDrgWinning32GiBV1, 370_590},
	} {
		p := params(t, tc.t)
		s, err := p.CircuitSizes()
		require.NoError(t, err)
		t.Logf("%s: %+v", post.ProofName(tc.t), s)
		assert.Equal(t, tc.rows, s.Rows, post.ProofName(tc.t))
		assert.Equal(t, 1+p.CircuitSectors*(1+p.CircuitChallenges), s.Inputs)
	}
}

// Synthetic vanilla proofs pass Check, round-trip through bincode, and
// their witness satisfies the circuit, whose inputs are PublicInputs'.
func TestSatisfied(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		t   abi.RegisteredPoStProof
		ids []uint64
	}{
		{abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1, []uint64{3, 9}},
		{abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1, []uint64{5}}, // padded: the last sector repeated
		{abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, []uint64{7}},
		{abi.RegisteredPoStProof_StackedDrgWindow8MiBV1_1, []uint64{1, 2}},
	} {
		p := params(t, tc.t)
		proofs, err := post.SyntheticSectorProofs(ctx, p, randomness, tc.ids, 1)
		require.NoError(t, err)
		raw := post.EncodeSectorProofs(proofs)
		decoded, err := post.DecodeAndCheck(ctx, p, randomness, raw)
		require.NoError(t, err, post.ProofName(tc.t))
		assert.Equal(t, proofs, decoded)
		w, err := post.WitnessFor(p, decoded)
		require.NoError(t, err)
		ch := synthesize(t, &post.Circuit{Params: p, Witness: w, Workers: 1})
		require.NoError(t, ch.Err(), post.ProofName(tc.t))
		public := make([]post.PublicSector, len(proofs))
		for i, sp := range proofs {
			public[i] = post.PublicSector{ID: sp.SectorID, CommR: sp.CommR}
		}
		want, err := p.PublicInputs(randomness, public, 0)
		require.NoError(t, err)
		assert.Equal(t, append([]fr.Element{fr.One()}, want...), ch.Inputs, post.ProofName(tc.t))
		// Another randomness gives other inputs.
		other, err := p.PublicInputs([32]byte{9}, public, 0)
		require.NoError(t, err)
		assert.NotEqual(t, want, other)
	}
}

// Synthesis into a proving assignment forks per sector and gives what
// sequential synthesis gives.
func TestParallelSynthesisMatches(t *testing.T) {
	ctx := context.Background()
	p := params(t, abi.RegisteredPoStProof_StackedDrgWinning2KiBV1)
	proofs, err := post.SyntheticSectorProofs(ctx, p, randomness, []uint64{11}, 2)
	require.NoError(t, err)
	w, err := post.WitnessFor(p, proofs)
	require.NoError(t, err)
	seq := synth.NewProvingAssignment(synth.Sizes{})
	require.NoError(t, (&post.Circuit{Params: p, Witness: w, Workers: 1}).Synthesize(ctx, seq))
	parl := synth.NewProvingAssignment(synth.Sizes{})
	require.NoError(t, (&post.Circuit{Params: p, Witness: w, Workers: 3}).Synthesize(ctx, parl))
	assert.Equal(t, seq.Inputs, parl.Inputs)
	assert.Equal(t, seq.Aux, parl.Aux)
	assert.Equal(t, seq.A, parl.A)
	assert.Equal(t, seq.C, parl.C)
}

// Check names each fault and collects every faulty sector.
func TestCheckFaults(t *testing.T) {
	ctx := context.Background()
	p := params(t, abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1)
	fresh := func() []*post.SectorProof {
		proofs, err := post.SyntheticSectorProofs(ctx, p, randomness, []uint64{4, 8}, 3)
		require.NoError(t, err)
		return proofs
	}
	faults := func(err error) []uint64 {
		var fe *post.FaultsError
		require.ErrorAs(t, err, &fe)
		assert.ErrorIs(t, err, post.ErrVanillaProof)
		return fe.Sectors()
	}

	// Made for another randomness: named as such.
	proofs, err := post.SyntheticSectorProofs(ctx, p, [32]byte{7}, []uint64{4, 8}, 3)
	require.NoError(t, err)
	err = post.Check(ctx, p, randomness, proofs)
	assert.Equal(t, []uint64{4, 8}, faults(err))
	assert.ErrorContains(t, err, "made for another randomness")

	// comm_r that is not H(comm_c, comm_r_last): sector 8 only.
	proofs = fresh()
	proofs[1].CommR.SetUint64(5)
	err = post.Check(ctx, p, randomness, proofs)
	assert.Equal(t, []uint64{8}, faults(err))
	assert.ErrorContains(t, err, "comm_r ≠ H(comm_c, comm_r_last)")

	// A sibling changed: the path misses comm_r_last.
	proofs = fresh()
	proofs[0].Openings[0].Inclusions[3].Base[1].Hashes[2].SetUint64(1)
	err = post.Check(ctx, p, randomness, proofs)
	assert.Equal(t, []uint64{4}, faults(err))
	assert.ErrorContains(t, err, "challenge 3")
	assert.ErrorContains(t, err, "does not lead from its leaf to comm_r_last")

	// A challenge missing.
	proofs = fresh()
	proofs[1].Openings[0].Inclusions = proofs[1].Openings[0].Inclusions[:9]
	assert.Equal(t, []uint64{8}, faults(post.Check(ctx, p, randomness, proofs)))

	// Not in ascending order, repeated, too many, none.
	proofs = fresh()
	proofs[0], proofs[1] = proofs[1], proofs[0]
	err = post.Check(ctx, p, randomness, proofs)
	assert.ErrorIs(t, err, post.ErrRequest)
	assert.ErrorContains(t, err, "ascending")
	proofs = fresh()
	assert.ErrorIs(t, post.Check(ctx, p, randomness, append(proofs, proofs[1])), post.ErrRequest)
	assert.ErrorIs(t, post.Check(ctx, p, randomness, nil), post.ErrRequest)

	// A proof that does not decode is its sector's fault, the others checked.
	raw := post.EncodeSectorProofs(fresh())
	raw[1] = raw[1][:len(raw[1])-1]
	_, err = post.DecodeAndCheck(ctx, p, randomness, raw)
	assert.Equal(t, []uint64{8}, faults(err))
	var se *post.SectorError
	require.ErrorAs(t, err, &se)
}

// The hashes DecodeAndCheckShape leaves out are checked by a Circuit with
// Verify as it computes the witness: the same sectors, fields and messages
// as DecodeAndCheck's, into a witness-only, a full (forked) and a
// sequential system; a sound partition gives the same assignment as
// without Verify.
func TestVerifyInSynthesis(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		t   abi.RegisteredPoStProof
		ids []uint64
	}{
		{abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1, []uint64{4, 8}},
		{abi.RegisteredPoStProof_StackedDrgWindow8MiBV1_1, []uint64{4}}, // padded
		{abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, []uint64{4}},
	} {
		p := params(t, tc.t)
		name := post.ProofName(tc.t)
		last := len(tc.ids) - 1
		for _, bad := range []struct {
			name   string
			mutate func([]*post.SectorProof)
		}{
			{"sound", func([]*post.SectorProof) {}},
			{"comm_r", func(ps []*post.SectorProof) { ps[last].CommR.SetUint64(5) }},
			{"sibling", func(ps []*post.SectorProof) { ps[0].Openings[0].Inclusions[1].Base[1].Hashes[2].SetUint64(1) }},
			{"both", func(ps []*post.SectorProof) {
				ps[last].CommR.SetUint64(5)
				ps[0].Openings[0].Inclusions[1].Base[0].Hashes[0].SetUint64(1)
			}},
		} {
			proofs, err := post.SyntheticSectorProofs(ctx, p, randomness, tc.ids, 3)
			require.NoError(t, err)
			bad.mutate(proofs)
			raw := post.EncodeSectorProofs(proofs)
			_, want := post.DecodeAndCheck(ctx, p, randomness, raw)
			decoded, err := post.DecodeAndCheckShape(ctx, p, randomness, raw)
			require.NoError(t, err, "%s %s: the shape holds", name, bad.name)
			w, err := post.WitnessFor(p, decoded)
			require.NoError(t, err)
			sizes, err := p.CircuitSizes()
			require.NoError(t, err)
			for _, sys := range []struct {
				name    string
				cs      *synth.ProvingAssignment
				workers int
			}{
				{"witness-only", synth.NewWitnessAssignment(sizes), 0},
				{"full", synth.NewProvingAssignment(sizes), 3},
				{"sequential", synth.NewProvingAssignment(sizes), 1},
			} {
				err := (&post.Circuit{Params: p, Witness: w, Verify: true, Workers: sys.workers}).Synthesize(ctx, sys.cs)
				if want == nil {
					require.NoError(t, err, "%s %s %s", name, bad.name, sys.name)
					plain := synth.NewProvingAssignment(sizes)
					require.NoError(t, (&post.Circuit{Params: p, Witness: w}).Synthesize(ctx, plain))
					assert.Equal(t, plain.Aux, sys.cs.Aux, "%s %s", name, sys.name)
					continue
				}
				var fe *post.FaultsError
				require.ErrorAs(t, err, &fe, "%s %s %s", name, bad.name, sys.name)
				assert.ErrorIs(t, err, post.ErrVanillaProof)
				assert.Equal(t, want.Error(), err.Error(), "%s %s %s: DecodeAndCheck's faults", name, bad.name, sys.name)
			}
		}
	}
}

// Randomness must be 32 bytes and a field element.
func TestRandomness(t *testing.T) {
	_, err := post.Randomness(make([]byte, 31))
	assert.ErrorIs(t, err, post.ErrRequest)
	b := make([]byte, 32)
	b[31] = 0xff
	_, err = post.Randomness(b)
	assert.ErrorIs(t, err, post.ErrRequest)
	b[31] = 0x3f
	r, err := post.Randomness(b)
	require.NoError(t, err)
	assert.Equal(t, byte(0x3f), r[31])
}

// The WinningPoSt API challenges (one sector, 66 indices n) are the
// circuit's (66 sectors, index i) under API 1.0: the 66 inputs after each
// comm_r are the 66 leaves the vanilla proof opened.
func TestWinningChallengesAgree(t *testing.T) {
	p := params(t, abi.RegisteredPoStProof_StackedDrgWinning32GiBV1)
	api := p.SectorChallenges(randomness, 1234, 0)
	in, err := p.PublicInputs(randomness, []post.PublicSector{{ID: 1234}}, 0)
	require.NoError(t, err)
	require.Len(t, in, 2*66)
	for n := range api {
		var e fr.Element
		e.SetUint64(api[n])
		assert.Equal(t, e, in[2*n+1], "challenge %d", n)
	}
	// WindowPoSt V1_1 (API 1.2): a sector's challenges do not depend on
	// its place in the proof.
	w := params(t, abi.RegisteredPoStProof_StackedDrgWindow32GiBV1_1)
	assert.Equal(t, w.SectorChallenges(randomness, 1234, 0), w.SectorChallenges(randomness, 1234, 17))
	assert.Less(t, w.SectorChallenges(randomness, 1234, 0)[9], w.Nodes)
}

// The decoder never panics and refuses what it cannot read with a
// SectorError.
func FuzzDecodeSectorProof(f *testing.F) {
	p, _ := post.ParamsFor(abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1)
	proofs, err := post.SyntheticSectorProofs(context.Background(), p, randomness, []uint64{1}, 1)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(proofs[0].AppendBincode(nil))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		sp, err := post.DecodeSectorProof(b, 0)
		if err != nil {
			var se *post.SectorError
			if !errors.As(err, &se) || !errors.Is(err, post.ErrVanillaProof) {
				t.Fatalf("error %v is no SectorError", err)
			}
			return
		}
		if got := sp.AppendBincode(nil); string(got) != string(b) {
			t.Fatalf("decoded proof re-encodes to %d bytes, not the %d read", len(got), len(b))
		}
		_ = post.Check(context.Background(), p, randomness, []*post.SectorProof{sp})
	})
}

// A PoSt witness is almost all field elements (Poseidon), not bits as
// PoRep's mostly are: of the aux values the A and B matrices read, more than
// 95 % are neither 0 nor 1, so a PoSt partition's MSMs are dense (the GPU's
// 0/1 split saves nothing; BENCHMARKS.md, PoSt on the GPU). The 8 MiB
// WindowPoSt partition, 2026-12-07: 64,488 of 65,088 aux values, A's 48,970
// of 49,330, B's 46,548 of 47,148.
func TestWitnessDense(t *testing.T) {
	ctx := context.Background()
	p := params(t, abi.RegisteredPoStProof_StackedDrgWindow8MiBV1_1)
	proofs, err := post.SyntheticSectorProofs(ctx, p, randomness, []uint64{1, 2}, 1)
	require.NoError(t, err)
	decoded, err := post.DecodeAndCheck(ctx, p, randomness, post.EncodeSectorProofs(proofs))
	require.NoError(t, err)
	w, err := post.WitnessFor(p, decoded)
	require.NoError(t, err)
	sizes, err := p.CircuitSizes()
	require.NoError(t, err)
	pa := synth.NewProvingAssignment(sizes)
	require.NoError(t, (&post.Circuit{Params: p, Witness: w}).Synthesize(ctx, pa))
	for _, d := range []struct {
		name    string
		density *synth.Density
	}{{"A", &pa.AAux}, {"B", &pa.BAux}} {
		var read, dense int
		for i := range pa.Aux {
			if !d.density.Test(i) {
				continue
			}
			read++
			if v := &pa.Aux[i]; !v.IsZero() && !v.IsOne() {
				dense++
			}
		}
		t.Logf("%s reads %d aux values, %d neither 0 nor 1", d.name, read, dense)
		assert.Greater(t, float64(dense), 0.95*float64(read), "%s: %d of %d aux values read are neither 0 nor 1", d.name, dense, read)
	}
}
