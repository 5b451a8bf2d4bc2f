package cuzk_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/cuzk"
	pb "github.com/gpuc2/gpuc2/cuzk/cuzkv1"
	"github.com/gpuc2/gpuc2/internal/testparams"
	"github.com/gpuc2/gpuc2/synth/porep"
)

const (
	spt   = abi.RegisteredSealProof_StackedDrg2KiBV1_1
	miner = abi.ActorID(1000)
)

// testRun holds the TEST-ONLY 2 KiB setup every daemon of the package
// uses: made once per go test run and shared with the other packages'
// binaries (internal/testparams); testParams is this binary's directory.
var (
	testRun    *testparams.Run
	testParams string
)

func TestMain(m *testing.M) {
	// Removed by Leave, or after a timeout by the run's last binary or the
	// next run's Join.
	testRun = testparams.Join()
	testParams = testRun.Dir()
	code := m.Run()
	if sharedStop != nil {
		sharedStop()
	}
	testRun.Leave()
	os.Exit(code)
}

// daemon is a Server over a CPU Prover on a real gRPC server on a unix
// socket, and a client generated from the .proto.
type daemon struct {
	prover *gpuc2.Prover
	srv    *cuzk.Server
	client pb.ProvingEngineClient
}

type options struct {
	cfg        gpuc2.Config
	maxPending int
}

func start(t *testing.T, o options) *daemon {
	t.Helper()
	d, stop, err := newDaemon(o, slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn})))
	require.NoError(t, err)
	t.Cleanup(stop)
	return d
}

// shared is a daemon with the default options for the tests that need no
// other (each 2 KiB proof costs tens of CPU-seconds), closed by TestMain.
var (
	sharedOnce sync.Once
	sharedD    *daemon
	sharedErr  error
	sharedStop func()
)

func shared(t *testing.T) *daemon {
	t.Helper()
	sharedOnce.Do(func() {
		sharedD, sharedStop, sharedErr = newDaemon(options{}, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	})
	require.NoError(t, sharedErr)
	return sharedD
}

// newDaemon starts a Server over a CPU Prover (2 KiB parameters preloaded)
// on a gRPC server on a unix socket, and a client; stop ends them.
func newDaemon(o options, log *slog.Logger) (d *daemon, stop func(), err error) {
	o.cfg.Backend, o.cfg.TestParamsDir, o.cfg.Logger = gpuc2.BackendCPU, testParams, log
	o.cfg.ParamsDir = filepath.Join(testParams, "no-real-params")
	ctx := context.Background()
	if _, err := testRun.Seal2KiB(ctx); err != nil {
		return nil, nil, err
	}
	prover, err := gpuc2.New(ctx, o.cfg)
	if err != nil {
		return nil, nil, err
	}
	if err := prover.Preload(ctx, spt); err != nil {
		prover.Close()
		return nil, nil, err
	}
	srv, err := cuzk.New(cuzk.Config{Prover: prover, ParamsDir: o.cfg.ParamsDir,
		TestParamsDir: testParams, MaxPending: o.maxPending, Log: log})
	if err != nil {
		prover.Close()
		return nil, nil, err
	}
	sockDir, err := os.MkdirTemp("", "pe") // short: a socket path has at most 107 bytes
	if err != nil {
		prover.Close()
		return nil, nil, err
	}
	lis, err := net.Listen("unix", filepath.Join(sockDir, "d.sock"))
	if err != nil {
		prover.Close()
		return nil, nil, err
	}
	g := grpc.NewServer(cuzk.ServerOptions()...)
	srv.Register(g)
	go g.Serve(lis)
	conn, err := grpc.NewClient("unix://"+lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(512<<20), grpc.MaxCallSendMsgSize(512<<20)))
	if err != nil {
		g.Stop()
		prover.Close()
		return nil, nil, err
	}
	stop = func() {
		conn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		srv.Shutdown(ctx)
		cancel()
		g.Stop()
		prover.Close()
		os.RemoveAll(sockDir)
	}
	return &daemon{prover: prover, srv: srv, client: pb.NewProvingEngineClient(conn)}, stop, nil
}

// envDaemonMany opts in to the daemon's tests of several 2 KiB CPU proofs
// each (tens of CPU-seconds a proof): by default the package proves about
// two, to stay within a few minutes on a loaded 2-core machine. .ci/run
// runs them in a step of their own.
const envDaemonMany = "GPUC2_TEST_DAEMON_MANY"

func needDaemonProofs(t *testing.T, what string) {
	t.Helper()
	if os.Getenv(envDaemonMany) == "" {
		t.Skipf("set %s=1: %s (.ci/run does)", envDaemonMany, what)
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(b), "\n"))
	return len(b), nil
}

// c1 is a synthetic 2 KiB sector's C1 as Curio sends it (the Commit2In
// envelope) when envelope, else filecoin-ffi's JSON.
func c1(t *testing.T, sector abi.SectorNumber, envelope bool) []byte {
	t.Helper()
	return sealedC1(t, sector, envelope, "gpuc2d test")
}

// sealedC1 is c1 of the sector sealed with seed (its ticket, seed and
// commitments follow from it): another seed, the sector sealed again.
func sealedC1(t *testing.T, sector abi.SectorNumber, envelope bool, seed string) []byte {
	t.Helper()
	c, err := porep.SyntheticC1(context.Background(), spt, miner, sector, sha256.Sum256([]byte(seed)))
	require.NoError(t, err)
	var raw []byte
	if envelope {
		raw, err = porep.EncodeCommit2In(c, sector)
	} else {
		raw, err = c.EncodeJSON()
	}
	require.NoError(t, err)
	return raw
}

// porepRequest is what Curio's PoRepSnarkCuzk sends for sector.
func porepRequest(t *testing.T, sector abi.SectorNumber) *pb.SubmitProofRequest {
	return &pb.SubmitProofRequest{
		RequestId:       fmt.Sprintf("porep-%d-%d", miner, sector),
		ProofKind:       pb.ProofKind_POREP_SEAL_COMMIT,
		SectorSize:      2048,
		RegisteredProof: uint64(spt),
		Priority:        pb.Priority_NORMAL,
		VanillaProof:    c1(t, sector, true),
		SectorNumber:    uint64(sector),
		MinerId:         uint64(miner),
	}
}

// verify checks proof for sector as Curio does after a cuzk proof
// (VerifySeal with the sector's commitments, ticket and seed).
func verify(t *testing.T, d *daemon, sector abi.SectorNumber, proof []byte) {
	t.Helper()
	assert.True(t, verifies(t, d, c1(t, sector, true), sector, proof), "VerifySeal of sector %d", sector)
}

// verifies reports whether proof is valid for the C1 of sector.
func verifies(t *testing.T, d *daemon, c1 []byte, sector abi.SectorNumber, proof []byte) bool {
	t.Helper()
	info, err := gpuc2.NewSealVerifyInfo(c1, proof, sector, miner)
	require.NoError(t, err)
	ok, err := d.prover.VerifySeal(info)
	require.NoError(t, err)
	return ok
}

// Prove of a synthetic 2 KiB sector, as Curio sends it, gives the proof
// VerifySeal accepts; GetStatus and GetMetrics (Prometheus text, parsed)
// show it.
func TestProveVerifies(t *testing.T) {
	d := shared(t)
	ctx := context.Background()
	completed := metric(t, d, "gpuc2d_proofs_total", map[string]string{"outcome": "completed"})
	const sector = 10
	resp, err := d.client.Prove(ctx, &pb.ProveRequest{Submit: porepRequest(t, sector)})
	require.NoError(t, err)
	r := resp.GetResult()
	require.Equal(t, pb.AwaitProofResponse_COMPLETED, r.GetStatus(), r.GetErrorMessage())
	assert.Len(t, r.GetProof(), 192)
	assert.Positive(t, r.GetTotalMs())
	assert.Positive(t, r.GetSynthesisMs()+r.GetGpuComputeMs())
	verify(t, d, sector, r.GetProof())

	st, err := d.client.GetStatus(ctx, &pb.GetStatusRequest{})
	require.NoError(t, err)
	assert.Positive(t, st.GetTotalProofsCompleted())
	// porep-2k loaded; other circuits whose TEST-ONLY files the run's
	// shared folder holds (the PoSt tests') are listed COLD.
	var porep *pb.SRSStatus
	for _, s := range st.GetLoadedSrs() {
		if s.GetCircuitId() == "porep-2k" {
			porep = s
			continue
		}
		assert.Equal(t, pb.SRSStatus_COLD, s.GetTier(), s.GetCircuitId())
	}
	require.NotNil(t, porep, "%v", st.GetLoadedSrs())
	assert.Equal(t, pb.SRSStatus_WARM, porep.GetTier(), "the CPU's key: mapped on the host")
	assert.Positive(t, porep.GetSizeBytes())
	assert.Empty(t, st.GetGpus())

	families := metricFamilies(t, d)
	for _, name := range []string{"gpuc2d_proofs_total", "gpuc2d_queue_jobs", "gpuc2d_stage_seconds", "gpuc2_host_budget_bytes",
		"gpuc2_pinned_host_bytes", "gpuc2_partitions", "gpuc2_loaded_key_bytes", "process_resident_memory_bytes", "gpuc2d_uptime_seconds"} {
		assert.Contains(t, families, name)
	}
	assert.Equal(t, completed+1, metric(t, d, "gpuc2d_proofs_total", map[string]string{"outcome": "completed"}))
	stages := map[string]bool{}
	for _, m := range families["gpuc2d_stage_seconds"].GetMetric() {
		for _, l := range m.GetLabel() {
			stages[l.GetValue()] = true
		}
		assert.Positive(t, m.GetHistogram().GetSampleCount())
	}
	assert.Equal(t, map[string]bool{"queue_wait": true, "key_load": true, "synthesis": true, "prove": true, "total": true}, stages,
		"no stage named gpu: the CPU proves here")
	assert.Equal(t, 1.0, metric(t, d, "gpuc2_backend_info", map[string]string{"backend": "cpu"}))

	// Every proof has ended: none holds host memory; what stays is the
	// parked working sets, said as such.
	hs := d.prover.Status()
	require.Zero(t, hs.ProofsInFlight)
	assert.Zero(t, metric(t, d, "gpuc2_host_reserved_bytes", nil), "parked: %d bytes", hs.HostParkedBytes)
	assert.Equal(t, float64(hs.HostParkedBytes), metric(t, d, "gpuc2_host_parked_bytes", nil))

	var header metadata.MD
	_, err = d.client.GetStatus(ctx, &pb.GetStatusRequest{}, grpc.Header(&header))
	require.NoError(t, err)
	assert.Equal(t, []string{"cpu"}, header.Get(cuzk.BackendHeader), "GetStatus names the backend")
}

// One request id submitted twice is one job, one proof; AwaitProof with a
// short timeout answers TIMEOUT and the job goes on; a completed job answers
// for its request id while retained; the id of a completed job reused for
// the sector sealed again (Curio's porep-<miner>-<sector>, another C1) is a
// new job whose proof is the new C1's.
func TestRequestIDAndAwaitTimeout(t *testing.T) {
	d := shared(t)
	ctx := context.Background()
	submitted := metric(t, d, "gpuc2d_proofs_submitted_total", nil)
	req := porepRequest(t, 20)
	a, err := d.client.SubmitProof(ctx, req)
	require.NoError(t, err)
	r, err := d.client.AwaitProof(ctx, &pb.AwaitProofRequest{JobId: a.GetJobId(), TimeoutMs: 1})
	require.NoError(t, err)
	assert.Equal(t, pb.AwaitProofResponse_TIMEOUT, r.GetStatus())
	b, err := d.client.SubmitProof(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, a.GetJobId(), b.GetJobId())
	r, err = d.client.AwaitProof(ctx, &pb.AwaitProofRequest{JobId: a.GetJobId()})
	require.NoError(t, err)
	require.Equal(t, pb.AwaitProofResponse_COMPLETED, r.GetStatus(), r.GetErrorMessage())
	verify(t, d, 20, r.GetProof())
	again, err := d.client.Prove(ctx, &pb.ProveRequest{Submit: req})
	require.NoError(t, err)
	assert.Equal(t, a.GetJobId(), again.GetResult().GetJobId())
	assert.Equal(t, r.GetProof(), again.GetResult().GetProof())
	assert.Equal(t, submitted+1, metric(t, d, "gpuc2d_proofs_submitted_total", nil), "one proof made")

	resealed := porepRequest(t, 20)
	resealed.VanillaProof = sealedC1(t, 20, true, "sealed again")
	again, err = d.client.Prove(ctx, &pb.ProveRequest{Submit: resealed})
	require.NoError(t, err)
	r2 := again.GetResult()
	require.Equal(t, pb.AwaitProofResponse_COMPLETED, r2.GetStatus(), r2.GetErrorMessage())
	assert.NotEqual(t, a.GetJobId(), r2.GetJobId(), "a new job for the new C1")
	assert.True(t, verifies(t, d, resealed.VanillaProof, 20, r2.GetProof()), "the proof is the new C1's")
	assert.False(t, verifies(t, d, req.VanillaProof, 20, r2.GetProof()), "not the old C1's")
	assert.False(t, verifies(t, d, resealed.VanillaProof, 20, r.GetProof()), "the old proof is no proof of the new C1")
	assert.Equal(t, submitted+2, metric(t, d, "gpuc2d_proofs_submitted_total", nil), "one proof made for each C1")
	_, err = d.client.AwaitProof(ctx, &pb.AwaitProofRequest{JobId: "nope"})
	assert.Equal(t, codes.NotFound, status.Code(err))
	_, err = d.client.CancelProof(ctx, &pb.CancelProofRequest{JobId: "nope"})
	assert.Equal(t, codes.NotFound, status.Code(err))
}

// started waits until the job labelled id has a partition past the queue;
// false if done closes first.
func started(d *daemon, id string, done <-chan struct{}) bool {
	for {
		for _, p := range d.prover.Status().Proofs {
			if p.Label == id && p.Started > 0 {
				return true
			}
		}
		select {
		case <-done:
			return false
		case <-time.After(time.Millisecond):
		}
	}
}

// CancelProof of a running job answers within a second, its awaiter gets
// CANCELLED, its memory is given back, and the next proof succeeds.
// Opt-in (GPUC2_TEST_DAEMON_MANY=1, as .ci/run does): a job that finishes
// before the cancel reaches it is tried again, up to five.
func TestCancelRunning(t *testing.T) {
	needDaemonProofs(t, "proofs cancelled until one is caught running, then one more 2 KiB CPU proof")
	d := shared(t)
	ctx := context.Background()
	for attempt := 0; ; attempt++ {
		require.Less(t, attempt, 5, "no job was caught running in 5 attempts")
		s, err := d.client.SubmitProof(ctx, porepRequest(t, abi.SectorNumber(40+attempt)))
		require.NoError(t, err)
		done := make(chan struct{})
		var r *pb.AwaitProofResponse
		go func() {
			defer close(done)
			r, _ = d.client.AwaitProof(ctx, &pb.AwaitProofRequest{JobId: s.GetJobId()})
		}()
		if !started(d, s.GetJobId(), done) {
			continue
		}
		t0 := time.Now()
		c, err := d.client.CancelProof(ctx, &pb.CancelProofRequest{JobId: s.GetJobId()})
		took := time.Since(t0)
		require.NoError(t, err)
		<-done
		if r.GetStatus() == pb.AwaitProofResponse_COMPLETED {
			continue // it finished before the cancel reached it
		}
		assert.True(t, c.GetWasRunning())
		assert.Less(t, took, time.Second)
		assert.Equal(t, pb.AwaitProofResponse_CANCELLED, r.GetStatus())
		st := d.prover.Status()
		assert.Empty(t, st.Proofs)
		assert.Equal(t, st.HostParkedBytes, st.HostReservedBytes, "only parked spares hold host memory")
		t.Logf("cancelled a running job in %v", took)
		break
	}
	resp, err := d.client.Prove(ctx, &pb.ProveRequest{Submit: porepRequest(t, 49)})
	require.NoError(t, err)
	assert.Equal(t, pb.AwaitProofResponse_COMPLETED, resp.GetResult().GetStatus(), resp.GetResult().GetErrorMessage())
}

// A client that hangs up on Prove cancels its job, whose request id is
// then free for a retry.
func TestHangUpCancels(t *testing.T) {
	d := shared(t)
	cancelled := metric(t, d, "gpuc2d_proofs_total", map[string]string{"outcome": "cancelled"})
	ctx, cancel := context.WithCancel(context.Background())
	req := porepRequest(t, 50)
	errc := make(chan error, 1)
	go func() {
		_, err := d.client.Prove(ctx, &pb.ProveRequest{Submit: req})
		errc <- err
	}()
	require.Eventually(t, func() bool { return len(d.prover.Status().Proofs) > 0 }, time.Minute, time.Millisecond)
	cancel()
	assert.Equal(t, codes.Canceled, status.Code(<-errc))
	require.Eventually(t, func() bool {
		return metric(t, d, "gpuc2d_proofs_total", map[string]string{"outcome": "cancelled"}) == cancelled+1
	}, 10*time.Second, 10*time.Millisecond)
	assert.Eventually(t, func() bool { return len(d.prover.Status().Proofs) == 0 }, 10*time.Second, time.Millisecond)
	retry, err := d.client.SubmitProof(context.Background(), req)
	require.NoError(t, err)
	_, err = d.client.CancelProof(context.Background(), &pb.CancelProofRequest{JobId: retry.GetJobId()})
	require.NoError(t, err)
	r, err := d.client.AwaitProof(context.Background(), &pb.AwaitProofRequest{JobId: retry.GetJobId()})
	require.NoError(t, err)
	assert.Equal(t, pb.AwaitProofResponse_CANCELLED, r.GetStatus(), "a new job for the retry, cancelled in turn")
}

// EvictSRS of a key a running proof holds says what it frees: nothing
// (freed_bytes 0): the key stays loaded, as GetStatus lists it, until an
// EvictSRS once no proof holds it, which frees its bytes.
func TestEvictHeldKey(t *testing.T) {
	d := shared(t)
	ctx := context.Background()
	srs := func() *pb.SRSStatus {
		st, err := d.client.GetStatus(ctx, &pb.GetStatusRequest{})
		require.NoError(t, err)
		for _, k := range st.GetLoadedSrs() {
			if k.GetCircuitId() == "porep-2k" {
				return k
			}
		}
		return nil
	}
	held := func() bool {
		for _, k := range d.prover.Status().Keys {
			if k.InUse > 0 {
				return true
			}
		}
		return false
	}
	for attempt := 0; ; attempt++ {
		require.Less(t, attempt, 5, "no proof was caught holding the key in 5 attempts")
		s, err := d.client.SubmitProof(ctx, porepRequest(t, abi.SectorNumber(80+attempt)))
		require.NoError(t, err)
		require.Eventually(t, func() bool { return held() || ended(d, s.GetJobId()) }, time.Minute, time.Millisecond)
		ev, err := d.client.EvictSRS(ctx, &pb.EvictSrsRequest{CircuitId: "porep-2k"})
		require.NoError(t, err)
		k := srs()
		stillHeld := held()
		_, err = d.client.CancelProof(ctx, &pb.CancelProofRequest{JobId: s.GetJobId()})
		require.NoError(t, err)
		if !stillHeld {
			// the proof ended first: the key was free, and evicted
			_, err = d.client.PreloadSRS(ctx, &pb.PreloadSrsRequest{CircuitId: "porep-2k"})
			require.NoError(t, err)
			continue
		}
		assert.True(t, ev.GetWasLoaded())
		assert.Zero(t, ev.GetFreedBytes(), "a held key is not freed")
		require.NotNil(t, k, "GetStatus lists the held key")
		assert.Equal(t, pb.SRSStatus_WARM, k.GetTier())
		assert.Positive(t, k.GetRefCount())
		break
	}
	require.Eventually(t, func() bool { return !held() }, 10*time.Second, time.Millisecond)
	k := srs()
	require.NotNil(t, k, "still loaded once the proof has ended")
	assert.Equal(t, pb.SRSStatus_WARM, k.GetTier())
	ev, err := d.client.EvictSRS(ctx, &pb.EvictSrsRequest{CircuitId: "porep-2k"})
	require.NoError(t, err)
	assert.True(t, ev.GetWasLoaded())
	assert.Equal(t, k.GetSizeBytes(), ev.GetFreedBytes(), "no proof holds it: freed")
	if k := srs(); assert.NotNil(t, k) {
		assert.Equal(t, pb.SRSStatus_COLD, k.GetTier(), "on disk only")
	}
	_, err = d.client.PreloadSRS(ctx, &pb.PreloadSrsRequest{CircuitId: "porep-2k"})
	require.NoError(t, err, "loaded again for the tests after")
}

// Bad input of every kind is refused by name, no partial proof is
// returned, and the daemon goes on.
func TestBadInput(t *testing.T) {
	d := shared(t)
	ctx := context.Background()
	good := c1(t, 60, false)
	cases := []struct {
		name   string
		mutate func(*pb.SubmitProofRequest)
		code   codes.Code // of the call; OK: the job FAILED
		want   string
	}{
		{"garbage", func(r *pb.SubmitProofRequest) { r.VanillaProof = []byte("not a C1 at all") }, codes.OK,
			"bad input: vanilla_proof (15 bytes) is not JSON: POREP_SEAL_COMMIT takes the C1 output as filecoin-ffi's JSON, or in the Commit2In envelope"},
		{"bare bincode", func(r *pb.SubmitProofRequest) {
			c, err := porep.SyntheticC1(ctx, spt, miner, 60, sha256.Sum256([]byte("gpuc2d test")))
			require.NoError(t, err)
			r.VanillaProof = c.EncodeBincode()
		}, codes.OK, "vanilla_proof (" /* its length */},
		{"truncated", func(r *pb.SubmitProofRequest) { r.VanillaProof = good[:len(good)/2] }, codes.OK, "bad input"},
		{"wrong sector number", func(r *pb.SubmitProofRequest) { r.SectorNumber = 61 }, codes.OK, "bad input"},
		{"wrong miner", func(r *pb.SubmitProofRequest) { r.MinerId = 1001 }, codes.OK, "bad input"},
		{"C1 of another proof type", func(r *pb.SubmitProofRequest) {
			r.RegisteredProof = uint64(abi.RegisteredSealProof_StackedDrg2KiBV1)
		}, codes.OK, "the C1 is for StackedDrg2KiBV1_1, the request for StackedDrg2KiBV1"},
		{"NI-PoRep of another miner", func(r *pb.SubmitProofRequest) {
			c, err := porep.SyntheticC1(ctx, abi.RegisteredSealProof_StackedDrg2KiBV1_2_Feat_NiPoRep, miner, 60, [32]byte{1})
			require.NoError(t, err)
			r.VanillaProof, err = c.EncodeJSON()
			require.NoError(t, err)
			r.RegisteredProof = uint64(abi.RegisteredSealProof_StackedDrg2KiBV1_2_Feat_NiPoRep)
			r.MinerId = uint64(miner) + 1
		}, codes.OK, "replica_id"},
		{"unknown registered_proof", func(r *pb.SubmitProofRequest) { r.RegisteredProof = 999 }, codes.InvalidArgument, "registered_proof 999"},
		{"sector size mismatch", func(r *pb.SubmitProofRequest) { r.SectorSize = 32 << 30 }, codes.InvalidArgument, "sector_size"},
		{"empty", func(r *pb.SubmitProofRequest) { r.VanillaProof = nil }, codes.InvalidArgument, "vanilla_proof is empty"},
		{"no kind", func(r *pb.SubmitProofRequest) { r.ProofKind = pb.ProofKind_PROOF_KIND_UNSPECIFIED }, codes.InvalidArgument, "proof_kind"},
		{"SnapDeals of a seal type", func(r *pb.SubmitProofRequest) { r.ProofKind = pb.ProofKind_SNAP_DEALS_UPDATE }, codes.InvalidArgument,
			"registered_proof 5 is no RegisteredUpdateProof"},
		// A seal request sent as PoSt: its seal type (5) is no PoSt type
		// served, or (StackedDrgWindow2KiBV1) a window one with no
		// randomness, or of the other kind.
		{"WindowPoSt", func(r *pb.SubmitProofRequest) { r.ProofKind = pb.ProofKind_WINDOW_POST_PARTITION }, codes.InvalidArgument, "WINDOW_POST_PARTITION"},
		{"WinningPoSt", func(r *pb.SubmitProofRequest) { r.ProofKind = pb.ProofKind_WINNING_POST }, codes.InvalidArgument, "WINNING_POST"},
		{"300 MiB", func(r *pb.SubmitProofRequest) { r.VanillaProof = make([]byte, 300<<20) }, codes.ResourceExhausted, "larger than max"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := porepRequest(t, 60)
			req.RequestId = fmt.Sprintf("bad-%d", i)
			req.VanillaProof = good
			tc.mutate(req)
			resp, err := d.client.Prove(ctx, &pb.ProveRequest{Submit: req})
			if tc.code != codes.OK {
				require.Equal(t, tc.code, status.Code(err), "%v", err)
				assert.Contains(t, err.Error(), tc.want)
				return
			}
			require.NoError(t, err)
			r := resp.GetResult()
			assert.Equal(t, pb.AwaitProofResponse_FAILED, r.GetStatus())
			assert.Empty(t, r.GetProof(), "no partial proof")
			assert.Contains(t, r.GetErrorMessage(), tc.want)
			assert.Less(t, len(r.GetErrorMessage()), 2000)
			assert.NotContains(t, r.GetErrorMessage(), "ParseC1", "the protocol's terms, not Go's")
		})
	}
	st, err := d.client.GetStatus(ctx, &pb.GetStatusRequest{})
	require.NoError(t, err, "still serving")
	assert.Zero(t, st.GetQueues()[0].GetPending()+st.GetQueues()[0].GetInProgress())
}

// A CRITICAL proof submitted behind four NORMAL ones finishes before every
// NORMAL one that had not started when it entered the pipeline (those are
// then cancelled: the point is made). Opt-in (GPUC2_TEST_DAEMON_MANY=1, as
// .ci/run does): it proved past go test's 10 minutes on a loaded 2-core
// machine (issue 54).
func TestCriticalGoesAhead(t *testing.T) {
	needDaemonProofs(t, "a daemon of its own and two or more 2 KiB CPU proofs")
	d := start(t, options{cfg: gpuc2.Config{WorkersPerDevice: 1, SynthesisConcurrency: 1}})
	ctx := context.Background()
	var normal []string
	for i := range 4 {
		s, err := d.client.SubmitProof(ctx, porepRequest(t, abi.SectorNumber(200+i)))
		require.NoError(t, err)
		assert.Equal(t, uint32(i), s.GetQueuePosition())
		normal = append(normal, s.GetJobId())
	}
	req := porepRequest(t, 210)
	req.Priority = pb.Priority_CRITICAL
	s, err := d.client.SubmitProof(ctx, req)
	require.NoError(t, err)
	critical := s.GetJobId()
	assert.Zero(t, s.GetQueuePosition(), "nothing ahead of a CRITICAL proof")
	// Once it is in the pipeline: which NORMAL ones have not started?
	var notStarted []string
	require.Eventually(t, func() bool {
		in, startedNow := false, map[string]bool{}
		for _, p := range d.prover.Status().Proofs {
			in = in || p.Label == critical
			startedNow[p.Label] = p.Started > 0
		}
		if !in {
			return false
		}
		notStarted = notStarted[:0]
		for _, id := range normal {
			if !startedNow[id] && !ended(d, id) {
				notStarted = append(notStarted, id)
			}
		}
		return true
	}, time.Minute, time.Millisecond)
	require.NotEmpty(t, notStarted, "every NORMAL proof started before the CRITICAL one entered: the test shows nothing")

	r, err := d.client.AwaitProof(ctx, &pb.AwaitProofRequest{JobId: critical})
	require.NoError(t, err)
	require.Equal(t, pb.AwaitProofResponse_COMPLETED, r.GetStatus(), r.GetErrorMessage())
	verify(t, d, 210, r.GetProof())
	for _, id := range notStarted {
		assert.False(t, ended(d, id), "%s, not started when the CRITICAL proof entered, finished before it", id)
	}
	t.Logf("NORMAL jobs %v; not started when the CRITICAL one entered: %v", normal, notStarted)
	for _, id := range normal {
		_, err := d.client.CancelProof(ctx, &pb.CancelProofRequest{JobId: id})
		require.NoError(t, err)
	}
}

// ended reports whether job id has ended (an AwaitProof of 1 ms).
func ended(d *daemon, id string) bool {
	r, err := d.client.AwaitProof(context.Background(), &pb.AwaitProofRequest{JobId: id, TimeoutMs: 1})
	return err == nil && r.GetStatus() != pb.AwaitProofResponse_TIMEOUT
}

// GetStatus' queue counts follow the jobs, and -max-pending refuses.
func TestStatusQueuesAndMaxPending(t *testing.T) {
	d := start(t, options{cfg: gpuc2.Config{WorkersPerDevice: 1, SynthesisConcurrency: 1}, maxPending: 3})
	ctx := context.Background()
	queue := func() (pending, running uint32) {
		st, err := d.client.GetStatus(ctx, &pb.GetStatusRequest{})
		require.NoError(t, err)
		// One queue per kind of the facade's circuits, in its order:
		// PoRep's, SnapDeals', then PoSt's where the table has them.
		require.GreaterOrEqual(t, len(st.GetQueues()), 2)
		q := st.GetQueues()[0]
		assert.Equal(t, "POREP_SEAL_COMMIT", q.GetProofKind())
		assert.Equal(t, "SNAP_DEALS_UPDATE", st.GetQueues()[1].GetProofKind())
		for _, other := range st.GetQueues()[1:] {
			assert.Contains(t, []string{"SNAP_DEALS_UPDATE", "WINDOW_POST_PARTITION", "WINNING_POST"}, other.GetProofKind())
			assert.Zero(t, other.GetPending()+other.GetInProgress(), other.GetProofKind())
		}
		return q.GetPending(), q.GetInProgress()
	}
	p, r := queue()
	assert.Zero(t, p+r)
	var jobs []string
	for i := range 3 {
		s, err := d.client.SubmitProof(ctx, porepRequest(t, abi.SectorNumber(300+i)))
		require.NoError(t, err)
		jobs = append(jobs, s.GetJobId())
	}
	p, r = queue()
	assert.Equal(t, uint32(3), p+r, "pending %d + in progress %d", p, r)
	_, err := d.client.SubmitProof(ctx, porepRequest(t, 310))
	assert.Equal(t, codes.ResourceExhausted, status.Code(err), "%v", err)
	require.Eventually(t, func() bool { p, r := queue(); return r == 1 && p == 2 }, time.Minute, time.Millisecond,
		"one job in progress, two pending (one prover, one synthesis worker)")
	for _, id := range jobs {
		_, err := d.client.CancelProof(ctx, &pb.CancelProofRequest{JobId: id})
		require.NoError(t, err)
	}
	require.Eventually(t, func() bool { p, r := queue(); return p+r == 0 }, 10*time.Second, time.Millisecond)
	s, err := d.client.SubmitProof(ctx, porepRequest(t, 310))
	require.NoError(t, err, "room again")
	_, err = d.client.CancelProof(ctx, &pb.CancelProofRequest{JobId: s.GetJobId()})
	require.NoError(t, err)
}

// Sixteen Prove calls at once under a host budget of about one and a half
// partitions all complete. Opt-in (GPUC2_TEST_DAEMON_MANY=1, as .ci/run
// does): sixteen 2 KiB CPU proofs take minutes on 2 cores.
func TestManyConcurrentUnderSmallBudget(t *testing.T) {
	if os.Getenv("GPUC2_TEST_DAEMON_MANY") == "" {
		t.Skip("set GPUC2_TEST_DAEMON_MANY=1: sixteen 2 KiB CPU proofs")
	}
	req, err := gpuc2.Requirements(spt, gpuc2.Config{Backend: gpuc2.BackendCPU})
	require.NoError(t, err)
	budget := req.PartitionHostBytes * 3 / 2
	d := start(t, options{cfg: gpuc2.Config{HostMemoryBudget: budget}})
	const n = 16
	var wg sync.WaitGroup
	results := make([]*pb.AwaitProofResponse, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := d.client.Prove(context.Background(), &pb.ProveRequest{Submit: porepRequest(t, abi.SectorNumber(100+i))})
			if assert.NoError(t, err) {
				results[i] = resp.GetResult()
			}
		}()
	}
	wg.Wait()
	for i, r := range results {
		if assert.NotNil(t, r) {
			assert.Equal(t, pb.AwaitProofResponse_COMPLETED, r.GetStatus(), "proof %d: %s", i, r.GetErrorMessage())
		}
	}
	verify(t, d, 100+n-1, results[n-1].GetProof())
	assert.LessOrEqual(t, d.prover.Status().HostPeakBytes, budget)
}

func metricFamilies(t *testing.T, d *daemon) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := d.client.GetMetrics(context.Background(), &pb.GetMetricsRequest{})
	require.NoError(t, err)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(resp.GetPrometheusText()))
	require.NoError(t, err)
	return families
}

// metric sums the samples of the counter or gauge name whose labels
// include match.
func metric(t *testing.T, d *daemon, name string, match map[string]string) float64 {
	t.Helper()
	var sum float64
	for _, m := range metricsMatching(t, d, name, match) {
		sum += m.GetCounter().GetValue() + m.GetGauge().GetValue()
	}
	return sum
}

// metricsMatching are the samples of name whose labels include match.
func metricsMatching(t *testing.T, d *daemon, name string, match map[string]string) []*dto.Metric {
	t.Helper()
	var out []*dto.Metric
	for _, m := range metricFamilies(t, d)[name].GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		ok := true
		for k, v := range match {
			ok = ok && labels[k] == v
		}
		if ok {
			out = append(out, m)
		}
	}
	return out
}
