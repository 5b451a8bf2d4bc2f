package cuzk_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/filecoin-project/go-fil-commcid"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2"
	pb "github.com/gpuc2/gpuc2/cuzk/cuzkv1"
	"github.com/gpuc2/gpuc2/groth16/aggregate"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// An NI-PoRep POREP_SEAL_COMMIT, as Curio would send it, is answered with
// what filecoin-ffi's SealCommitPhase2 returns for NI-PoRep: the SnarkPack
// aggregate of the sector's 13 partition proofs (padded to 16), which
// VerifySeal accepts (TEST-ONLY setup and SRS). Opt-in: 13 partitions take
// minutes on 2 cores (.ci/run's NI step sets GPUC2_TEST_NI).
func TestNIPoRepAggregate(t *testing.T) {
	if os.Getenv("GPUC2_TEST_NI") == "" {
		t.Skip("set GPUC2_TEST_NI=1: a 2 KiB NI-PoRep sector's 13 partitions on the CPU (.ci/run does)")
	}
	d := shared(t)
	ctx := context.Background()
	ni := abi.RegisteredSealProof_StackedDrg2KiBV1_2_Feat_NiPoRep
	sector := abi.SectorNumber(70)
	c, err := porep.SyntheticC1(ctx, ni, miner, sector, [32]byte{70})
	require.NoError(t, err)
	raw, err := c.EncodeJSON()
	require.NoError(t, err)
	resp, err := d.client.Prove(ctx, &pb.ProveRequest{Submit: &pb.SubmitProofRequest{
		RequestId:       fmt.Sprintf("ni-porep-%d-%d", miner, sector),
		ProofKind:       pb.ProofKind_POREP_SEAL_COMMIT,
		SectorSize:      2048,
		RegisteredProof: uint64(ni),
		Priority:        pb.Priority_NORMAL,
		VanillaProof:    raw,
		SectorNumber:    uint64(sector),
		MinerId:         uint64(miner),
	}})
	require.NoError(t, err)
	r := resp.GetResult()
	require.Equal(t, pb.AwaitProofResponse_COMPLETED, r.GetStatus(), r.GetErrorMessage())
	size, err := aggregate.EncodedSize(16)
	require.NoError(t, err)
	require.Len(t, r.GetProof(), size, "the aggregate of 13 partition proofs padded to 16")
	_, err = aggregate.Decode(r.GetProof())
	require.NoError(t, err)
	info, err := gpuc2.NewSealVerifyInfo(raw, r.GetProof(), sector, miner)
	require.NoError(t, err)
	ok, err := d.prover.VerifySeal(info)
	require.NoError(t, err)
	assert.True(t, ok, "VerifySeal of the NI-PoRep aggregate")
	commR, err := commcid.CIDToReplicaCommitmentV1(info.SealedCID)
	require.NoError(t, err)
	commR[0] ^= 1 // another comm_r, still a field element (little-endian: the low byte)
	info.SealedCID, err = commcid.ReplicaCommitmentV1ToCID(commR)
	require.NoError(t, err)
	ok, err = d.prover.VerifySeal(info)
	require.NoError(t, err, "a well-formed comm_r that is not the sector's")
	assert.False(t, ok, "verifies for another comm_r")
}
