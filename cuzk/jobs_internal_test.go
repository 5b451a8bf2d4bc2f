package cuzk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/gpuc2/gpuc2"
	pb "github.com/gpuc2/gpuc2/cuzk/cuzkv1"
)

// fakeServer is a Server over a CPU Prover that loads nothing: its jobs
// make a fake proof, "proof of " and the request's vanilla proof(s), once
// the test finishes them, or end CANCELLED when cancelled. Its log (Info
// and up) is kept.
type fakeServer struct {
	*Server
	logs syncBuffer

	mu    sync.Mutex
	gates map[string]chan struct{} // by job id: closed by finish
}

func newFakeServer(t *testing.T) *fakeServer {
	t.Helper()
	ctx := context.Background()
	quiet := slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))
	prover, err := gpuc2.New(ctx, gpuc2.Config{Backend: gpuc2.BackendCPU, ParamsDir: t.TempDir(), TestParamsDir: t.TempDir(), Logger: quiet})
	require.NoError(t, err)
	f := &fakeServer{gates: map[string]chan struct{}{}}
	f.Server, err = New(Config{Prover: prover, Log: slog.New(slog.NewTextHandler(&f.logs, nil))})
	require.NoError(t, err)
	f.testProve = func(req *pb.SubmitProofRequest, label string) proveFunc {
		proof := append([]byte("proof of "), req.GetVanillaProof()...)
		for _, v := range req.GetVanillaProofs() {
			proof = append(proof, v...)
		}
		gate := f.gate(label)
		return func(ctx context.Context) ([]byte, gpuc2.ProofTimings, error) {
			select {
			case <-gate:
				return proof, gpuc2.ProofTimings{}, nil
			case <-ctx.Done():
				return nil, gpuc2.ProofTimings{}, context.Cause(ctx)
			}
		}
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		f.Shutdown(ctx)
		prover.Close()
	})
	return f
}

func (f *fakeServer) gate(id string) chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	g := f.gates[id]
	if g == nil {
		g = make(chan struct{})
		f.gates[id] = g
	}
	return g
}

// finish lets job id's proof complete, and waits for its outcome.
func (f *fakeServer) finish(t *testing.T, id string) *pb.AwaitProofResponse {
	t.Helper()
	close(f.gate(id))
	r, err := f.AwaitProof(context.Background(), &pb.AwaitProofRequest{JobId: id})
	require.NoError(t, err)
	return r
}

// await is AwaitProof of id with a timeout (ms).
func (f *fakeServer) await(t *testing.T, id string, timeoutMs uint64) *pb.AwaitProofResponse {
	t.Helper()
	r, err := f.AwaitProof(context.Background(), &pb.AwaitProofRequest{JobId: id, TimeoutMs: timeoutMs})
	require.NoError(t, err)
	return r
}

func (f *fakeServer) submit(t *testing.T, req *pb.SubmitProofRequest) string {
	t.Helper()
	r, err := f.SubmitProof(context.Background(), req)
	require.NoError(t, err)
	return r.GetJobId()
}

// syncBuffer is a bytes.Buffer safe for a logger's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// fakeSeal is a POREP_SEAL_COMMIT request as Curio names it, with a
// vanilla proof the fake prover takes as is (a real C1 is not parsed until
// the job runs).
func fakeSeal(sector uint64, c1 string) *pb.SubmitProofRequest {
	return &pb.SubmitProofRequest{RequestId: fmt.Sprintf("porep-1000-%d", sector), ProofKind: pb.ProofKind_POREP_SEAL_COMMIT,
		SectorSize: 2048, RegisteredProof: uint64(abi.RegisteredSealProof_StackedDrg2KiBV1_1), Priority: pb.Priority_NORMAL,
		VanillaProof: []byte(c1), SectorNumber: sector, MinerId: 1000}
}

// fakeUpdate is a SNAP_DEALS_UPDATE request with raw commitments.
func fakeUpdate(partitions ...string) *pb.SubmitProofRequest {
	req := &pb.SubmitProofRequest{RequestId: "snap-1000-7", ProofKind: pb.ProofKind_SNAP_DEALS_UPDATE,
		RegisteredProof: uint64(abi.RegisteredUpdateProof_StackedDrg2KiBV1), SectorNumber: 7, MinerId: 1000,
		CommROld: bytes.Repeat([]byte{1}, 32), CommRNew: bytes.Repeat([]byte{2}, 32), CommDNew: bytes.Repeat([]byte{3}, 32)}
	for _, p := range partitions {
		req.VanillaProofs = append(req.VanillaProofs, []byte(p))
	}
	return req
}

// A request id joins the job holding it only for the same content: while
// that job is queued or running, other content is refused (InvalidArgument
// naming the job, both digests and the field that differs); once it has
// completed, other content is a new job that takes the id over, the old
// one still answering AwaitProof by its job id; a field that does not
// change the proof (priority) does not count.
func TestRequestIDContent(t *testing.T) {
	f := newFakeServer(t)
	a := fakeSeal(3, "C1 with ticket A")
	first := f.submit(t, a)
	assert.Equal(t, first, f.submit(t, a), "the same request: the same job")
	urgent := proto.Clone(a).(*pb.SubmitProofRequest)
	urgent.Priority = pb.Priority_HIGH
	assert.Equal(t, first, f.submit(t, urgent), "priority does not change the proof")

	for _, tc := range []struct {
		name, differs string
		edit          func(r *pb.SubmitProofRequest)
	}{
		{"another C1", "vanilla_proof differs", func(r *pb.SubmitProofRequest) { r.VanillaProof = []byte("C1 with ticket B") }},
		{"another sector", "sector_number differs", func(r *pb.SubmitProofRequest) { r.SectorNumber = 4 }},
		{"another miner", "miner_id differs", func(r *pb.SubmitProofRequest) { r.MinerId = 1001 }},
		{"another proof type", "registered_proof differs", func(r *pb.SubmitProofRequest) {
			r.RegisteredProof = uint64(abi.RegisteredSealProof_StackedDrg2KiBV1)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := proto.Clone(a).(*pb.SubmitProofRequest)
			tc.edit(b)
			_, err := f.SubmitProof(context.Background(), b)
			require.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
			assert.ErrorContains(t, err, first)
			t.Log(err)
			assert.ErrorContains(t, err, tc.differs)
			assert.ErrorContains(t, err, "still queued or running")
			assert.Equal(t, 2, strings.Count(err.Error(), "sha256:"), "both contents' digests: %v", err)
			_, err = f.Prove(context.Background(), &pb.ProveRequest{Submit: b})
			assert.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
		})
	}

	r := f.finish(t, first)
	require.Equal(t, pb.AwaitProofResponse_COMPLETED, r.GetStatus(), r.GetErrorMessage())
	assert.Equal(t, "proof of C1 with ticket A", string(r.GetProof()))
	assert.Equal(t, first, f.submit(t, a), "completed and retained: the same request gets its proof")

	b := proto.Clone(a).(*pb.SubmitProofRequest)
	b.VanillaProof = []byte("C1 with ticket B") // the sector sealed again
	second := f.submit(t, b)
	require.NotEqual(t, first, second, "a completed job's id reused for other content: a new job")
	assert.Contains(t, f.logs.String(), "request id reused with new content")
	assert.Equal(t, second, f.submit(t, b), "the new job now holds the id")
	assert.Equal(t, pb.AwaitProofResponse_TIMEOUT, f.await(t, second, 1).GetStatus(), "proved anew")
	r = f.finish(t, second)
	require.Equal(t, pb.AwaitProofResponse_COMPLETED, r.GetStatus(), r.GetErrorMessage())
	assert.Equal(t, "proof of C1 with ticket B", string(r.GetProof()))
	old := f.await(t, first, 1)
	assert.Equal(t, "proof of C1 with ticket A", string(old.GetProof()), "the old job answers by its id until forgotten")
}

// SnapDeals' content is the proof type, the partition proofs and the three
// commitments (and the sector and miner named): other commitments are
// refused while the job runs, but the same ones as CIDs, or the partition
// proofs as one JSON array, are the same request.
func TestRequestIDContentUpdate(t *testing.T) {
	f := newFakeServer(t)
	a := fakeUpdate("partition 0", "partition 1")
	first := f.submit(t, a)

	sameAsCIDs := proto.Clone(a).(*pb.SubmitProofRequest)
	ureq, err := updateRequest(a)
	require.NoError(t, err)
	sameAsCIDs.CommROld, sameAsCIDs.CommRNew, sameAsCIDs.CommDNew = ureq.OldSealed.Bytes(), ureq.NewSealed.Bytes(), ureq.NewUnsealed.Bytes()
	sameAsCIDs.SectorSize = 2048
	assert.Equal(t, first, f.submit(t, sameAsCIDs), "the commitments as CIDs, the sector size said")
	joined := proto.Clone(a).(*pb.SubmitProofRequest)
	joined.VanillaProofs = nil
	joined.VanillaProof, err = json.Marshal(a.GetVanillaProofs())
	require.NoError(t, err)
	assert.Equal(t, first, f.submit(t, joined), "the partition proofs as Curio's JSON array")

	for _, tc := range []struct {
		differs string
		edit    func(r *pb.SubmitProofRequest)
	}{
		{"comm_r_old differs", func(r *pb.SubmitProofRequest) { r.CommROld = bytes.Repeat([]byte{4}, 32) }},
		{"comm_r_new differs", func(r *pb.SubmitProofRequest) { r.CommRNew = bytes.Repeat([]byte{4}, 32) }},
		{"comm_d_new differs", func(r *pb.SubmitProofRequest) { r.CommDNew = bytes.Repeat([]byte{4}, 32) }},
		{"vanilla_proofs differs", func(r *pb.SubmitProofRequest) { r.VanillaProofs[1] = []byte("partition 1'") }},
		{"sector_number differs", func(r *pb.SubmitProofRequest) { r.SectorNumber = 8 }},
		{"proof_kind differs", func(r *pb.SubmitProofRequest) {
			*r = *fakeSeal(7, "a C1")
			r.RequestId = a.RequestId
		}},
	} {
		t.Run(tc.differs, func(t *testing.T) {
			b := proto.Clone(a).(*pb.SubmitProofRequest)
			tc.edit(b)
			_, err := f.SubmitProof(context.Background(), b)
			require.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
			assert.ErrorContains(t, err, tc.differs)
		})
	}
	r := f.finish(t, first)
	assert.Equal(t, "proof of partition 0partition 1", string(r.GetProof()))
}

// A SubmitProof that joins a job made by Prove keeps it alive when the
// Prove caller hangs up: the job then lives until it ends or is cancelled,
// as one made by SubmitProof. Two Prove callers on one id: the job lives
// while either waits.
func TestSubmitJoinsProveJob(t *testing.T) {
	f := newFakeServer(t)
	req := fakeSeal(5, "C1 of sector 5")
	ctx, hangUp := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := f.Prove(ctx, &pb.ProveRequest{Submit: req})
		errc <- err
	}()
	var id string
	require.Eventually(t, func() bool {
		jobs := f.jobs.unfinished()
		if len(jobs) == 1 {
			id = jobs[0].id
		}
		return id != ""
	}, 10*time.Second, time.Millisecond)
	assert.Equal(t, id, f.submit(t, req), "SubmitProof joins the Prove call's job")
	hangUp()
	assert.Equal(t, codes.Canceled, status.Code(<-errc))
	assert.Equal(t, pb.AwaitProofResponse_TIMEOUT, f.await(t, id, 200).GetStatus(),
		"the job goes on for the SubmitProof caller")
	r := f.finish(t, id)
	assert.Equal(t, pb.AwaitProofResponse_COMPLETED, r.GetStatus(), r.GetErrorMessage())

	// Two Prove callers, no SubmitProof: the job lives while one waits.
	req = fakeSeal(6, "C1 of sector 6")
	ctx1, hangUp1 := context.WithCancel(context.Background())
	ctx2, hangUp2 := context.WithCancel(context.Background())
	errs := make(chan error, 2)
	for _, ctx := range []context.Context{ctx1, ctx2} {
		go func() {
			_, err := f.Prove(ctx, &pb.ProveRequest{Submit: req})
			errs <- err
		}()
	}
	id = ""
	require.Eventually(t, func() bool {
		jobs := f.jobs.unfinished()
		if len(jobs) == 1 && f.jobs.provers(jobs[0]) == 2 {
			id = jobs[0].id
		}
		return id != ""
	}, 10*time.Second, time.Millisecond)
	hangUp1()
	assert.Equal(t, codes.Canceled, status.Code(<-errs))
	assert.Equal(t, pb.AwaitProofResponse_TIMEOUT, f.await(t, id, 200).GetStatus(), "the other Prove caller still waits")
	hangUp2()
	assert.Equal(t, codes.Canceled, status.Code(<-errs))
	assert.Equal(t, pb.AwaitProofResponse_CANCELLED, f.await(t, id, 0).GetStatus(), "the last Prove caller hung up")
	again := f.submit(t, req)
	assert.NotEqual(t, id, again, "a job cancelled by its caller's hang-up gives its request id up")
}

// A request id of 1 MiB (multi-byte characters) is cut in every log line
// and error: each stays short and valid UTF-8.
func TestHugeRequestIDCut(t *testing.T) {
	f := newFakeServer(t)
	huge := strings.Repeat("€", 1<<20/3) // 3 bytes each, across the cut
	req := fakeSeal(1, "C1 A")
	req.RequestId = huge
	id := f.submit(t, req)
	f.submit(t, req) // seen again
	other := proto.Clone(req).(*pb.SubmitProofRequest)
	other.VanillaProof = []byte("C1 B")
	_, err := f.SubmitProof(context.Background(), other)
	require.Equal(t, codes.InvalidArgument, status.Code(err))
	errTexts := []string{err.Error()}
	f.finish(t, id)    // proof ended
	f.submit(t, other) // reused with new content
	ctx, hangUp := context.WithCancel(context.Background())
	third := proto.Clone(req).(*pb.SubmitProofRequest)
	third.RequestId = huge + "!"
	go func() {
		assert.Eventually(t, func() bool { return len(f.jobs.unfinished()) == 2 }, 10*time.Second, time.Millisecond)
		hangUp()
	}()
	_, err = f.Prove(ctx, &pb.ProveRequest{Submit: third}) // hung up: its job cancelled
	require.Equal(t, codes.Canceled, status.Code(err))
	_, err = f.AwaitProof(context.Background(), &pb.AwaitProofRequest{JobId: huge})
	require.Equal(t, codes.NotFound, status.Code(err))
	errTexts = append(errTexts, err.Error())
	_, err = f.CancelProof(context.Background(), &pb.CancelProofRequest{JobId: huge})
	require.Equal(t, codes.NotFound, status.Code(err))
	errTexts = append(errTexts, err.Error())
	require.Eventually(t, func() bool { return strings.Count(f.logs.String(), "proof ended") == 2 }, 10*time.Second, time.Millisecond)

	for _, e := range errTexts {
		assert.Less(t, len(e), 1000, "an error: %.300s", e)
		assert.True(t, utf8.ValidString(e), "%.300s", e)
		assert.NotContains(t, e, `\x`, "a character split: %.300s", e)
	}
	lines := strings.Split(strings.TrimSpace(f.logs.String()), "\n")
	for _, want := range []string{"proof queued", "request id seen again", "request id reused with new content", "proof ended", "caller hung up"} {
		assert.True(t, strings.Contains(f.logs.String(), want), "no log line says %q", want)
	}
	for _, l := range lines {
		assert.Less(t, len(l), 1000, "a log line: %.300s", l)
		assert.True(t, utf8.ValidString(l), "%.300s", l)
		assert.NotContains(t, l, `\x`, "a character split: %.300s", l)
	}
}
