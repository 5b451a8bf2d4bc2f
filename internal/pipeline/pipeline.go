package pipeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/par"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/trace"
)

// ErrClosed reports a job refused, or cut short, by Close.
var ErrClosed = errors.New("pipeline: closed")

// Config configures a Pipeline.
type Config struct {
	Synthesis  int      // synthesis workers, at least 1
	Provers    []Prover // prover workers, at least 1
	HostBudget int64    // the host memory budget's limit (NewBudget), bytes
	Tracer     *trace.Tracer
	Log        *slog.Logger // a panic in the pipeline's own code (not a partition's) is logged here
	// Vectors, if set, holds the assignments' vectors (a witness-only
	// one's aux; a full one's aux, a, b, c): GPU provers pass
	// gpu.Devices.Vectors, whose vectors they upload by one DMA. Spare
	// assignments keep their vectors for the next partition.
	Vectors VectorMemory
}

// Prover is a prover worker: a groth16.Prover on a GPU (the workers of a
// GPU share its prover) or on the CPU.
type Prover struct {
	Device int // the GPU's ordinal; -1: the CPU
	Prover groth16.Prover
}

// Pipeline schedules the partitions of every proof in flight (see the
// package doc). All methods are safe for concurrent use.
type Pipeline struct {
	budget  *Budget
	vectors *vectorMemory
	tracer  *trace.Tracer
	log     *slog.Logger

	synthQueue *queue // partitions waiting for a synthesis worker and host memory
	proveQueue *queue // synthesized partitions waiting for a prover worker
	idle       chan *synthWorker
	urgentIdle chan *synthWorker // the one synthesis worker for urgent partitions only, when idle
	synthesis  int
	provers    []*proveWorker
	// ahead holds a token per partition dispatched and not yet proving,
	// as many as the synthesis workers: the pipeline synthesizes no
	// further ahead of its provers than it synthesizes at once, whatever
	// room the budget leaves (a witness-only partition is a quarter of a
	// full one, and queued ones would only hold memory).
	ahead chan struct{}
	// urgent holds one more token, for a partition above the default
	// priority only: it is synthesized while the partitions ahead wait for
	// a prover, and the prover queue's order then puts it first, so a
	// WinningPoSt does not wait for a prover to take every partition that
	// was ahead of it.
	urgent chan struct{}

	mu     sync.Mutex
	jobs   map[*Job]struct{}
	seq    uint64
	closed bool
	active sync.WaitGroup // jobs, from Enqueue to the end of Collect

	done      chan struct{} // closed by Close: the goroutines return
	wg        sync.WaitGroup
	closeOnce sync.Once

	// Counts for Stats.
	proofs, waitingMemory, synthesizing, proving atomic.Int64
}

type synthWorker struct {
	track  trace.Track
	tasks  chan *task
	urgent bool // synthesizes only partitions above the default priority
}

type proveWorker struct {
	Prover
	track  trace.Track
	urgent bool                // proves only partitions above the default priority
	job    atomic.Pointer[Job] // the job it proves now; nil: idle
}

// New starts a pipeline's workers; Close stops them.
func New(cfg Config) (*Pipeline, error) {
	if cfg.Synthesis < 1 || len(cfg.Provers) == 0 {
		return nil, fmt.Errorf("pipeline: %d synthesis and %d prover workers: want at least 1 each", cfg.Synthesis, len(cfg.Provers))
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	p := &Pipeline{
		budget:     NewBudget(cfg.HostBudget, maxAssignments(cfg)),
		vectors:    newVectorMemory(cfg.Vectors, cfg.Log),
		tracer:     cfg.Tracer,
		log:        cfg.Log,
		synthQueue: newQueue(),
		proveQueue: newQueue(),
		idle:       make(chan *synthWorker, cfg.Synthesis),
		urgentIdle: make(chan *synthWorker, 1),
		synthesis:  cfg.Synthesis,
		ahead:      make(chan struct{}, cfg.Synthesis),
		urgent:     make(chan struct{}, 1),
		jobs:       map[*Job]struct{}{},
		done:       make(chan struct{}),
	}
	p.budget.drop = p.vectors.drop
	perDevice := map[int]int{}
	for _, pr := range cfg.Provers {
		i := perDevice[pr.Device]
		perDevice[pr.Device]++
		w := &proveWorker{Prover: pr, track: trace.Track{Process: "cpu", Thread: fmt.Sprintf("prover %d", i)}}
		if pr.Device >= 0 {
			w.track.Process = fmt.Sprintf("cuda %d", pr.Device)
		}
		p.provers = append(p.provers, w)
		p.goLoop("prover", func() { p.proveLoop(w) })
	}
	// One more worker per device, for urgent partitions only: a
	// WinningPoSt does not wait for a worker to finish the partition it
	// proves, only (on a GPU, first in line: WithPriority) for the device
	// memory and compute lock that partition holds.
	for _, pr := range cfg.Provers {
		if perDevice[pr.Device] == 0 {
			continue
		}
		perDevice[pr.Device] = 0
		w := &proveWorker{Prover: pr, urgent: true, track: trace.Track{Process: "cpu", Thread: "prover urgent"}}
		if pr.Device >= 0 {
			w.track.Process = fmt.Sprintf("cuda %d", pr.Device)
		}
		p.provers = append(p.provers, w)
		p.goLoop("prover", func() { p.proveLoop(w) })
	}
	for range cfg.Synthesis {
		p.ahead <- struct{}{}
	}
	p.urgent <- struct{}{}
	for i := range cfg.Synthesis {
		w := &synthWorker{tasks: make(chan *task, 1), track: trace.Track{Process: "cpu", Thread: fmt.Sprintf("synthesis %d", i)}}
		p.goLoop("synthesis", func() { p.synthLoop(w) })
	}
	uw := &synthWorker{tasks: make(chan *task, 1), urgent: true, track: trace.Track{Process: "cpu", Thread: "synthesis urgent"}}
	p.goLoop("synthesis", func() { p.synthLoop(uw) })
	p.goLoop("dispatch", p.dispatch)
	return p, nil
}

// maxAssignments is the most assignments the workers hold at once: a
// partition synthesized or queued per synthesis worker (the ahead tokens),
// one proving per prover, and the urgent one. As many of each shape are
// kept as spares (within the budget), so that a pipeline that drained
// refills without allocating: a pinned 4.17 GB assignment took 1.3–3.3 s
// to allocate on an H100 host, and the traces show the CUDA calls beside
// it (a WinningPoSt's synthesis, other partitions' uploads and kernels)
// held up meanwhile (BENCHMARKS.md, issue 56).
func maxAssignments(cfg Config) int { return cfg.Synthesis + len(cfg.Provers) + 1 }

// goLoop runs loop on a goroutine of the pipeline until it returns. A
// partition's work fails only that partition (its errors and panics are
// caught where it runs); a panic in the loop itself is a bug of the
// pipeline's: it is logged and the loop restarted, so the other proofs go on.
func (p *Pipeline) goLoop(name string, loop func()) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			var pe *par.PanicError
			if err := par.Recover(func() error { loop(); return nil }); !errors.As(err, &pe) {
				return
			}
			p.log.Error("gpuc2: recovered a panic in the pipeline", "in", name, "panic", fmt.Sprint(pe.Value), "stack", string(pe.Stack))
		}
	}()
}

// PrepareWitnesses makes up to n witness-only assignments of shape ahead
// of the partitions that will take them (bytes each, the reservation
// those partitions will ask), their aux in Config.Vectors' memory, and
// keeps them as spares while the budget has room for spares (one per
// synthesis worker). A pinned vector takes seconds to allocate, which the
// first partitions would otherwise wait for; the facade calls this while
// the constraint matrices load. Measured once at 32 GiB (BENCHMARKS.md),
// the first partitions then synthesized in 0.7 s instead of 3.9-5.6 s but
// the matrices' load took 36.0 s instead of 27.8 s: no sooner a first
// proof. It stops making them once ctx ends. It returns how many it made:
// none without Config.Vectors, when the memory fails, or after Close.
func (p *Pipeline) PrepareWitnesses(ctx context.Context, shape synth.Sizes, bytes int64, n int) int {
	if p.vectors.mem == nil {
		return 0
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return 0
	}
	p.active.Add(1) // Close frees the spares after this returns
	p.mu.Unlock()
	defer p.active.Done()
	made := 0
	for made < n && ctx.Err() == nil && !p.isClosed() && p.budget.roomForSpare(shape, bytes) {
		w, inMem := p.vectors.assignment(shape, true)
		if !inMem || !p.budget.addSpare(shape, w, bytes) {
			p.vectors.drop(w)
			break
		}
		made++
	}
	return made
}

func (p *Pipeline) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// Budget is the host memory budget the pipeline reserves partitions from.
func (p *Pipeline) Budget() *Budget { return p.budget }

// Close cuts short the jobs in flight (their Collect returns ErrClosed),
// waits for them to be collected, stops the workers and frees the spare
// assignments. Enqueue then returns ErrClosed. It is idempotent.
func (p *Pipeline) Close() {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		p.closed = true
		for j := range p.jobs {
			j.cancel(ErrClosed)
		}
		p.mu.Unlock()
		p.active.Wait()
		close(p.done)
		p.wg.Wait()
		p.budget.DropSpares(nil)
	})
}

// Stats is a snapshot of a Pipeline.
type Stats struct {
	Jobs int // enqueued and not yet collected
	// Queued are waiting for a synthesis worker or for host memory;
	// WaitingForMemory are those of them the dispatcher has taken, with a
	// synthesis worker free, that wait for their bytes of the budget.
	Queued           int
	WaitingForMemory int
	Synthesizing     int
	WaitingProver    int // synthesized, waiting for a prover worker
	Proving          int

	SynthesisWorkers int
	Provers          []ProverStats // in Config.Provers' order, then each device's urgent worker
	Budget           BudgetStats
	// JobList is every job enqueued and not yet collected, in sequence order.
	JobList []JobStats
}

// ProverStats is one prover worker's state.
type ProverStats struct {
	Device int
	Urgent bool   // the device's worker for partitions above the default priority only
	Busy   bool   // proving now
	Label  string // the Spec.Label of the job it proves now
}

// JobStats is one job's progress.
type JobStats struct {
	Seq        uint64
	Label      string
	Priority   int
	Partitions int
	Started    int // partitions that began synthesis (proving or done included)
	Proved     int
}

// Stats returns a snapshot of the queues, workers and budget.
func (p *Pipeline) Stats() Stats {
	queued := p.synthQueue.len() // before: a partition taken since then counts as waiting for memory
	s := Stats{
		Jobs:             int(p.proofs.Load()),
		WaitingForMemory: int(p.waitingMemory.Load()),
		Synthesizing:     int(p.synthesizing.Load()),
		WaitingProver:    p.proveQueue.len(),
		Proving:          int(p.proving.Load()),
		SynthesisWorkers: p.synthesis,
		Budget:           p.budget.Stats(),
	}
	s.Queued = queued + s.WaitingForMemory // taken from the queue, still waiting
	for _, w := range p.provers {
		ps := ProverStats{Device: w.Device, Urgent: w.urgent}
		if j := w.job.Load(); j != nil {
			ps.Busy, ps.Label = true, j.spec.Label
		}
		s.Provers = append(s.Provers, ps)
	}
	p.mu.Lock()
	for j := range p.jobs {
		s.JobList = append(s.JobList, JobStats{Seq: j.seq, Label: j.spec.Label, Priority: j.spec.Priority,
			Partitions: j.spec.Partitions, Started: int(j.started.Load()), Proved: int(j.proved.Load())})
	}
	p.mu.Unlock()
	slices.SortFunc(s.JobList, func(a, b JobStats) int { return cmp.Compare(a.Seq, b.Seq) })
	return s
}

// Workers is the prover workers of Config.Provers, the urgent ones not
// counted.
func (s Stats) Workers() int {
	n := 0
	for _, w := range s.Provers {
		if !w.Urgent {
			n++
		}
	}
	return n
}
