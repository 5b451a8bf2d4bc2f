package cuzk

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/gpuc2/gpuc2"
	pb "github.com/gpuc2/gpuc2/cuzk/cuzkv1"
	"github.com/gpuc2/gpuc2/internal/errtext"
)

// DefaultRetain is how long a finished job is kept by default.
const DefaultRetain = 10 * time.Minute

// cancelGrace is how long CancelProof waits for a running job to give its
// memory and GPU back before it answers.
const cancelGrace = time.Second

// Config configures a Server.
type Config struct {
	Prover *gpuc2.Prover
	// ParamsDir and TestParamsDir are the Prover's (gpuc2.Config): GetStatus
	// lists a circuit whose file is there but not loaded as COLD.
	ParamsDir, TestParamsDir string
	// MaxPending refuses SubmitProof (ResourceExhausted) of a PoRep or
	// SnapDeals proof while this many of them are queued or running; 0: no
	// limit. WindowPoSt and WinningPoSt are never refused for it (their
	// deadlines are the chain's) and do not count.
	MaxPending int
	// Retain is how long a job's outcome is kept after it ends, for
	// AwaitProof and for a second submit of its request id and content (a
	// completed job only); default DefaultRetain.
	Retain time.Duration
	Log    *slog.Logger
}

// Server is the ProvingEngine service over a gpuc2.Prover.
type Server struct {
	pb.UnimplementedProvingEngineServer
	cfg     Config
	prover  *gpuc2.Prover
	log     *slog.Logger
	jobs    *table
	metrics *metrics
	since   time.Time // when the daemon started

	running sync.WaitGroup // job goroutines
	stop    chan struct{}  // closed by Shutdown: the reaper returns
	once    sync.Once

	// testProve, set by tests only, proves every job in place of the
	// Prover.
	testProve func(req *pb.SubmitProofRequest, label string) proveFunc
}

// New returns a Server over cfg.Prover; Register serves it on a gRPC
// server, Shutdown drains it.
func New(cfg Config) (*Server, error) {
	if cfg.Prover == nil {
		return nil, errors.New("cuzk: no Prover")
	}
	if cfg.Retain <= 0 {
		cfg.Retain = DefaultRetain
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	s := &Server{cfg: cfg, prover: cfg.Prover, log: cfg.Log, jobs: newTable(), since: time.Now(), stop: make(chan struct{})}
	s.metrics = newMetrics(s)
	go s.reap()
	return s, nil
}

// Register adds the service to g.
func (s *Server) Register(g *grpc.Server) { pb.RegisterProvingEngineServer(g, s) }

// reap forgets jobs Retain after they end.
func (s *Server) reap() {
	tick := time.NewTicker(min(s.cfg.Retain/4, time.Minute))
	defer tick.Stop()
	for {
		select {
		case now := <-tick.C:
			s.jobs.forget(now.Add(-s.cfg.Retain))
		case <-s.stop:
			return
		}
	}
}

// Shutdown refuses new jobs, cancels those not yet started, lets the
// running ones finish until ctx ends, then cancels them too, and waits for
// every job to end (their awaiters get CANCELLED).
func (s *Server) Shutdown(ctx context.Context) {
	s.once.Do(func() { close(s.stop) })
	s.jobs.close()
	started := startedJobs(s.prover.Status())
	for _, j := range s.jobs.unfinished() {
		if !started[j.id] {
			j.cancel(errCancelled)
		}
	}
	done := make(chan struct{})
	go func() { s.running.Wait(); close(done) }()
	select {
	case <-done:
		return
	case <-ctx.Done():
	}
	for _, j := range s.jobs.unfinished() {
		j.cancel(errCancelled)
	}
	<-done
}

// SubmitProof queues a proof and returns its job id at once.
//
// A request id names one request: a submit of an id already held by a job
// joins that job only when the whole request is the same, every field
// that changes the proof (content: the kind, registered_proof, sector,
// miner, the vanilla proof(s), SnapDeals' commitments, PoSt's randomness
// and partition index; not priority) compared by its SHA-256. Otherwise:
//   - the job holding the id is queued or running: the request is refused
//     (InvalidArgument, naming the job, both contents' digests and the
//     fields that differ); await or cancel the job, or use another id;
//   - the job has completed and is retained: the request takes the id over
//     (a sector sealed again, with another ticket and seed, under Curio's
//     porep-<miner>-<sector>): a new job proves it, and the old one still
//     answers AwaitProof by its job id until forgotten.
//
// A failed or cancelled job gives its id up when it ends: a retry is a new
// job. A SubmitProof that joins a job made by Prove keeps it alive when
// the Prove caller hangs up.
func (s *Server) SubmitProof(ctx context.Context, req *pb.SubmitProofRequest) (*pb.SubmitProofResponse, error) {
	j, err := s.submit(req, false)
	if err != nil {
		return nil, err
	}
	return &pb.SubmitProofResponse{JobId: j.id, QueuePosition: s.position(j)}, nil
}

// AwaitProof waits for the job's outcome, or TIMEOUT after timeout_ms (the
// job goes on).
func (s *Server) AwaitProof(ctx context.Context, req *pb.AwaitProofRequest) (*pb.AwaitProofResponse, error) {
	j := s.jobs.get(req.GetJobId())
	if j == nil {
		return nil, status.Errorf(codes.NotFound, "no job %s (unknown, or forgotten %v after it ended)", errtext.Quote(req.GetJobId()), s.cfg.Retain)
	}
	var timeout <-chan time.Time
	if req.GetTimeoutMs() > 0 {
		t := time.NewTimer(time.Duration(min(req.GetTimeoutMs(), uint64(1<<62)/uint64(time.Millisecond))) * time.Millisecond)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-j.done:
		return j.response(), nil
	case <-timeout:
		return &pb.AwaitProofResponse{JobId: j.id, Status: pb.AwaitProofResponse_TIMEOUT,
			ErrorMessage: fmt.Sprintf("not done after %d ms; the job goes on", req.GetTimeoutMs()),
			TotalMs:      ms(time.Since(j.submitted))}, nil
	case <-ctx.Done():
		return nil, status.FromContextError(ctx.Err()).Err()
	}
}

// Prove is SubmitProof and AwaitProof in one call (SubmitProof's policy on
// request ids). A caller that hangs up cancels the job it made, unless
// another Prove call still waits on it or a SubmitProof joined it.
func (s *Server) Prove(ctx context.Context, req *pb.ProveRequest) (*pb.ProveResponse, error) {
	j, err := s.submit(req.GetSubmit(), true)
	if err != nil {
		return nil, err
	}
	defer func() {
		if s.jobs.leave(j, ctx.Err() != nil) {
			s.log.Info("gpuc2d: caller hung up; cancelling its job", "job", j.id, "request", errtext.Cut(j.requestID))
		}
	}()
	select {
	case <-j.done:
		return &pb.ProveResponse{Result: j.response()}, nil
	case <-ctx.Done():
		return nil, status.FromContextError(ctx.Err()).Err()
	}
}

// CancelProof cancels a job and waits up to a second for it to stop.
func (s *Server) CancelProof(ctx context.Context, req *pb.CancelProofRequest) (*pb.CancelProofResponse, error) {
	j := s.jobs.get(req.GetJobId())
	if j == nil {
		return nil, status.Errorf(codes.NotFound, "no job %s", errtext.Quote(req.GetJobId()))
	}
	if j.ended() {
		return &pb.CancelProofResponse{}, nil
	}
	running := startedJobs(s.prover.Status())[j.id]
	j.cancel(errCancelled)
	t := time.NewTimer(cancelGrace)
	defer t.Stop()
	select {
	case <-j.done:
	case <-t.C:
		s.log.Warn("gpuc2d: a cancelled job has not stopped within its grace", "job", j.id, "grace", cancelGrace)
	case <-ctx.Done():
	}
	return &pb.CancelProofResponse{WasRunning: running}, nil
}

// submit checks req, then returns the job of its request id if that is
// for the same content, else starts a new one (SubmitProof's policy).
func (s *Server) submit(req *pb.SubmitProofRequest, byProve bool) (*job, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "no request")
	}
	sp, err := s.spec(req)
	if err != nil {
		return nil, err
	}
	j, joined, replaced, err := s.jobs.add(req.GetRequestId(), req.GetProofKind(), sp.content, byProve, s.cfg.MaxPending, func(id string) *job {
		ctx, cancel := context.WithCancelCause(context.Background())
		prove := sp.prove(id)
		if s.testProve != nil {
			prove = s.testProve(req, id)
		}
		return &job{id: id, requestID: req.GetRequestId(), kind: req.GetProofKind(), priority: sp.priority,
			submitted: time.Now(), content: sp.content, what: sp.what, prove: prove, ctx: ctx, cancel: cancel,
			done: make(chan struct{})}
	})
	var (
		full     errFull
		conflict errConflict
	)
	switch {
	case errors.As(err, &conflict):
		held := conflict.held
		return nil, status.Errorf(codes.InvalidArgument,
			"request_id %s is job %s (%s), still queued or running, for other content: %s (the job's %s, this request's %s); "+
				"await or cancel it, or use another request id",
			errtext.Quote(req.GetRequestId()), held.id, held.what, sp.content.differs(held.content), held.content.short(), sp.content.short())
	case errors.Is(err, errDraining):
		return nil, status.Error(codes.Unavailable, err.Error())
	case errors.As(err, &full):
		return nil, status.Error(codes.ResourceExhausted, err.Error())
	case err != nil:
		return nil, status.Error(codes.Internal, err.Error())
	}
	if joined {
		s.log.Info("gpuc2d: request id seen again; same job", "request", errtext.Cut(j.requestID), "job", j.id, "content", j.content.short())
		return j, nil
	}
	if replaced != nil {
		s.log.Info("gpuc2d: request id reused with new content: a new job holds it", "request", errtext.Cut(j.requestID),
			"job", j.id, "content", j.content.short(), "previous_job", replaced.id, "previous_content", replaced.content.short(),
			"previous_status", replaced.status, "what_differs", j.content.differs(replaced.content))
	}
	s.metrics.submitted(j)
	s.log.Info("gpuc2d: proof queued", append([]any{"job", j.id, "request", errtext.Cut(j.requestID), "kind", j.kind,
		"priority", req.GetPriority(), "content", j.content.short()}, sp.attrs...)...)
	s.running.Add(1)
	go s.run(j)
	return j, nil
}

// proofSpec is a checked request: what it proves and how.
type proofSpec struct {
	content  content
	what     string
	priority gpuc2.Priority
	// prove binds the facade's call to the job's id (its label in Status).
	prove func(label string) proveFunc
	attrs []any // for the log
}

// spec checks what can be checked of req before any work and makes the
// facade's request for its kind.
func (s *Server) spec(req *pb.SubmitProofRequest) (proofSpec, error) {
	switch req.GetProofKind() {
	case pb.ProofKind_POREP_SEAL_COMMIT:
		return s.sealSpec(req)
	case pb.ProofKind_SNAP_DEALS_UPDATE:
		return s.updateSpec(req)
	case pb.ProofKind_WINDOW_POST_PARTITION, pb.ProofKind_WINNING_POST:
		return s.postSpec(req)
	}
	return proofSpec{}, status.Errorf(codes.InvalidArgument, "proof_kind %v: gpuc2d serves POREP_SEAL_COMMIT, SNAP_DEALS_UPDATE, "+
		"WINDOW_POST_PARTITION and WINNING_POST", req.GetProofKind())
}

// sealSpec is a POREP_SEAL_COMMIT request: a known proof type matching
// sector_size, a vanilla proof.
func (s *Server) sealSpec(req *pb.SubmitProofRequest) (proofSpec, error) {
	sreq, err := sealRequest(req)
	if err != nil {
		return proofSpec{}, err
	}
	size, _ := sreq.ProofType.SectorSize() // sealRequest checked it
	return proofSpec{
		content: contentOf(uintField(fieldKind, uint64(req.GetProofKind())), uintField("registered_proof", uint64(*sreq.ProofType)),
			uintField("sector_size", uint64(size)), uintField("sector_number", uint64(sreq.Sector)),
			uintField("miner_id", uint64(sreq.Miner)), bytesField("vanilla_proof", sreq.C1)),
		what:     fmt.Sprintf("%s sector %d of miner %d", gpuc2.SealProofName(*sreq.ProofType), sreq.Sector, sreq.Miner),
		priority: sreq.Priority,
		prove: func(label string) proveFunc {
			sreq.Label = label
			return func(ctx context.Context) ([]byte, gpuc2.ProofTimings, error) {
				res, err := s.prover.ProveSeal(ctx, sreq)
				if err != nil {
					return nil, gpuc2.ProofTimings{}, c1FormHint(sreq.C1, err)
				}
				return res.Proof, res.Timings, nil
			}
		},
		attrs: []any{"proof", gpuc2.SealProofName(*sreq.ProofType), "sector", sreq.Sector, "miner", sreq.Miner, "c1_bytes", len(sreq.C1)},
	}, nil
}

// sealRequest is the facade's request for a POREP_SEAL_COMMIT.
func sealRequest(req *pb.SubmitProofRequest) (gpuc2.SealRequest, error) {
	t := abi.RegisteredSealProof(req.GetRegisteredProof())
	if req.GetRegisteredProof() > 1<<31 {
		return gpuc2.SealRequest{}, invalid("registered_proof %d is no RegisteredSealProof", req.GetRegisteredProof())
	}
	size, err := t.SectorSize()
	if err != nil {
		return gpuc2.SealRequest{}, invalid("registered_proof %d is no RegisteredSealProof: %v", req.GetRegisteredProof(), err)
	}
	if req.GetSectorSize() != 0 && req.GetSectorSize() != uint64(size) {
		return gpuc2.SealRequest{}, invalid("sector_size %d does not match registered_proof %d, whose sectors are %d bytes",
			req.GetSectorSize(), req.GetRegisteredProof(), uint64(size))
	}
	if len(req.GetVanillaProof()) == 0 {
		return gpuc2.SealRequest{}, invalid("vanilla_proof is empty: POREP_SEAL_COMMIT takes the C1 output there")
	}
	if req.GetMinerId() > 1<<63-1 {
		return gpuc2.SealRequest{}, invalid("miner_id %d is out of range", req.GetMinerId())
	}
	return gpuc2.SealRequest{C1: req.GetVanillaProof(), Sector: abi.SectorNumber(req.GetSectorNumber()),
		Miner: abi.ActorID(req.GetMinerId()), Priority: priority(req.GetPriority()), ProofType: &t}, nil
}

func invalid(format string, args ...any) error {
	return status.Errorf(codes.InvalidArgument, "%s: %s", gpuc2.ErrBadInput, fmt.Sprintf(format, args...))
}

// priority maps cuzk's priority to the facade's (unspecified: normal).
func priority(p pb.Priority) gpuc2.Priority {
	switch p {
	case pb.Priority_LOW:
		return gpuc2.PriorityLow
	case pb.Priority_HIGH:
		return gpuc2.PriorityHigh
	case pb.Priority_CRITICAL:
		return gpuc2.PriorityCritical
	}
	return gpuc2.PriorityNormal
}

// run proves j through the facade and records its outcome.
func (s *Server) run(j *job) {
	defer s.running.Done()
	proof, timings, err := j.prove(j.ctx)
	j.finished = time.Now()
	switch {
	case err == nil:
		j.status, j.proof, j.timings = pb.AwaitProofResponse_COMPLETED, proof, timings
	case errors.Is(context.Cause(j.ctx), errCancelled):
		j.status, j.errText = pb.AwaitProofResponse_CANCELLED, "cancelled"
	default:
		j.status, j.errText = pb.AwaitProofResponse_FAILED, err.Error()
	}
	j.prove = nil // its inputs (a C1: tens of MB) are not kept with the outcome
	// Recorded before its waiters wake: a caller that sees the outcome
	// finds it counted, and a failed job's request id free for a retry.
	s.jobs.ended(j)
	s.metrics.ended(j)
	close(j.done)
	s.log.Info("gpuc2d: proof ended", "job", j.id, "request", errtext.Cut(j.requestID), "kind", j.kind, "status", j.status,
		"total", j.finished.Sub(j.submitted).Round(time.Millisecond), "error", j.errText)
}

// startedJobs are the ids of the jobs with a partition past the queue
// (their proofs' labels).
func startedJobs(st gpuc2.Status) map[string]bool {
	started := map[string]bool{}
	for _, p := range st.Proofs {
		started[p.Label] = p.Started > 0
	}
	return started
}

// position is how many unfinished jobs are ahead of j: of a higher
// priority, or of its own and submitted before it.
func (s *Server) position(j *job) uint32 {
	var n uint32
	for _, o := range s.jobs.unfinished() {
		if o != j && (o.priority > j.priority || o.priority == j.priority && o.submitted.Before(j.submitted)) {
			n++
		}
	}
	return n
}
