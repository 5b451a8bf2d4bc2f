package cuzk_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	commcid "github.com/filecoin-project/go-fil-commcid"
	"github.com/filecoin-project/go-state-types/abi"
	prooftypes "github.com/filecoin-project/go-state-types/proof"
	"github.com/ipfs/go-cid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/cuzk"
	pb "github.com/gpuc2/gpuc2/cuzk/cuzkv1"
	"github.com/gpuc2/gpuc2/synth/update"
)

const upt = abi.RegisteredUpdateProof_StackedDrg2KiBV1

// snap is one synthetic 2 KiB sector update for every test of the file.
var snap = sync.OnceValues(func() (*update.Synthetic, error) {
	p, err := update.ParamsFor(upt)
	if err != nil {
		return nil, err
	}
	return update.NewSynthetic(p, 47)
})

// rawComm is a commitment's 32 bytes, little-endian as a CID's digest
// holds them.
func rawComm(e fr.Element) []byte {
	b := update.CommitmentBytes(e)
	return b[:]
}

func replicaCID(t *testing.T, e fr.Element) cid.Cid {
	c, err := commcid.ReplicaCommitmentV1ToCID(rawComm(e))
	require.NoError(t, err)
	return c
}

func dataCID(t *testing.T, e fr.Element) cid.Cid {
	c, err := commcid.DataCommitmentV1ToCID(rawComm(e))
	require.NoError(t, err)
	return c
}

// snapRequest is what Curio's ProveUpdateCuzk sends for the synthetic
// update: its partition proofs, the commitments as binary CIDs when cids,
// else as 32 raw bytes.
func snapRequest(t *testing.T, cids bool) *pb.SubmitProofRequest {
	t.Helper()
	s, err := snap()
	require.NoError(t, err)
	req := &pb.SubmitProofRequest{
		RequestId:       fmt.Sprintf("snap-%d-%d", miner, 7),
		ProofKind:       pb.ProofKind_SNAP_DEALS_UPDATE,
		SectorSize:      2048,
		RegisteredProof: uint64(upt),
		Priority:        pb.Priority_NORMAL,
		SectorNumber:    7,
		MinerId:         uint64(miner),
		CommROld:        rawComm(s.CommROld),
		CommRNew:        rawComm(s.CommRNew),
		CommDNew:        rawComm(s.CommDNew),
	}
	req.VanillaProofs = update.EncodeVanillaProofs(s.Proofs)
	if cids {
		req.CommROld = replicaCID(t, s.CommROld).Bytes()
		req.CommRNew = replicaCID(t, s.CommRNew).Bytes()
		req.CommDNew = dataCID(t, s.CommDNew).Bytes()
	}
	return req
}

// A SNAP_DEALS_UPDATE request is checked before any work, each refusal
// naming its field; the commitments are taken as 32 raw bytes or as CIDs;
// the partition count is the facade's to check (the job fails).
func TestSnapBadInput(t *testing.T) {
	d := shared(t)
	ctx := context.Background()
	s, err := snap()
	require.NoError(t, err)
	failed := metric(t, d, "gpuc2d_proofs_total", map[string]string{"kind": "SNAP_DEALS_UPDATE", "outcome": "failed"})
	twice := func(r *pb.SubmitProofRequest) { r.VanillaProofs = append(r.VanillaProofs, r.VanillaProofs[0]) }
	cases := []struct {
		name   string
		mutate func(*pb.SubmitProofRequest)
		code   codes.Code // of the call; OK: accepted, and the job FAILED
		want   string
	}{
		{"seal proof type", func(r *pb.SubmitProofRequest) { r.RegisteredProof = uint64(spt) }, codes.InvalidArgument,
			"registered_proof 5 is no RegisteredUpdateProof"},
		{"unknown registered_proof", func(r *pb.SubmitProofRequest) { r.RegisteredProof = 1 << 40 }, codes.InvalidArgument,
			"registered_proof 1099511627776"},
		{"sector size mismatch", func(r *pb.SubmitProofRequest) { r.SectorSize = 32 << 30 }, codes.InvalidArgument, "sector_size 34359738368"},
		{"no vanilla proofs", func(r *pb.SubmitProofRequest) { r.VanillaProofs = nil }, codes.InvalidArgument, "vanilla_proofs is empty"},
		{"an empty vanilla proof", func(r *pb.SubmitProofRequest) { r.VanillaProofs = [][]byte{nil} }, codes.InvalidArgument,
			"vanilla_proofs[0] is empty"},
		{"both vanilla fields", func(r *pb.SubmitProofRequest) { r.VanillaProof = []byte("[]") }, codes.InvalidArgument,
			"both vanilla_proofs and vanilla_proof"},
		{"vanilla_proof no JSON", func(r *pb.SubmitProofRequest) { r.VanillaProofs, r.VanillaProof = nil, []byte("{") }, codes.InvalidArgument,
			"vanilla_proof (1 bytes) is no JSON array"},
		{"data CID for comm_r_old", func(r *pb.SubmitProofRequest) { r.CommROld = dataCID(t, s.CommROld).Bytes() }, codes.InvalidArgument,
			"comm_r_old \"baga6ea4sea"},
		{"replica CID for comm_d_new", func(r *pb.SubmitProofRequest) { r.CommDNew = replicaCID(t, s.CommDNew).Bytes() }, codes.InvalidArgument,
			"is no data (unsealed) commitment CID"},
		{"garbage comm_r_new", func(r *pb.SubmitProofRequest) { r.CommRNew = []byte("not a commitment at all") }, codes.InvalidArgument,
			"comm_r_new (23 bytes) is neither a 32-byte commitment nor a CID"},
		{"empty comm_d_new", func(r *pb.SubmitProofRequest) { r.CommDNew = nil }, codes.InvalidArgument, "comm_d_new is empty"},
		{"31-byte comm_r_old", func(r *pb.SubmitProofRequest) { r.CommROld = r.CommROld[:31] }, codes.InvalidArgument,
			"comm_r_old (31 bytes) is neither"},
		// Its update type (0) as a PoSt type: not served, or a WinningPoSt one.
		{"WindowPoSt", func(r *pb.SubmitProofRequest) { r.ProofKind = pb.ProofKind_WINDOW_POST_PARTITION }, codes.InvalidArgument,
			"registered_proof 0"},
		// Accepted, all three forms; two partition proofs where a 2 KiB
		// update has one: the facade refuses at once, no proof is made.
		{"raw commitments, wrong partition count", twice, codes.OK, ""},
		{"CID commitments, wrong partition count", func(r *pb.SubmitProofRequest) {
			twice(r)
			r.CommROld, r.CommRNew, r.CommDNew = replicaCID(t, s.CommROld).Bytes(), replicaCID(t, s.CommRNew).Bytes(), dataCID(t, s.CommDNew).Bytes()
		}, codes.OK, ""},
		{"JSON in vanilla_proof, wrong partition count", func(r *pb.SubmitProofRequest) {
			twice(r)
			proofs := make([]*update.PartitionProof, len(r.VanillaProofs))
			for i := range proofs {
				proofs[i] = s.Proofs[0]
			}
			var err error
			r.VanillaProof, err = update.EncodeVanillaProofsJSON(proofs)
			require.NoError(t, err)
			r.VanillaProofs = nil
		}, codes.OK, ""},
	}
	accepted := 0
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := snapRequest(t, false)
			req.RequestId = fmt.Sprintf("snap-bad-%d", i)
			tc.mutate(req)
			resp, err := d.client.Prove(ctx, &pb.ProveRequest{Submit: req})
			if tc.code != codes.OK {
				require.Equal(t, tc.code, status.Code(err), "%v", err)
				assert.Contains(t, err.Error(), tc.want)
				if tc.code == codes.InvalidArgument {
					assert.Contains(t, err.Error(), gpuc2.ErrBadInput.Error())
				}
				return
			}
			require.NoError(t, err)
			accepted++
			r := resp.GetResult()
			assert.Equal(t, pb.AwaitProofResponse_FAILED, r.GetStatus())
			assert.Empty(t, r.GetProof(), "no partial proof")
			if msg := r.GetErrorMessage(); !strings.Contains(msg, gpuc2.ErrUnsupported.Error()) {
				assert.Contains(t, msg, gpuc2.ErrBadInput.Error())
			}
		})
	}
	assert.Equal(t, failed+float64(accepted), metric(t, d, "gpuc2d_proofs_total", map[string]string{"kind": "SNAP_DEALS_UPDATE", "outcome": "failed"}))
	assert.Equal(t, 1.0, metricCount(t, d, "gpuc2d_queue_jobs", map[string]string{"kind": "SNAP_DEALS_UPDATE", "state": "pending"}))
	st, err := d.client.GetStatus(ctx, &pb.GetStatusRequest{})
	require.NoError(t, err, "still serving")
	require.GreaterOrEqual(t, len(st.GetQueues()), 2, "PoRep's, SnapDeals', then PoSt's where the facade's table has them")
	assert.Equal(t, "SNAP_DEALS_UPDATE", st.GetQueues()[1].GetProofKind())
}

// metricCount is how many samples of name have labels including match.
func metricCount(t *testing.T, d *daemon, name string, match map[string]string) float64 {
	t.Helper()
	return float64(len(metricsMatching(t, d, name, match)))
}

// A request id of a running PoRep job reused for a sector update is
// refused, naming the job and the kind as what differs.
func TestSnapRequestIDOfAnotherKind(t *testing.T) {
	d := shared(t)
	ctx := context.Background()
	porep := porepRequest(t, 70)
	a, err := d.client.SubmitProof(ctx, porep)
	require.NoError(t, err)
	defer d.client.CancelProof(ctx, &pb.CancelProofRequest{JobId: a.GetJobId()})
	req := snapRequest(t, true)
	req.RequestId = porep.RequestId
	_, err = d.client.SubmitProof(ctx, req)
	if ended(d, a.GetJobId()) {
		t.Skip("the PoRep job ended before the update was submitted")
	}
	require.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
	assert.Contains(t, err.Error(), "is job "+a.GetJobId()+" (StackedDrg2KiBV1_1 sector 70 of miner 1000), still queued or running")
	assert.Contains(t, err.Error(), "proof_kind differs")
}

// GetStatus lists the SnapDeals circuits whose parameters are found (COLD)
// and not those without; PreloadSRS and EvictSRS know their ids.
func TestSnapCircuits(t *testing.T) {
	d := shared(t)
	ctx := context.Background()
	assert.Subset(t, cuzk.CircuitIDs(), []string{"snap-2k", "snap-8m", "snap-512m", "snap-32g", "snap-64g"})
	var ids []string
	for _, c := range gpuc2.Circuits() {
		ids = append(ids, c.ID)
	}
	assert.Equal(t, ids, cuzk.CircuitIDs(), "the facade's circuits, in its order")

	// Fake snap-32g files where real ones would be.
	params := t.TempDir()
	base, err := update.ParamsFileBase(abi.RegisteredUpdateProof_StackedDrg32GiBV1)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(params, base+".params"), make([]byte, 1234), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(params, base+".vk"), make([]byte, 10), 0o600))
	srv, err := cuzk.New(cuzk.Config{Prover: d.prover, ParamsDir: params, TestParamsDir: t.TempDir()})
	require.NoError(t, err)
	defer srv.Shutdown(ctx)
	st, err := srv.GetStatus(ctx, &pb.GetStatusRequest{})
	require.NoError(t, err)
	srs := map[string]*pb.SRSStatus{}
	for _, s := range st.GetLoadedSrs() {
		srs[s.GetCircuitId()] = s
	}
	if assert.Contains(t, srs, "porep-2k") {
		assert.Equal(t, pb.SRSStatus_WARM, srs["porep-2k"].GetTier())
	}
	for _, id := range []string{"snap-2k", "snap-8m", "snap-512m", "snap-64g"} {
		assert.NotContains(t, srs, id, "no parameters for it anywhere")
	}
	if _, _, err := gpuc2.FindUpdateParams(params, abi.RegisteredUpdateProof_StackedDrg32GiBV1); err != nil {
		t.Logf("FindUpdateParams: %v: snap-32g must be absent", err)
		assert.NotContains(t, srs, "snap-32g")
	} else if assert.Contains(t, srs, "snap-32g") {
		assert.Equal(t, pb.SRSStatus_COLD, srs["snap-32g"].GetTier())
		assert.Equal(t, uint64(1234), srs["snap-32g"].GetSizeBytes())
	}

	_, err = d.client.PreloadSRS(ctx, &pb.PreloadSrsRequest{CircuitId: "snap-1t"})
	assert.Equal(t, codes.InvalidArgument, status.Code(err))
	assert.ErrorContains(t, err, "snap-32g")
	ev, err := d.client.EvictSRS(ctx, &pb.EvictSrsRequest{CircuitId: "snap-64g"})
	require.NoError(t, err)
	assert.False(t, ev.GetWasLoaded())
}

// A synthetic 2 KiB sector update through the daemon, as Curio sends it,
// gives the proof VerifyUpdateProof accepts; the request id answers with
// the same proof, and gives another update a job of its own. Opt-in
// (GPUC2_TEST_DAEMON_MANY=1): the 2 KiB update's TEST-ONLY setup and proof
// take minutes on 2 cores.
func TestSnapProveVerifies(t *testing.T) {
	if os.Getenv("GPUC2_TEST_DAEMON_MANY") == "" {
		t.Skip("set GPUC2_TEST_DAEMON_MANY=1: a 2 KiB update proof on the CPU")
	}
	d := shared(t)
	ctx := context.Background()
	_, err := d.client.PreloadSRS(ctx, &pb.PreloadSrsRequest{CircuitId: "snap-2k"})
	if status.Code(err) == codes.Unimplemented {
		t.Skipf("the facade's update proofs are not built here: %v", err)
	}
	require.NoError(t, err)
	st, err := d.client.GetStatus(ctx, &pb.GetStatusRequest{})
	require.NoError(t, err)
	loaded := map[string]pb.SRSStatus_Tier{}
	for _, s := range st.GetLoadedSrs() {
		loaded[s.GetCircuitId()] = s.GetTier()
	}
	assert.Equal(t, pb.SRSStatus_WARM, loaded["snap-2k"], "%v", loaded)

	completed := metric(t, d, "gpuc2d_proofs_total", map[string]string{"kind": "SNAP_DEALS_UPDATE", "outcome": "completed"})
	req := snapRequest(t, true)
	resp, err := d.client.Prove(ctx, &pb.ProveRequest{Submit: req})
	require.NoError(t, err)
	r := resp.GetResult()
	if strings.Contains(r.GetErrorMessage(), gpuc2.ErrUnsupported.Error()) {
		t.Skipf("the facade's update proofs are not built here: %s", r.GetErrorMessage())
	}
	require.Equal(t, pb.AwaitProofResponse_COMPLETED, r.GetStatus(), r.GetErrorMessage())
	s, err := snap()
	require.NoError(t, err)
	assert.Len(t, r.GetProof(), 192*s.Partitions)
	assert.Positive(t, r.GetSynthesisMs()+r.GetGpuComputeMs())
	assert.Equal(t, completed+1, metric(t, d, "gpuc2d_proofs_total", map[string]string{"kind": "SNAP_DEALS_UPDATE", "outcome": "completed"}))
	ok, err := d.prover.VerifyUpdateProof(updateInfo(t, r.GetProof()))
	require.NoError(t, err)
	assert.True(t, ok, "VerifyUpdateProof")

	// The same request id, raw commitments this time: the same job.
	again, err := d.client.Prove(ctx, &pb.ProveRequest{Submit: snapRequest(t, false)})
	require.NoError(t, err)
	assert.Equal(t, r.GetJobId(), again.GetResult().GetJobId())
	assert.Equal(t, r.GetProof(), again.GetResult().GetProof())
	// Another update under the id once the first completed: a job of its
	// own (Curio's retry with new inputs), never the first one's proof.
	other := snapRequest(t, false)
	other.CommRNew = rawComm(s.CommROld)
	sub, err := d.client.SubmitProof(ctx, other)
	require.NoError(t, err)
	assert.NotEqual(t, r.GetJobId(), sub.GetJobId())
	_, err = d.client.CancelProof(ctx, &pb.CancelProofRequest{JobId: sub.GetJobId()})
	require.NoError(t, err)

	ev, err := d.client.EvictSRS(ctx, &pb.EvictSrsRequest{CircuitId: "snap-2k"})
	require.NoError(t, err)
	assert.True(t, ev.GetWasLoaded())
}

// updateInfo is what the chain checks proof against: the synthetic
// update's commitments.
func updateInfo(t *testing.T, proof []byte) prooftypes.ReplicaUpdateInfo {
	s, err := snap()
	require.NoError(t, err)
	return prooftypes.ReplicaUpdateInfo{UpdateProofType: upt, OldSealedSectorCID: replicaCID(t, s.CommROld),
		NewSealedSectorCID: replicaCID(t, s.CommRNew), NewUnsealedSectorCID: dataCID(t, s.CommDNew), Proof: proof}
}
