package cuzk

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/gpuc2/gpuc2"
	pb "github.com/gpuc2/gpuc2/cuzk/cuzkv1"
)

// postCircuits makes postRequest know the PoSt proof types even where the
// facade's table does not have them yet: the facade's answer where it has
// one, else a stand-in of the same shape (the circuit ids gpuc2 gives them:
// wpost-2k … wpost-64g, winning-2k … winning-64g). Restored at the test's
// end; tests that call it do not run in parallel.
func postCircuits(t *testing.T) {
	t.Helper()
	facade := postProofCircuit
	t.Cleanup(func() { postProofCircuit = facade })
	postProofCircuit = func(pt abi.RegisteredPoStProof) (gpuc2.CircuitInfo, bool) {
		if c, ok := facade(pt); ok {
			return c, ok
		}
		size, err := pt.SectorSize()
		if err != nil {
			return gpuc2.CircuitInfo{}, false
		}
		short := map[abi.SectorSize]string{2 << 10: "2k", 8 << 20: "8m", 512 << 20: "512m", 32 << 30: "32g", 64 << 30: "64g"}[size]
		switch {
		case pt >= abi.RegisteredPoStProof_StackedDrgWinning2KiBV1 && pt <= abi.RegisteredPoStProof_StackedDrgWinning64GiBV1:
			return gpuc2.CircuitInfo{ID: "winning-" + short, ProofKind: "WINNING_POST", Kind: "WinningPoSt", SectorSize: size}, true
		case pt >= abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1 && pt <= abi.RegisteredPoStProof_StackedDrgWindow64GiBV1_1:
			return gpuc2.CircuitInfo{ID: "wpost-" + short, ProofKind: "WINDOW_POST_PARTITION", Kind: "WindowPoSt", SectorSize: size}, true
		}
		return gpuc2.CircuitInfo{}, false
	}
}

// postRandomness is 32 bytes of PoSt randomness, its top two bits clear as
// Lotus and Curio send it.
func postRandomness(b byte) []byte {
	r := bytes.Repeat([]byte{b}, 32)
	r[31] &= 0x3f
	return r
}

// fakeWindowPoSt is a WINDOW_POST_PARTITION request as Curio's
// WindowPoStCuzk fills it, with vanilla proofs the fake prover takes as
// they are.
func fakeWindowPoSt(partition uint32, sectors ...string) *pb.SubmitProofRequest {
	rand := postRandomness(7)
	req := &pb.SubmitProofRequest{RequestId: fmt.Sprintf("wdpost-1000-%d-%d", partition, rand[:8]),
		ProofKind: pb.ProofKind_WINDOW_POST_PARTITION, SectorSize: 2048,
		RegisteredProof: uint64(abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1), Priority: pb.Priority_HIGH,
		MinerId: 1000, Randomness: rand, PartitionIndex: partition}
	for _, s := range sectors {
		req.VanillaProofs = append(req.VanillaProofs, []byte(s))
	}
	return req
}

// fakeWinningPoSt is a WINNING_POST request as Curio's WinningPoStCuzk
// fills it: one sector's vanilla proof, no partition.
func fakeWinningPoSt(sector string) *pb.SubmitProofRequest {
	rand := postRandomness(9)
	return &pb.SubmitProofRequest{RequestId: fmt.Sprintf("winpost-1000-%x", rand[:8]), ProofKind: pb.ProofKind_WINNING_POST,
		SectorSize: 2048, RegisteredProof: uint64(abi.RegisteredPoStProof_StackedDrgWinning2KiBV1), Priority: pb.Priority_CRITICAL,
		MinerId: 1000, Randomness: rand, VanillaProofs: [][]byte{[]byte(sector)}}
}

// The facade's request carries Curio's fields as they are, at the
// priority Curio gives each kind; sector_size may be left 0.
func TestPoStRequest(t *testing.T) {
	postCircuits(t)
	w := fakeWindowPoSt(3, "sector 1", "sector 2")
	preq, size, err := postRequest(w)
	require.NoError(t, err)
	assert.Equal(t, abi.SectorSize(2048), size)
	assert.Equal(t, gpuc2.PoStRequest{ProofType: abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1, Miner: 1000,
		Randomness: w.Randomness, VanillaProofs: w.VanillaProofs, Partition: 3, Priority: gpuc2.PriorityHigh}, preq)

	win := fakeWinningPoSt("sector 5")
	win.SectorSize = 0
	preq, _, err = postRequest(win)
	require.NoError(t, err)
	assert.Equal(t, gpuc2.PoStRequest{ProofType: abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, Miner: 1000,
		Randomness: win.Randomness, VanillaProofs: win.VanillaProofs, Priority: gpuc2.PriorityCritical}, preq)

	assert.Equal(t, pb.ProofKind_WINDOW_POST_PARTITION, postKind(gpuc2.CircuitInfo{ID: "wpost-32g"}), "by the id, without ProofKind")
	assert.Equal(t, pb.ProofKind_WINNING_POST, postKind(gpuc2.CircuitInfo{ID: "winning-32g"}))
	assert.Equal(t, pb.ProofKind_PROOF_KIND_UNSPECIFIED, postKind(gpuc2.CircuitInfo{ID: "porep-32g", ProofKind: "POREP_SEAL_COMMIT"}))
	assert.Equal(t, pb.ProofKind_WINNING_POST, postKind(gpuc2.CircuitInfo{ID: "x", ProofKind: "WINNING_POST"}), "the facade's word first")
}

// Every check of a PoSt request is made at submit, before any work: each
// refusal is InvalidArgument naming the field (and the kind), and no job
// is made.
func TestPoStRefusals(t *testing.T) {
	postCircuits(t)
	f := newFakeServer(t)
	window := func() *pb.SubmitProofRequest { return fakeWindowPoSt(2, "sector 1", "sector 2") }
	winning := func() *pb.SubmitProofRequest { return fakeWinningPoSt("sector 5") }
	for _, tc := range []struct {
		name string
		req  func() *pb.SubmitProofRequest
		edit func(r *pb.SubmitProofRequest)
		want []string
	}{
		{"unknown registered_proof", window, func(r *pb.SubmitProofRequest) { r.RegisteredProof = 999 },
			[]string{"registered_proof 999 is no RegisteredPoStProof gpuc2d serves for WINDOW_POST_PARTITION"}},
		{"huge registered_proof", winning, func(r *pb.SubmitProofRequest) { r.RegisteredProof = 1 << 40 },
			[]string{"registered_proof 1099511627776", "WINNING_POST"}},
		{"window type as WINNING_POST", winning, func(r *pb.SubmitProofRequest) {
			r.RegisteredProof = uint64(abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1)
		}, []string{"registered_proof 10 (", "is a WINDOW_POST_PARTITION proof type, sent as WINNING_POST"}},
		{"winning type as WINDOW_POST_PARTITION", window, func(r *pb.SubmitProofRequest) {
			r.RegisteredProof = uint64(abi.RegisteredPoStProof_StackedDrgWinning2KiBV1)
		}, []string{"registered_proof 0 (", "is a WINNING_POST proof type, sent as WINDOW_POST_PARTITION"}},
		{"sector size mismatch", window, func(r *pb.SubmitProofRequest) { r.SectorSize = 32 << 30 },
			[]string{"sector_size 34359738368 does not match registered_proof 10, whose sectors are 2048 bytes"}},
		{"no randomness", window, func(r *pb.SubmitProofRequest) { r.Randomness = nil }, []string{"randomness is 0 bytes"}},
		{"31-byte randomness", winning, func(r *pb.SubmitProofRequest) { r.Randomness = r.Randomness[:31] },
			[]string{"randomness is 31 bytes: WINNING_POST takes the 32-byte PoSt randomness"}},
		{"33-byte randomness", window, func(r *pb.SubmitProofRequest) { r.Randomness = append(r.Randomness, 0) },
			[]string{"randomness is 33 bytes"}},
		{"vanilla_proof set", window, func(r *pb.SubmitProofRequest) { r.VanillaProof = []byte("one blob") },
			[]string{"vanilla_proof is set (8 bytes)", "in vanilla_proofs, one per sector"}},
		{"vanilla_proof in place of vanilla_proofs", winning, func(r *pb.SubmitProofRequest) {
			r.VanillaProof, r.VanillaProofs = r.VanillaProofs[0], nil
		}, []string{"vanilla_proof is set", "vanilla_proofs"}},
		{"no vanilla proofs", window, func(r *pb.SubmitProofRequest) { r.VanillaProofs = nil },
			[]string{"vanilla_proofs is empty: WINDOW_POST_PARTITION takes one vanilla proof per sector there"}},
		{"an empty vanilla proof", window, func(r *pb.SubmitProofRequest) { r.VanillaProofs[1] = nil },
			[]string{"vanilla_proofs[1] is empty"}},
		{"partition_index on WINNING_POST", winning, func(r *pb.SubmitProofRequest) { r.PartitionIndex = 3 },
			[]string{"partition_index 3: WINNING_POST has no partitions"}},
		{"miner_id out of range", window, func(r *pb.SubmitProofRequest) { r.MinerId = 1 << 63 }, []string{"miner_id"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req()
			tc.edit(req)
			_, err := f.SubmitProof(context.Background(), req)
			require.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
			assert.Contains(t, err.Error(), gpuc2.ErrBadInput.Error())
			for _, want := range tc.want {
				assert.Contains(t, err.Error(), want)
			}
			_, err = f.Prove(context.Background(), &pb.ProveRequest{Submit: req})
			assert.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
			assert.Empty(t, f.jobs.unfinished(), "no job made")
		})
	}

	// What Curio sends passes: a partition index on a WindowPoSt, no
	// sector size, LOW priority.
	for _, req := range []*pb.SubmitProofRequest{window(), winning()} {
		req.SectorSize, req.Priority = 0, pb.Priority_LOW
		id := f.submit(t, req)
		r := f.finish(t, id)
		require.Equal(t, pb.AwaitProofResponse_COMPLETED, r.GetStatus(), r.GetErrorMessage())
	}
}

// A PoSt's content covers the randomness, the partition index and every
// vanilla proof (and the kind, proof type and miner): the same request id
// with any of them other is refused while the job runs, naming the field;
// priority and an unsaid sector size are the same request.
func TestPoStContent(t *testing.T) {
	postCircuits(t)
	f := newFakeServer(t)
	a := fakeWindowPoSt(2, "sector 1", "sector 2")
	spec, err := f.spec(a)
	require.NoError(t, err)
	assert.Contains(t, spec.what, "partition 2 of miner 1000, 2 sectors")
	first := f.submit(t, a)

	same := proto.Clone(a).(*pb.SubmitProofRequest)
	same.Priority, same.SectorSize = pb.Priority_CRITICAL, 0
	assert.Equal(t, first, f.submit(t, same), "priority and an unsaid sector size do not change the proof")

	for _, tc := range []struct {
		differs string
		edit    func(r *pb.SubmitProofRequest)
	}{
		{"randomness differs", func(r *pb.SubmitProofRequest) { r.Randomness = postRandomness(8) }},
		{"partition_index differs", func(r *pb.SubmitProofRequest) { r.PartitionIndex = 3 }},
		{"vanilla_proofs differs", func(r *pb.SubmitProofRequest) { r.VanillaProofs[1] = []byte("sector 2'") }},
		{"vanilla_proofs differs", func(r *pb.SubmitProofRequest) { r.VanillaProofs = r.VanillaProofs[:1] }},
		{"miner_id differs", func(r *pb.SubmitProofRequest) { r.MinerId = 1001 }},
		{"registered_proof, sector_size differ", func(r *pb.SubmitProofRequest) {
			r.RegisteredProof, r.SectorSize = uint64(abi.RegisteredPoStProof_StackedDrgWindow8MiBV1_1), 0
		}},
		{"proof_kind differs", func(r *pb.SubmitProofRequest) {
			w := fakeWinningPoSt("sector 1")
			w.RequestId = r.RequestId
			proto.Reset(r)
			proto.Merge(r, w)
		}},
	} {
		t.Run(tc.differs, func(t *testing.T) {
			b := proto.Clone(a).(*pb.SubmitProofRequest)
			tc.edit(b)
			other, err := f.spec(b)
			require.NoError(t, err)
			assert.NotEqual(t, spec.content.sum, other.content.sum)
			_, err = f.SubmitProof(context.Background(), b)
			require.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
			assert.ErrorContains(t, err, tc.differs)
			assert.ErrorContains(t, err, first)
		})
	}
	r := f.finish(t, first)
	require.Equal(t, pb.AwaitProofResponse_COMPLETED, r.GetStatus(), r.GetErrorMessage())
	assert.Equal(t, "proof of sector 1sector 2", string(r.GetProof()))
}

// A PoSt whose sectors' vanilla proofs do not hold fails its job with the
// facade's FaultySectorsError, whose sector numbers reach Curio in
// error_message; it is bad input, as the other kinds' (FAILED, counted as
// failed; InvalidArgument where a call answers with a status).
func TestPoStFaultySectors(t *testing.T) {
	postCircuits(t)
	f := newFakeServer(t)
	faulty := &gpuc2.FaultySectorsError{Sectors: []abi.SectorNumber{3, 7},
		Reasons: []string{"comm_r is not H(comm_c, comm_r_last)", "a path does not reach comm_r_last"}}
	f.testProve = func(req *pb.SubmitProofRequest, label string) proveFunc {
		return func(ctx context.Context) ([]byte, gpuc2.ProofTimings, error) {
			return nil, gpuc2.ProofTimings{}, fmt.Errorf("partition 2: %w", faulty)
		}
	}
	resp, err := f.Prove(context.Background(), &pb.ProveRequest{Submit: fakeWindowPoSt(2, "sector 3", "sector 5", "sector 7")})
	require.NoError(t, err, "the request was good; the job failed")
	r := resp.GetResult()
	assert.Equal(t, pb.AwaitProofResponse_FAILED, r.GetStatus())
	assert.Empty(t, r.GetProof())
	msg := r.GetErrorMessage()
	for _, want := range []string{gpuc2.ErrBadInput.Error(), "faulty sectors [3 7]", "sector 3: comm_r is not H(comm_c, comm_r_last)",
		"sector 7: a path does not reach comm_r_last"} {
		assert.Contains(t, msg, want)
	}
	var fse *gpuc2.FaultySectorsError
	wrapped := fmt.Errorf("partition 2: %w", faulty)
	require.True(t, errors.As(wrapped, &fse))
	assert.Equal(t, codes.InvalidArgument, code(wrapped), "the status of every bad input")
	text, err := f.metrics.text()
	require.NoError(t, err)
	assert.Contains(t, text, `gpuc2d_proofs_total{kind="WINDOW_POST_PARTITION",outcome="failed"} 1`)
	assert.Contains(t, text, `gpuc2d_proofs_submitted_total{kind="WINDOW_POST_PARTITION"} 1`)
}

// A well-formed WindowPoSt and WinningPoSt pass the daemon's checks and
// reach the facade's ProvePoSt: the job ends FAILED with the facade's own
// error (its vanilla proofs are no proofs), never refused by the daemon,
// and is counted under its kind.
func TestPoStReachesFacade(t *testing.T) {
	postCircuits(t)
	f := newFakeServer(t)
	f.testProve = nil // the Prover's ProvePoSt
	for _, req := range []*pb.SubmitProofRequest{fakeWindowPoSt(2, "not a vanilla proof"), fakeWinningPoSt("not a vanilla proof")} {
		kind := req.GetProofKind().String()
		resp, err := f.Prove(context.Background(), &pb.ProveRequest{Submit: req})
		require.NoError(t, err, "%s: accepted by the daemon, not refused at the gRPC layer", kind)
		r := resp.GetResult()
		require.Equal(t, pb.AwaitProofResponse_FAILED, r.GetStatus(), "%s: %s", kind, r.GetErrorMessage())
		msg := r.GetErrorMessage()
		assert.True(t, strings.HasPrefix(msg, "gpuc2: "), "%s: the facade's error: %s", kind, msg)
		text, err := f.metrics.text()
		require.NoError(t, err)
		assert.Contains(t, text, `gpuc2d_proofs_total{kind="`+kind+`",outcome="failed"} 1`)
		assert.Contains(t, msg, gpuc2.ErrBadInput.Error(), "%s: garbage vanilla proofs are bad input, found before any key loads", kind)
		assert.Contains(t, msg, "faulty sectors [", "%s: the vanilla proof that does not decode is its sector's fault", kind)
	}
}
