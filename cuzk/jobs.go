package cuzk

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/gpuc2/gpuc2"
	pb "github.com/gpuc2/gpuc2/cuzk/cuzkv1"
)

// job is one submitted proof, from SubmitProof until it is forgotten
// (Config.Retain after it ends).
type job struct {
	id        string
	requestID string
	kind      pb.ProofKind
	priority  gpuc2.Priority
	submitted time.Time
	// content is what the job proves: a request of its id joins it only
	// for the same content. what names the proof, for messages.
	content content
	what    string
	// prove makes the proof; dropped once the job ends, with the inputs it
	// holds (a C1 is tens of MB).
	prove proveFunc

	ctx    context.Context
	cancel context.CancelCauseFunc
	done   chan struct{} // closed once the outcome below is set

	// Set before done closes.
	status   pb.AwaitProofResponse_Status
	proof    []byte
	errText  string
	timings  gpuc2.ProofTimings
	finished time.Time

	// Guarded by the table's mu.
	// byProve: made by a Prove call and joined by no SubmitProof, so the
	// last Prove caller to hang up cancels it (one made or joined by
	// SubmitProof lives until it ends or is cancelled).
	byProve bool
	provers int // Prove calls waiting on it
}

// proveFunc proves a job's request through the facade.
type proveFunc func(ctx context.Context) (proof []byte, timings gpuc2.ProofTimings, err error)

// errCancelled is the cause of a job cancelled by CancelProof, a Prove
// caller hanging up or the daemon's shutdown.
var errCancelled = errors.New("job cancelled")

// ended reports whether the job has its outcome.
func (j *job) ended() bool {
	select {
	case <-j.done:
		return true
	default:
		return false
	}
}

// response is the job's AwaitProofResponse once it has ended.
func (j *job) response() *pb.AwaitProofResponse {
	r := &pb.AwaitProofResponse{JobId: j.id, Status: j.status, Proof: j.proof, ErrorMessage: j.errText}
	if j.status == pb.AwaitProofResponse_COMPLETED {
		r.QueueWaitMs = ms(j.timings.Wait)
		r.SrsLoadMs = ms(j.timings.ParamLoad)
		r.SynthesisMs = ms(j.timings.Synthesis)
		r.GpuComputeMs = ms(j.timings.Prove)
	}
	r.TotalMs = ms(j.finished.Sub(j.submitted))
	return r
}

func ms(d time.Duration) uint64 { return uint64(max(0, d.Milliseconds())) }

// table holds the jobs: by id, and by request id while a second submit of
// the same content must get the same job (queued, running, or completed
// and retained).
type table struct {
	mu        sync.Mutex
	byID      map[string]*job
	byRequest map[string]*job
	seq       uint64
	closed    bool // draining: no new jobs
}

func newTable() *table {
	return &table{byID: map[string]*job{}, byRequest: map[string]*job{}}
}

// errDraining refuses a submit during shutdown.
var errDraining = errors.New("gpuc2d is shutting down: no new proofs")

// errFull refuses a submit beyond Config.MaxPending.
type errFull struct{ pending, max int }

func (e errFull) Error() string {
	return fmt.Sprintf("gpuc2d has %d proofs pending or running, its limit (-max-pending %d)", e.pending, e.max)
}

// errConflict refuses a request whose id is held by an unfinished job of
// other content.
type errConflict struct{ held *job }

func (errConflict) Error() string { return "request id held by a job for other content" }

// add returns the job that answers a request for c: the one holding its
// request id if that is for the same content (joined), else a new one
// made by newJob, unless the daemon is draining or maxPending jobs are
// unfinished (PoRep and SnapDeals jobs: PoSt is never refused for them,
// nor counted). An id held by an unfinished job of other content is refused
// (errConflict); one held by a job that has ended passes to the new job
// (replaced: the old one answers by its job id until forgotten). A Prove
// call (byProve) is counted as waiting on the job returned; a SubmitProof
// that joins a job made by Prove makes it its own: it then lives until it
// ends or is cancelled, whoever hangs up.
func (t *table) add(requestID string, kind pb.ProofKind, c content, byProve bool, maxPending int, newJob func(id string) *job) (
	j *job, joined bool, replaced *job, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if held := t.byRequest[requestID]; requestID != "" && held != nil {
		switch {
		case held.content.sum == c.sum:
			if byProve {
				held.provers++
			} else {
				held.byProve = false
			}
			return held, true, nil, nil
		case !held.ended():
			return nil, false, nil, errConflict{held}
		}
		replaced = held
	}
	if t.closed {
		return nil, false, nil, errDraining
	}
	if n := t.unfinishedLocked(); maxPending > 0 && n >= maxPending && !deadlineKind(kind) {
		return nil, false, nil, errFull{n, maxPending}
	}
	t.seq++
	j = newJob("gpuc2-" + strconv.FormatUint(t.seq, 10))
	j.byProve = byProve
	if byProve {
		j.provers = 1
	}
	t.byID[j.id] = j
	if requestID != "" {
		t.byRequest[requestID] = j
	}
	return j, false, replaced, nil
}

// deadlineKind reports whether proofs of kind have a chain deadline
// (WindowPoSt, WinningPoSt): MaxPending neither refuses nor counts them, so
// that a queue of seals never turns a block or a deadline away.
func deadlineKind(kind pb.ProofKind) bool {
	return kind == pb.ProofKind_WINDOW_POST_PARTITION || kind == pb.ProofKind_WINNING_POST
}

// unfinishedLocked counts the unfinished jobs MaxPending bounds.
func (t *table) unfinishedLocked() int {
	n := 0
	for _, j := range t.byID {
		if !j.ended() && !deadlineKind(j.kind) {
			n++
		}
	}
	return n
}

// get returns the job with id, or nil.
func (t *table) get(id string) *job {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.byID[id]
}

// ended records that j has ended: a failed or cancelled job no longer
// answers for its request id, so that a retry proves anew; a completed one
// does until it is forgotten.
func (t *table) ended(j *job) {
	if j.status == pb.AwaitProofResponse_COMPLETED || j.requestID == "" {
		return
	}
	t.mu.Lock()
	if t.byRequest[j.requestID] == j {
		delete(t.byRequest, j.requestID)
	}
	t.mu.Unlock()
}

// forget drops the jobs that ended before cutoff.
func (t *table) forget(cutoff time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for id, j := range t.byID {
		if j.ended() && j.finished.Before(cutoff) {
			delete(t.byID, id)
			if t.byRequest[j.requestID] == j {
				delete(t.byRequest, j.requestID)
			}
		}
	}
}

// unfinished returns the jobs not yet ended, in submission order.
func (t *table) unfinished() []*job {
	t.mu.Lock()
	var out []*job
	for _, j := range t.byID {
		if !j.ended() {
			out = append(out, j)
		}
	}
	t.mu.Unlock()
	slices.SortFunc(out, func(a, b *job) int { return a.submitted.Compare(b.submitted) })
	return out
}

// close refuses new jobs from now on.
func (t *table) close() {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
}

// provers is how many Prove calls wait on j.
func (t *table) provers(j *job) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return j.provers
}

// leave ends a Prove call's wait on j. When the last caller to leave a job
// made by Prove (and joined by no SubmitProof) hung up before it ended, it
// cancels the job and frees its request id at once, so that a submit of
// the id from now on makes a new job rather than join one being cancelled.
func (t *table) leave(j *job, hungUp bool) (cancelled bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	j.provers--
	if j.provers > 0 || !j.byProve || !hungUp || j.ended() {
		return false
	}
	j.cancel(errCancelled)
	if t.byRequest[j.requestID] == j {
		delete(t.byRequest, j.requestID)
	}
	return true
}
