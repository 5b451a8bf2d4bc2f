package gpuc2

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/internal/par"
	"github.com/gpuc2/gpuc2/internal/pipeline"
	"github.com/gpuc2/gpuc2/trace"
)

// Stage is a step of a partition through the pipeline.
type Stage string

// Stages, in order; StageFailed ends a partition that did not finish.
const (
	StageQueued    Stage = "queued"    // waiting for a synthesis worker
	StageScheduled Stage = "scheduled" // host memory reserved, handed to a synthesis worker
	StageSynthesis Stage = "synthesis"
	StageProving   Stage = "proving" // on a prover worker
	StageProved    Stage = "proved"
	StageVerified  Stage = "verified"
	StageFailed    Stage = "failed"
)

// Progress reports a partition's stage to Config.Progress.
type Progress struct {
	Proof      uint64           // the proof's sequence number in this Prover, from 1
	Sector     abi.SectorNumber // a seal's; 0 for an update (UpdateRequest names none)
	Miner      abi.ActorID      // a seal's; 0 for an update
	Partition  int
	Partitions int
	Stage      Stage
	Device     int   // the GPU of StageProving and StageProved; -1 on the CPU
	Err        error // with StageFailed
	// Phase, with StageProving, is the prover's phase now running. A
	// partition's first StageProving report, as it reaches a prover
	// worker, has none; one more follows as each phase starts: "H" (the
	// quotient polynomial's FFTs), then the multi-scalar multiplications
	// "msm_h", "msm_l", "msm_a", "msm_b_g1" and "msm_b_g2". Other stages
	// have none.
	Phase string
}

// requestTrack is the trace track of the steps a call takes itself (C1
// parse and check, parameter load, self-verification); the pipeline's
// workers have their own.
var requestTrack = trace.Track{Process: "cpu", Thread: "requests"}

// stages are the pipeline's stages as Progress reports them; StageVerified
// is the facade's own.
var stages = map[pipeline.Stage]Stage{
	pipeline.Queued:       StageQueued,
	pipeline.Scheduled:    StageScheduled,
	pipeline.Synthesizing: StageSynthesis,
	pipeline.Proving:      StageProving,
	pipeline.Proved:       StageProved,
	pipeline.Failed:       StageFailed,
}

// events delivers Progress reports to Config.Progress in order, on one
// goroutine of its own: no pipeline goroutine runs the host's code, so a
// slow callback delays reports, not proofs, and a callback may call Close
// (Close never waits for this goroutine).
type events struct {
	fn     func(Progress)
	log    *slog.Logger
	mu     sync.Mutex
	queue  []event
	closed bool
	notify chan struct{} // capacity 1: the queue grew or closed
}

// event is a report, or with flushed set a marker that is closed once every
// report before it has been delivered.
type event struct {
	p       Progress
	flushed chan struct{}
}

func newEvents(fn func(Progress), log *slog.Logger) *events {
	q := &events{fn: fn, log: log, notify: make(chan struct{}, 1)}
	if fn != nil {
		go q.run()
	}
	return q
}

func (q *events) push(e event) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	q.queue = append(q.queue, e)
	select {
	case q.notify <- struct{}{}:
	default:
	}
	return true
}

// send queues a report; after close it is dropped.
func (q *events) send(p Progress) {
	if q.fn != nil {
		q.push(event{p: p})
	}
}

// flush waits until the reports sent before it have been delivered, or
// until flushGrace after ctx ends (the call's: a stuck callback must not
// hold it past its deadline), or abort closes (Close: the callback may be
// the one closing).
// Reports not yet delivered stay queued, in order, until Close.
func (q *events) flush(ctx context.Context, abort <-chan struct{}) {
	if q.fn == nil {
		return
	}
	done := make(chan struct{})
	if !q.push(event{flushed: done}) {
		return
	}
	select {
	case <-done:
		return
	case <-abort:
		return
	case <-ctx.Done():
	}
	// The context has ended: a prompt callback still gets the call's last
	// reports (its failure) before the call returns; a stuck one holds it
	// for flushGrace at most.
	grace := time.NewTimer(flushGrace)
	defer grace.Stop()
	select {
	case <-done:
	case <-abort:
	case <-grace.C:
	}
}

// flushGrace is how long a call whose context has ended still waits for
// its reports' delivery: well within the 100 ms a caller may wait for a
// cancelled call to return.
const flushGrace = 20 * time.Millisecond

// close drops the reports not yet delivered; no callback starts after it
// returns. It does not wait for a callback that is running.
func (q *events) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.closed = true
	for _, e := range q.queue {
		if e.flushed != nil {
			close(e.flushed)
		}
	}
	q.queue = nil
	select {
	case q.notify <- struct{}{}:
	default:
	}
}

func (q *events) run() {
	for {
		q.mu.Lock()
		for len(q.queue) == 0 && !q.closed {
			q.mu.Unlock()
			<-q.notify
			q.mu.Lock()
		}
		if q.closed {
			q.mu.Unlock()
			return
		}
		e := q.queue[0]
		q.queue = q.queue[1:]
		q.mu.Unlock()
		if e.flushed != nil {
			close(e.flushed)
			continue
		}
		// A panicking callback loses its report, not the process.
		recovered(q.log, "Progress callback", par.Recover(func() error { q.fn(e.p); return nil }))
	}
}
