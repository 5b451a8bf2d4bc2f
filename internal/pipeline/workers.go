package pipeline

import (
	"context"
	"fmt"
	"time"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/par"
)

// dispatch hands queued partitions, in (proof, partition) order, to idle
// synthesis workers once their host memory is reserved. It alone reserves,
// so the budget serves partitions in queue order.
func (p *Pipeline) dispatch() {
	for {
		w := p.worker()
		if w == nil {
			return
		}
		t := p.take(w.urgent)
		if t == nil {
			select {
			case <-p.done:
				return
			default: // the urgent partition went meanwhile
				p.urgentIdle <- w
				continue
			}
		}
		if err := par.Recover(func() error { return p.schedule(w, t) }); err != nil {
			p.giveBack(w)
			p.finish(t, err)
			continue
		}
		w.tasks <- t
	}
}

// worker waits for an idle synthesis worker: one of Config.Synthesis's,
// or, while a partition above the default priority heads the queue, the
// urgent one, so that such a partition waits for no synthesis to end.
// nil once the pipeline is closed.
func (p *Pipeline) worker() *synthWorker {
	for {
		// The urgent token is taken by this goroutine alone, and its return
		// signals the queue: a length read here cannot go stale unseen.
		var urgentIdle chan *synthWorker // nil: blocks
		if len(p.urgent) > 0 && p.synthQueue.headIs(urgent) {
			urgentIdle = p.urgentIdle
		}
		select {
		case w := <-p.idle:
			return w
		case w := <-urgentIdle:
			return w
		case <-p.synthQueue.notify: // a push, perhaps of an urgent partition (dispatch alone pops this queue)
		case <-p.done:
			return nil
		}
	}
}

// giveBack returns w to its idle channel.
func (p *Pipeline) giveBack(w *synthWorker) {
	if w.urgent {
		p.urgentIdle <- w
	} else {
		p.idle <- w
	}
}

// take waits for a queued partition and room ahead of the provers: a token
// of ahead, or for a partition above the default priority at the queue's
// head, the urgent token. With urgentOnly (the urgent worker's) it takes
// only the latter, and only if both are there now; else nil. nil once the
// pipeline is closed.
func (p *Pipeline) take(urgentOnly bool) *task {
	if urgentOnly {
		select {
		case <-p.urgent:
			if t := p.synthQueue.popIf(urgent); t != nil {
				t.ahead = p.urgent
				return t
			}
			p.urgent <- struct{}{} // withdrawn meanwhile
		default:
		}
		return nil
	}
	for {
		var token chan struct{} // nil: blocks
		if p.synthQueue.headIs(urgent) {
			token = p.urgent
		}
		select {
		case <-token:
			if t := p.synthQueue.popIf(urgent); t != nil {
				t.ahead = p.urgent
				return t
			}
			p.urgent <- struct{}{} // withdrawn meanwhile
		case <-p.ahead:
			t := p.synthQueue.pop(p.done)
			if t == nil {
				return nil
			}
			t.ahead = p.ahead
			return t
		case <-p.synthQueue.notify: // a push, perhaps of an urgent partition (dispatch alone pops this queue)
		case <-p.done:
			return nil
		}
	}
}

// schedule reserves t's host memory for worker w.
func (p *Pipeline) schedule(w *synthWorker, t *task) error {
	job := t.job
	p.waitingMemory.Add(1) // still queued, for Stats
	picked := time.Now()
	p.tracer.Add(w.track, "queue", t.enqueued, picked, t.args()...)
	err := context.Cause(job.ctx)
	if err == nil {
		t.w, err = p.budget.Reserve(job.ctx, job.spec.Shape, job.spec.Bytes)
		t.reserved = err == nil
	}
	p.waitingMemory.Add(-1)
	p.tracer.Add(w.track, "wait_budget", picked, time.Now(), t.args()...)
	t.queue = time.Since(t.enqueued)
	if err != nil {
		return err
	}
	job.report(t, Scheduled, nil)
	return nil
}

func (p *Pipeline) synthLoop(w *synthWorker) {
	for {
		p.giveBack(w) // never blocks: the channels have room for every worker
		select {
		case t := <-w.tasks:
			if err := par.Recover(func() error { return p.synthesize(w, t) }); err != nil {
				p.vectors.drop(t.w) // a failed synthesis may leave the assignment half built: drop it
				t.w = nil
				p.finish(t, err)
				continue
			}
			p.proveQueue.push(t)
		case <-p.done:
			return
		}
	}
}

// synthesize fills t's proving assignment: a spare of its shape reset, or
// a new one.
func (p *Pipeline) synthesize(w *synthWorker, t *task) error {
	p.synthesizing.Add(1)
	defer p.synthesizing.Add(-1)
	job := t.job
	start := time.Now()
	job.markStarted(start)
	job.report(t, Synthesizing, nil)
	err := par.Recover(func() error {
		circuit, err := job.spec.Circuit(t.k)
		if err != nil {
			return err
		}
		witnessOnly := job.spec.Matrices != nil
		if t.w != nil && t.w.WitnessOnly() != witnessOnly {
			p.vectors.drop(t.w) // a spare of the other kind, under the same shape
			t.w = nil
		}
		fresh := t.w == nil
		if fresh {
			t.w, _ = p.vectors.assignment(job.spec.Shape, witnessOnly) // the reserved bytes
		} else {
			t.w.Reset()
		}
		// Traced apart: on an H100 a WinningPoSt's synthesis beside PoRep
		// proofs took 1.1–2.9 s against 5 ms alone, and ended with another
		// partition's upload (a pinned allocation waiting on the driver?).
		p.tracer.Add(w.track, "synthesis_prep", start, time.Now(), append(t.args(), "new_assignment", fresh)...)
		ctx := job.ctx
		if job.spec.Priority > 0 { // the other syntheses yield to it
			var end func()
			ctx, end = par.Urgent(ctx)
			defer end()
		}
		return circuit.Synthesize(ctx, t.w)
	})
	t.synthesized = time.Now()
	t.synth = t.synthesized.Sub(start)
	p.tracer.Add(w.track, "synthesis", start, t.synthesized, t.args()...)
	if err != nil {
		return fmt.Errorf("partition %d: synthesis: %w", t.k, job.failure(err))
	}
	return nil
}

func (p *Pipeline) proveLoop(w *proveWorker) {
	for {
		var t *task
		if w.urgent {
			t = p.proveQueue.popUrgent(p.done)
		} else {
			t = p.proveQueue.pop(p.done)
		}
		if t == nil {
			return
		}
		p.finish(t, par.Recover(func() error { return p.prove(w, t) }))
	}
}

func (p *Pipeline) prove(w *proveWorker, t *task) error {
	p.releaseAhead(t) // proving now: another may be synthesized
	job := t.job
	start := time.Now()
	t.queue += start.Sub(t.synthesized)
	if err := context.Cause(job.ctx); err != nil {
		return err
	}
	p.proving.Add(1)
	w.job.Store(job)
	defer func() { w.job.Store(nil); p.proving.Add(-1) }()
	t.device = w.Device
	job.report(t, Proving, nil)
	opts := []groth16.ProveOption{groth16.WithPhaseStart(func(name string) { job.reportPhase(t, name) }),
		groth16.WithPriority(job.spec.Priority)}
	if job.spec.Matrices != nil {
		opts = append(opts, groth16.WithMatrices(job.spec.Matrices))
	}
	if p.tracer != nil {
		opts = append(opts, groth16.WithPhases(func(name string, s, e time.Time, args ...any) {
			p.tracer.Add(w.track, name, s, e, append(t.args(), args...)...)
		}))
	}
	err := par.Recover(func() (err error) {
		t.proof, err = w.Prover.Prover.Prove(job.ctx, job.spec.Key, t.w, opts...)
		return err
	})
	end := time.Now()
	p.tracer.Add(w.track, "partition", start, end, t.args()...)
	t.prove = end.Sub(start)
	if err != nil {
		return fmt.Errorf("partition %d: %w", t.k, job.failure(err))
	}
	return nil
}

// releaseAhead gives back t's token (ahead's or urgent's), if it holds one.
func (p *Pipeline) releaseAhead(t *task) {
	if t.ahead != nil {
		t.ahead <- struct{}{}
		if t.ahead == p.urgent { // the urgent worker may take the next urgent partition (worker)
			p.synthQueue.signal()
		}
		t.ahead = nil
	}
}

// finish reports t to its job with err (nil: proved), giving back its host
// memory and keeping its assignment, if any, as a spare.
func (p *Pipeline) finish(t *task, err error) {
	p.releaseAhead(t) // one that never got to a prover
	if t.reserved {
		p.budget.Release(t.job.spec.Shape, t.w, t.job.spec.Bytes)
		t.reserved, t.w = false, nil
	}
	t.err = err
	t.job.done <- t
}
