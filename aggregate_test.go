package gpuc2_test

import (
	"context"
	"slices"
	"testing"
	"time"

	commcid "github.com/filecoin-project/go-fil-commcid"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/groth16"
)

// aggregateInfo is the AggregateSealVerifyInfo of a seal's SealVerifyInfo.
func aggregateInfo(info proof.SealVerifyInfo) proof.AggregateSealVerifyInfo {
	return proof.AggregateSealVerifyInfo{Number: info.Number, Randomness: info.Randomness,
		InteractiveRandomness: info.InteractiveRandomness, SealedCID: info.SealedCID, UnsealedCID: info.UnsealedCID}
}

// validProofBytes is n partition proofs whose points are valid (the
// generators), for checks that come before any verification.
func validProofBytes(t *testing.T, n int) []byte {
	_, _, g1, g2 := bls12381.Generators()
	ps := make([]groth16.Proof, n)
	for i := range ps {
		ps[i] = groth16.Proof{A: g1, B: g2, C: g1}
	}
	b, err := groth16.MarshalProofs(ps)
	require.NoError(t, err)
	return b
}

// Bad input to AggregateSealProofs and VerifyAggregateSeals is refused by
// name before any SRS or parameter file is read; a missing SRS names the
// file.
func TestAggregateSealProofsErrors(t *testing.T) {
	ctx := context.Background()
	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: t.TempDir(), Backend: gpuc2.BackendCPU})
	require.NoError(t, err)
	defer p.Close()
	spt, ni := abi.RegisteredSealProof_StackedDrg2KiBV1_1, abi.RegisteredSealProof_StackedDrg2KiBV1_2_Feat_NiPoRep
	sealed, err := commcid.ReplicaCommitmentV1ToCID(make([]byte, 32))
	require.NoError(t, err)
	unsealed, err := commcid.DataCommitmentV1ToCID(make([]byte, 32))
	require.NoError(t, err)
	info := func(n abi.SectorNumber) proof.AggregateSealVerifyInfo {
		return proof.AggregateSealVerifyInfo{Number: n, Randomness: make([]byte, 32), InteractiveRandomness: make([]byte, 32),
			SealedCID: sealed, UnsealedCID: unsealed}
	}
	good := validProofBytes(t, 1)
	offCurve := slices.Clone(good)
	offCurve[47] ^= 1 // A's x, now (almost surely) off the curve
	agg := func(t abi.RegisteredSealProof, a abi.RegisteredAggregationProof, n int) proof.AggregateSealVerifyProofAndInfos {
		out := proof.AggregateSealVerifyProofAndInfos{Miner: 1000, SealProof: t, AggregateProof: a}
		for i := range n {
			out.Infos = append(out.Infos, info(abi.SectorNumber(i+1)))
		}
		return out
	}
	v2 := abi.RegisteredAggregationProof_SnarkPackV2
	for _, tc := range []struct {
		name   string
		info   proof.AggregateSealVerifyProofAndInfos
		proofs [][]byte
		want   error
		text   string
	}{
		{"unknown aggregation type", agg(spt, 7, 2), [][]byte{good, good}, gpuc2.ErrBadInput, "AggregateProof 7: not SnarkPackV1 (0) or SnarkPackV2 (1)"},
		{"unknown proof type", agg(99, v2, 2), [][]byte{good, good}, gpuc2.ErrBadInput, "SealProof"},
		{"no proofs", agg(spt, v2, 0), nil, gpuc2.ErrBadInput, "no proofs to aggregate"},
		{"fewer proofs than infos", agg(spt, v2, 2), [][]byte{good}, gpuc2.ErrBadInput, "1 proofs and 2 infos"},
		{"more than 65 NI-PoRep sectors", agg(ni, v2, 66), make([][]byte, 66), gpuc2.ErrBadInput, "66 NI-PoRep sectors, outside FIP-0092's bounds [1, 65]"},
		{"a proof of the wrong length", agg(spt, v2, 2), [][]byte{good, good[:191]}, gpuc2.ErrBadInput,
			"proofs[1] (sector 2) has 191 bytes, a StackedDrg2KiBV1_1 proof 192"},
		{"an NI-PoRep output of one partition", agg(ni, v2, 1), [][]byte{good}, gpuc2.ErrBadInput, "(13 partitions of 192)"},
		{"a point off the curve", agg(spt, v2, 2), [][]byte{good, offCurve}, gpuc2.ErrBadInput, "proofs[1] (sector 2)"},
		{"an unsealed CID as SealedCID", func() proof.AggregateSealVerifyProofAndInfos {
			a := agg(spt, v2, 2)
			a.Infos[1].SealedCID = unsealed
			return a
		}(), [][]byte{good, good}, gpuc2.ErrBadInput, "Infos[1] (sector 2): gpuc2: bad input: SealedCID (comm_r)"},
		{"a short seed", func() proof.AggregateSealVerifyProofAndInfos {
			a := agg(spt, v2, 2)
			a.Infos[0].InteractiveRandomness = a.Infos[0].InteractiveRandomness[:31]
			return a
		}(), [][]byte{good, good}, gpuc2.ErrBadInput, "Infos[0] (sector 1): interactive randomness of 31 bytes"},
		{"no SRS", agg(spt, v2, 3), [][]byte{good, good, good}, gpuc2.ErrParamsMissing, gpuc2.SRSFileName},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := p.AggregateSealProofs(ctx, tc.info, tc.proofs)
			assert.ErrorIs(t, err, tc.want)
			assert.ErrorContains(t, err, tc.text)
			assert.Less(t, time.Since(start), 5*time.Second, "refused before any work")
		})
	}

	for _, tc := range []struct {
		name string
		info proof.AggregateSealVerifyProofAndInfos
		want error
		text string
	}{
		{"no infos", agg(spt, v2, 0), gpuc2.ErrBadInput, "no seal verify infos"},
		{"unknown aggregation type", agg(spt, 2, 1), gpuc2.ErrBadInput, "AggregateProof 2"},
		{"not an aggregate", func() proof.AggregateSealVerifyProofAndInfos {
			a := agg(spt, v2, 2)
			a.Proof = good
			return a
		}(), gpuc2.ErrBadInput, "the aggregate proof"},
		{"a short ticket", func() proof.AggregateSealVerifyProofAndInfos {
			a := agg(spt, v2, 2)
			a.Infos[1].Randomness = nil
			return a
		}(), gpuc2.ErrBadInput, "Infos[1] (sector 2): gpuc2: bad input: randomness of 0"},
	} {
		t.Run("verify "+tc.name, func(t *testing.T) {
			ok, err := p.VerifyAggregateSeals(tc.info)
			assert.False(t, ok)
			assert.ErrorIs(t, err, tc.want)
			assert.ErrorContains(t, err, tc.text)
		})
	}
	// An NI-PoRep seal proof is an aggregate: VerifySeal decodes it first.
	ok, err := p.VerifySeal(proof.SealVerifyInfo{SealProof: ni, SectorID: abi.SectorID{Miner: 1000, Number: 1},
		Randomness: make([]byte, 32), InteractiveRandomness: make([]byte, 32), SealedCID: sealed, UnsealedCID: unsealed,
		Proof: validProofBytes(t, 13)})
	assert.False(t, ok)
	assert.ErrorIs(t, err, gpuc2.ErrBadInput)
	assert.ErrorContains(t, err, "the aggregate proof")
}

// Three 2 KiB sectors proven through the facade and aggregated as
// filecoin-ffi aggregates them: two (a power of two) and three (padded to
// four by repeating the last) verify, in either SnarkPack version, and the
// aggregate is the same bytes each time. An info with another comm_r or
// seed, two infos swapped, a proof in another sector's place, the other
// version, or an info too many do not verify.
func TestAggregateSealProofs2KiB(t *testing.T) {
	needFacadeProofs(t)
	ctx := context.Background()
	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: t.TempDir(), TestParamsDir: testParamsDir(t), Backend: gpuc2.BackendCPU})
	require.NoError(t, err)
	defer p.Close()
	miner := abi.ActorID(1000)
	start := time.Now()
	res := make([]*gpuc2.SealResult, 3)
	var g errgroup.Group
	for i := range res {
		g.Go(func() error {
			sector := abi.SectorNumber(20 + i)
			_, raw := syntheticC1JSON(t, miner, sector)
			var err error
			res[i], err = p.ProveSeal(ctx, gpuc2.SealRequest{C1: raw, Sector: sector, Miner: miner})
			return err
		})
	}
	require.NoError(t, g.Wait())
	t.Logf("3 sectors proven in %v", time.Since(start))

	infos := make([]proof.AggregateSealVerifyInfo, len(res))
	proofs := make([][]byte, len(res))
	for i, r := range res {
		infos[i], proofs[i] = aggregateInfo(r.VerifyInfo), r.Proof
	}
	v1, v2 := abi.RegisteredAggregationProof_SnarkPackV1, abi.RegisteredAggregationProof_SnarkPackV2
	spt := res[0].VerifyInfo.SealProof
	aggregateOf := func(v abi.RegisteredAggregationProof, infos []proof.AggregateSealVerifyInfo, proofs [][]byte) proof.AggregateSealVerifyProofAndInfos {
		t.Helper()
		a := proof.AggregateSealVerifyProofAndInfos{Miner: miner, SealProof: spt, AggregateProof: v, Infos: infos}
		start := time.Now()
		var err error
		a.Proof, err = p.AggregateSealProofs(ctx, a, proofs)
		require.NoError(t, err)
		t.Logf("%d sectors aggregated (AggregateProof %d) in %v: %d bytes", len(infos), v, time.Since(start), len(a.Proof))
		return a
	}
	verify := func(a proof.AggregateSealVerifyProofAndInfos) bool {
		t.Helper()
		start := time.Now()
		ok, err := p.VerifyAggregateSeals(a)
		require.NoError(t, err)
		t.Logf("verified in %v: %v", time.Since(start), ok)
		return ok
	}

	two := aggregateOf(v2, infos[:2], proofs[:2])
	assert.True(t, verify(two), "2 sectors")
	three := aggregateOf(v2, infos, proofs)
	assert.True(t, verify(three), "3 sectors, padded to 4")
	assert.Equal(t, three.Proof, aggregateOf(v2, infos, proofs).Proof, "the same inputs give the same aggregate")
	old := aggregateOf(v1, infos, proofs)
	assert.True(t, verify(old), "SnarkPackV1")
	assert.NotEqual(t, three.Proof, old.Proof)

	otherVersion := old
	otherVersion.AggregateProof = v2
	assert.False(t, verify(otherVersion), "a V1 aggregate checked as V2")

	altered := func(i int, f func(*proof.AggregateSealVerifyInfo)) proof.AggregateSealVerifyProofAndInfos {
		a := three
		a.Infos = slices.Clone(three.Infos)
		f(&a.Infos[i])
		return a
	}
	assert.False(t, verify(altered(1, func(in *proof.AggregateSealVerifyInfo) { in.SealedCID = infos[2].SealedCID })), "another comm_r")
	assert.False(t, verify(altered(2, func(in *proof.AggregateSealVerifyInfo) {
		in.InteractiveRandomness = slices.Clone(in.InteractiveRandomness)
		in.InteractiveRandomness[0] ^= 1
	})), "another seed")
	swapped := three
	swapped.Infos = []proof.AggregateSealVerifyInfo{infos[1], infos[0], infos[2]}
	assert.False(t, verify(swapped), "two infos swapped")
	wrongProof := aggregateOf(v2, infos, [][]byte{proofs[0], proofs[0], proofs[2]})
	assert.False(t, verify(wrongProof), "sector 0's proof in sector 1's place")

	// Checked against more sectors than it holds: refused as ffi refuses it.
	tooMany := two
	tooMany.Infos = infos
	_, err = p.VerifyAggregateSeals(tooMany)
	assert.ErrorIs(t, err, gpuc2.ErrBadInput)

	// A bit flipped in the aggregate's bytes: it no longer decodes, or no
	// longer verifies.
	flipped := three
	flipped.Proof = slices.Clone(three.Proof)
	flipped.Proof[len(flipped.Proof)-1] ^= 1
	ok, err := p.VerifyAggregateSeals(flipped)
	assert.False(t, ok)
	if err != nil {
		assert.ErrorIs(t, err, gpuc2.ErrBadInput)
	}
}
