package cuzk_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	commcid "github.com/filecoin-project/go-fil-commcid"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/gpuc2/gpuc2"
	pb "github.com/gpuc2/gpuc2/cuzk/cuzkv1"
	"github.com/gpuc2/gpuc2/synth/post"
)

var postRandomness = abi.PoStRandomness{3, 1, 4, 1, 5, 9, 2, 6, 31: 0x15}

// postRequest is a PoSt request as Curio's WindowPoStCuzk or WinningPoStCuzk
// sends it, with made-up vanilla proofs of the given sectors, and the
// sectors as the chain knows them.
func postRequest(t *testing.T, pt abi.RegisteredPoStProof, partition int, ids ...uint64) (*pb.SubmitProofRequest, []proof.SectorInfo) {
	t.Helper()
	params, err := post.ParamsFor(pt)
	require.NoError(t, err)
	rnd, err := post.Randomness(postRandomness)
	require.NoError(t, err)
	proofs, err := post.SyntheticSectorProofs(context.Background(), params, rnd, ids, 11)
	require.NoError(t, err)
	req := &pb.SubmitProofRequest{SectorSize: params.SectorSize, RegisteredProof: uint64(pt), MinerId: uint64(miner),
		Randomness: postRandomness, VanillaProofs: post.EncodeSectorProofs(proofs)}
	if params.Kind == post.Winning {
		req.RequestId = fmt.Sprintf("winpost-%d-%x", miner, postRandomness[:8])
		req.ProofKind, req.Priority = pb.ProofKind_WINNING_POST, pb.Priority_CRITICAL
	} else {
		req.RequestId = fmt.Sprintf("wdpost-%d-%d-%d", miner, partition, postRandomness[:8])
		req.ProofKind, req.Priority, req.PartitionIndex = pb.ProofKind_WINDOW_POST_PARTITION, pb.Priority_HIGH, uint32(partition)
	}
	var sectors []proof.SectorInfo
	for _, sp := range proofs {
		var b [32]byte
		fr.LittleEndian.PutElement(&b, sp.CommR)
		c, err := commcid.ReplicaCommitmentV1ToCID(b[:])
		require.NoError(t, err)
		sectors = append(sectors, proof.SectorInfo{SealProof: abi.RegisteredSealProof_StackedDrg2KiBV1_1,
			SectorNumber: abi.SectorNumber(sp.SectorID), SealedCID: c})
	}
	return req, sectors
}

// A 2 KiB WindowPoSt partition and a WinningPoSt through the daemon, as
// Curio sends them, give proofs filecoin-ffi's verify calls accept; their
// TEST-ONLY setups are made on first use (seconds).
func TestPoStProveVerifies(t *testing.T) {
	d := start(t, options{}) // its keys stay out of the shared daemon's Status
	ctx := context.Background()
	req, sectors := postRequest(t, abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1, 4, 5, 12)
	resp, err := d.client.Prove(ctx, &pb.ProveRequest{Submit: req})
	require.NoError(t, err)
	r := resp.GetResult()
	require.Equal(t, pb.AwaitProofResponse_COMPLETED, r.GetStatus(), r.GetErrorMessage())
	assert.Len(t, r.GetProof(), 192)
	ok, err := d.prover.VerifyWindowPoSt(proof.WindowPoStVerifyInfo{Randomness: postRandomness, ChallengedSectors: sectors,
		Proofs: []proof.PoStProof{{PoStProof: abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1, ProofBytes: r.GetProof()}}})
	require.NoError(t, err)
	assert.True(t, ok, "VerifyWindowPoSt")

	req, sectors = postRequest(t, abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, 0, 31)
	resp, err = d.client.Prove(ctx, &pb.ProveRequest{Submit: req})
	require.NoError(t, err)
	r = resp.GetResult()
	require.Equal(t, pb.AwaitProofResponse_COMPLETED, r.GetStatus(), r.GetErrorMessage())
	ok, err = d.prover.VerifyWinningPoSt(proof.WinningPoStVerifyInfo{Randomness: postRandomness, ChallengedSectors: sectors,
		Proofs: []proof.PoStProof{{PoStProof: abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, ProofBytes: r.GetProof()}}})
	require.NoError(t, err)
	assert.True(t, ok, "VerifyWinningPoSt")

	// A sector whose vanilla proof was made for another randomness: the
	// job fails naming it, for Curio to declare.
	req, _ = postRequest(t, abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1, 0, 7)
	req.RequestId += "-stale"
	req.Randomness = abi.PoStRandomness{8, 31: 0}
	resp, err = d.client.Prove(ctx, &pb.ProveRequest{Submit: req})
	require.NoError(t, err)
	assert.Equal(t, pb.AwaitProofResponse_FAILED, resp.GetResult().GetStatus())
	assert.Contains(t, resp.GetResult().GetErrorMessage(), "faulty sectors [7]")
	assert.Contains(t, resp.GetResult().GetErrorMessage(), "made for another randomness")
}

// -max-pending bounds PoRep and SnapDeals jobs only: a WinningPoSt or
// WindowPoSt sent while the limit is reached is taken, and does not count.
func TestMaxPendingLetsPoStIn(t *testing.T) {
	d := start(t, options{cfg: gpuc2.Config{WorkersPerDevice: 1, SynthesisConcurrency: 1}, maxPending: 1})
	ctx := context.Background()
	seal, err := d.client.SubmitProof(ctx, porepRequest(t, 400))
	require.NoError(t, err)
	_, err = d.client.SubmitProof(ctx, porepRequest(t, 401))
	require.Equal(t, codes.ResourceExhausted, status.Code(err), "%v", err)
	win, _ := postRequest(t, abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, 0, 31)
	w, err := d.client.SubmitProof(ctx, win)
	require.NoError(t, err, "a WinningPoSt is never refused for -max-pending")
	wd, _ := postRequest(t, abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1, 1, 2)
	p, err := d.client.SubmitProof(ctx, wd)
	require.NoError(t, err, "nor a WindowPoSt partition")
	for _, id := range []string{seal.GetJobId(), w.GetJobId(), p.GetJobId()} {
		_, err := d.client.CancelProof(ctx, &pb.CancelProofRequest{JobId: id})
		require.NoError(t, err)
	}
}
