package pipeline

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/par"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/pce"
)

// Spec is one proof's work: its partitions, their circuits and key, and
// what a partition holds of the host.
type Spec struct {
	Partitions int
	// Circuit returns partition k's circuit; it is called on a synthesis worker.
	Circuit func(k int) (synth.Circuit, error)
	Key     *groth16.ProvingKey
	// Shape is the capacity of a partition's proving assignment, and the
	// shape its spare is kept under for the next partition.
	Shape synth.Sizes
	// Bytes is a partition's host working set, reserved from the budget
	// before its synthesis until its prover is done.
	Bytes int64
	// Matrices, if set, are the circuit's compiled constraint matrices: a
	// partition is then synthesized into its witness alone
	// (synth.NewWitnessAssignment) and proved WithMatrices.
	Matrices *pce.Matrices
	// Report, if set, is told each stage of each partition, and each
	// prover section as it starts (Event.Phase), in order, from the
	// pipeline's goroutines and Collect's: it must return at once.
	Report func(Event)
	// Priority orders the job's partitions in the queues: higher first,
	// then by sequence number. A partition already taken from a queue is
	// not pre-empted. The synthesis of a partition above the default (0)
	// is urgent (par.Urgent): the other syntheses' parts yield to it.
	Priority int
	// Label names the job in Stats (JobStats, ProverStats); not interpreted.
	Label string
	// TraceArgs lead the arguments of the job's trace events, before
	// "proof", its sequence number, and "partition", k.
	TraceArgs []any
}

// Stage is a step of a partition through the pipeline.
type Stage int

// Stages, in order; Failed ends a partition that did not finish.
const (
	Queued    Stage = iota // waiting for a synthesis worker
	Scheduled              // host memory reserved, handed to a synthesis worker
	Synthesizing
	Proving // on a prover worker
	Proved
	Failed
)

// Event is a partition's stage, for Spec.Report.
type Event struct {
	Seq       uint64 // the job's sequence number
	Partition int
	Stage     Stage
	Device    int   // the prover's GPU from Proving on; -1 before, or on the CPU
	Err       error // with Failed
	// Phase, with Proving, is the prover's section now running: "" when the
	// partition reaches a prover worker, then H, msm_h, msm_l, msm_a,
	// msm_b_g1 and msm_b_g2, each reported once as it starts
	// (groth16.WithPhaseStart).
	Phase string
}

// Result is a proved partition, for Collect.
type Result struct {
	Partition int
	Proof     *groth16.Proof
	Device    int // the prover's GPU; -1: the CPU
	// Queue is the time spent waiting: for a synthesis worker, host memory
	// and a prover worker.
	Queue, Synthesis, Prove time.Duration
}

// Job is one proof in the pipeline, from Enqueue until Collect returns.
type Job struct {
	p      *Pipeline
	seq    uint64
	spec   Spec
	ctx    context.Context
	cancel context.CancelCauseFunc
	done   chan *task // every task reports here exactly once

	// For Stats and Started: partitions past the queue, partitions proved,
	// and when the first began synthesis (unix nanoseconds; 0: none yet).
	started, proved atomic.Int32
	firstStart      atomic.Int64
}

// Started is when the job's first partition began synthesis; zero before.
func (j *Job) Started() time.Time {
	if ns := j.firstStart.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Time{}
}

// markStarted counts a partition that begins synthesis.
func (j *Job) markStarted(now time.Time) {
	j.started.Add(1)
	j.firstStart.CompareAndSwap(0, now.UnixNano())
}

// Seq is the job's sequence number in its pipeline, from 1: jobs are served
// in this order.
func (j *Job) Seq() uint64 { return j.seq }

// Partitions is the job's number of partitions.
func (j *Job) Partitions() int { return j.spec.Partitions }

// Enqueue queues a proof's partitions behind those of the jobs before it.
// ctx ends the job. Every job enqueued must be collected (Collect). It fails
// with ErrBudget if a partition can never fit the budget, and with
// ErrClosed after Close.
func (p *Pipeline) Enqueue(ctx context.Context, spec Spec) (*Job, error) {
	if err := p.budget.Fits(spec.Bytes); err != nil {
		return nil, err
	}
	jctx, cancel := context.WithCancelCause(ctx)
	j := &Job{p: p, spec: spec, ctx: jctx, cancel: cancel, done: make(chan *task, spec.Partitions)}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		cancel(nil)
		return nil, ErrClosed
	}
	p.seq++
	j.seq = p.seq
	p.jobs[j] = struct{}{}
	p.active.Add(1)
	p.mu.Unlock()
	p.proofs.Add(1)

	tasks := make([]*task, spec.Partitions)
	now := time.Now()
	for k := range tasks {
		tasks[k] = &task{job: j, k: k, enqueued: now, device: -1}
		j.report(tasks[k], Queued, nil) // before a worker can report a later stage
	}
	p.synthQueue.push(tasks...)
	return j, nil
}

// Collect waits for the job's partitions and calls each (on the caller's
// goroutine) with every partition proved, in the order they finish. At the
// first error — a partition's, each's, or the end of the job's context
// (its cause: ctx's error, or ErrClosed) — it cancels the job and withdraws
// its partitions from the queues; it returns that error once every
// partition still in the pipeline has stopped and given its memory back.
func (j *Job) Collect(each func(Result) error) error {
	defer j.end()
	pending := j.spec.Partitions
	var first error
	fail := func(err error) {
		if first == nil {
			first = err
			j.cancel(err)
		}
		pending -= j.withdraw(first)
	}
	ctxDone := j.ctx.Done()
	for pending > 0 {
		select {
		case t := <-j.done:
			pending--
			if t.err != nil {
				j.report(t, Failed, t.err)
				fail(t.err)
				continue
			}
			j.proved.Add(1)
			j.report(t, Proved, nil)
			if first != nil {
				continue
			}
			r := Result{Partition: t.k, Proof: t.proof, Device: t.device, Queue: t.queue, Synthesis: t.synth, Prove: t.prove}
			if err := par.Recover(func() error { return each(r) }); err != nil {
				fail(err)
			}
		case <-ctxDone:
			ctxDone = nil
			fail(context.Cause(j.ctx))
		}
	}
	return first
}

// withdraw takes the job's partitions out of the queues: those not yet
// scheduled are reported failed with err here (it returns their number),
// those synthesized are finished and report through j.done.
func (j *Job) withdraw(err error) (reported int) {
	for _, t := range j.p.synthQueue.remove(j) {
		j.report(t, Failed, err)
		reported++
	}
	for _, t := range j.p.proveQueue.remove(j) {
		j.p.finish(t, err)
	}
	return reported
}

func (j *Job) end() {
	j.cancel(nil)
	p := j.p
	p.mu.Lock()
	delete(p.jobs, j)
	p.mu.Unlock()
	p.proofs.Add(-1)
	p.active.Done()
}
