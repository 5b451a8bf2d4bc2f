package gpuc2

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/porep"
	"github.com/gpuc2/gpuc2/trace"
)

// SealRequest is one sector's C2.
type SealRequest struct {
	C1     []byte // filecoin-ffi's C1 JSON or the Commit2In envelope
	Sector abi.SectorNumber
	Miner  abi.ActorID
	// DealIDs are copied into the result's SealVerifyInfo (the proof does not
	// depend on them).
	DealIDs []abi.DealID
}

// SealResult is a finished, self-verified (unless SkipSelfVerify) proof.
type SealResult struct {
	Proof      []byte          // the partition proofs, 192 bytes each, in order
	Partitions []groth16.Proof // the same, decoded
	// VerifyInfo is ready for VerifySeal (and for the chain's
	// ProveCommitSector): proof type, sector, randomness, CIDs, proof.
	VerifyInfo proof.SealVerifyInfo
	Backend    Backend
	// Devices are the GPUs that proved partitions (ordinals, ascending);
	// empty with the CPU backend. PartitionDevices[k] is partition k's (-1: CPU).
	Devices          []int
	PartitionDevices []int
	Timings          SealTimings
}

// SealTimings break a proof's time down. Partition stages are summed over
// the proof's partitions, which overlap, so the sum of the stages may
// exceed Total.
type SealTimings struct {
	Parse     time.Duration // C1 parse and native checks
	ParamLoad time.Duration // waiting for the parameters (0 once loaded)
	Queue     time.Duration // waiting for a synthesis worker, host memory and a prover
	Synthesis time.Duration
	Prove     time.Duration // H and the MSMs (GPU or CPU)
	Verify    time.Duration // self-verification
	Total     time.Duration // wall time of the call
}

// Add adds u's durations to t (to sum or average the timings of many proofs).
func (t *SealTimings) Add(u SealTimings) {
	t.Parse += u.Parse
	t.ParamLoad += u.ParamLoad
	t.Queue += u.Queue
	t.Synthesis += u.Synthesis
	t.Prove += u.Prove
	t.Verify += u.Verify
	t.Total += u.Total
}

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
	Proof      uint64 // the proof's sequence number in this Prover, from 1
	Sector     abi.SectorNumber
	Miner      abi.ActorID
	Partition  int
	Partitions int
	Stage      Stage
	Device     int   // the GPU of StageProving and StageProved; -1 on the CPU
	Err        error // with StageFailed
}

// proofJob is one ProveSeal call inside the pipeline.
type proofJob struct {
	seq    uint64
	ctx    context.Context
	cancel context.CancelCauseFunc
	c1     *porep.C1
	sector abi.SectorNumber
	miner  abi.ActorID
	key    *keyEntry
	shape  *shape
	done   chan *task // every task reports here exactly once
}

// task is one partition of a job.
type task struct {
	job *proofJob
	k   int

	enqueued, synthStart, synthesized time.Time
	reserved                          bool                     // holds shape.bytes of the host budget
	w                                 *synth.ProvingAssignment // a parked assignment, or the synthesized one
	queue, synth, prove               time.Duration
	device                            int
	proof                             *groth16.Proof
	err                               error
}

func (t *task) args() []any {
	return []any{"sector", uint64(t.job.sector), "proof", t.job.seq, "partition", t.k}
}

// taskQueue holds tasks in (proof, partition) order.
type taskQueue struct {
	mu     sync.Mutex
	items  []*task
	notify chan struct{}
}

func (q *taskQueue) init() { q.notify = make(chan struct{}, 1) }

func (q *taskQueue) signal() {
	select {
	case q.notify <- struct{}{}:
	default:
	}
}

func less(a, b *task) int {
	if a.job.seq != b.job.seq {
		if a.job.seq < b.job.seq {
			return -1
		}
		return 1
	}
	return a.k - b.k
}

func (q *taskQueue) push(ts ...*task) {
	q.mu.Lock()
	for _, t := range ts {
		i, _ := slices.BinarySearchFunc(q.items, t, less)
		q.items = slices.Insert(q.items, i, t)
	}
	q.mu.Unlock()
	q.signal()
}

// pop takes the first task, waiting for one; nil once done is closed.
func (q *taskQueue) pop(done <-chan struct{}) *task {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			t := q.items[0]
			q.items[0] = nil
			q.items = q.items[1:]
			more := len(q.items) > 0
			q.mu.Unlock()
			if more {
				q.signal()
			}
			return t
		}
		q.mu.Unlock()
		select {
		case <-q.notify:
		case <-done:
			return nil
		}
	}
}

// remove takes out the tasks of job j.
func (q *taskQueue) remove(j *proofJob) []*task {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []*task
	kept := q.items[:0]
	for _, t := range q.items {
		if t.job == j {
			out = append(out, t)
		} else {
			kept = append(kept, t)
		}
	}
	clear(q.items[len(kept):])
	q.items = kept
	return out
}

func (q *taskQueue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}

type pipelineStats struct {
	proofs, synthesizing, proving atomic.Int64
	waitingMemory                 atomic.Int64 // taken from synthQueue, reserving host memory
}

type synthWorker struct {
	id    int
	track trace.Track
	tasks chan *task
}

type proveWorker struct {
	device int // -1: CPU
	track  trace.Track
	prover groth16.Prover
	busy   atomic.Bool
}

var requestTrack = trace.Track{Process: "cpu", Thread: "requests"}

// cudaDevices returns the GPUs c selects: Devices, else Device when not 0,
// else all visible. It fails on an unknown ordinal or when there is none.
func (c Config) cudaDevices() ([]int, error) {
	devs, err := groth16.CUDADevices()
	if err != nil {
		return nil, fmt.Errorf("gpuc2: %w", err)
	}
	want := c.Devices
	if len(want) == 0 && c.Device != 0 {
		want = []int{c.Device}
	}
	if len(want) == 0 {
		for _, d := range devs {
			want = append(want, d.Ordinal)
		}
	}
	for _, ord := range want {
		if !slices.ContainsFunc(devs, func(d groth16.DeviceInfo) bool { return d.Ordinal == ord }) {
			return nil, fmt.Errorf("gpuc2: no CUDA device %d (%d visible)", ord, len(devs))
		}
	}
	if len(want) == 0 {
		return nil, fmt.Errorf("gpuc2: backend cuda: no devices: %w", groth16.ErrCUDAUnavailable)
	}
	return want, nil
}

// startProvers creates the prover workers: WorkersPerDevice per GPU of devs,
// sharing the device's CUDA prover, or WorkersPerDevice CPU workers.
func (p *Prover) startProvers(devs []int) error {
	n := p.cfg.WorkersPerDevice
	if p.cfg.Backend == BackendCPU {
		for i := range n {
			p.provers = append(p.provers, &proveWorker{device: -1, prover: &groth16.CPUProver{},
				track: trace.Track{Process: "cpu", Thread: fmt.Sprintf("prover %d", i)}})
		}
	}
	for _, ord := range devs {
		// One CUDAProver per device, shared by its workers: it keeps the
		// device's resident keys and its VRAM ledger.
		dev, err := groth16.NewCUDAProver(groth16.CUDAConfig{Device: ord})
		if err != nil {
			return fmt.Errorf("gpuc2: device %d: %w", ord, err)
		}
		p.deviceProvers = append(p.deviceProvers, dev)
		p.devices = append(p.devices, ord)
		for w := range n {
			p.provers = append(p.provers, &proveWorker{device: ord, prover: dev,
				track: trace.Track{Process: fmt.Sprintf("cuda %d", ord), Thread: fmt.Sprintf("prover %d", w)}})
		}
	}
	for _, w := range p.provers {
		p.wg.Add(1)
		go p.proveLoop(w)
	}
	return nil
}

func (p *Prover) startSynthesis() {
	n := p.cfg.SynthesisConcurrency
	p.synthCount = n
	p.idle = make(chan *synthWorker, n)
	for i := range n {
		w := &synthWorker{id: i, tasks: make(chan *task, 1), track: trace.Track{Process: "cpu", Thread: fmt.Sprintf("synthesis %d", i)}}
		p.wg.Add(1)
		go p.synthLoop(w)
	}
	p.wg.Add(1)
	go p.dispatch()
}

func (p *Prover) progress(t *task, st Stage, err error) {
	p.events.send(Progress{Proof: t.job.seq, Sector: t.job.sector, Miner: t.job.miner, Partition: t.k,
		Partitions: len(t.job.c1.VanillaProofs), Stage: st, Device: t.device, Err: err})
}

// finish reports t to its job, giving back whatever host memory it holds.
func (p *Prover) finish(t *task, err error) {
	if t.reserved {
		p.budget.put(t.job.shape.hint, t.w, t.job.shape.bytes) // a nil w releases the bytes
		t.reserved, t.w = false, nil
	}
	t.err = err
	t.job.done <- t
}

// dispatch hands queued partitions, in (proof, partition) order, to idle
// synthesis workers once their host memory is reserved.
func (p *Prover) dispatch() {
	defer p.wg.Done()
	for {
		var w *synthWorker
		select {
		case w = <-p.idle:
		case <-p.done:
			return
		}
		t := p.synthQueue.pop(p.done)
		if t == nil {
			return
		}
		p.stats.waitingMemory.Add(1) // still queued, for Status
		picked := time.Now()
		p.tracer.Add(w.track, "queue", t.enqueued, picked, t.args()...)
		var err error
		if err = context.Cause(t.job.ctx); err == nil {
			t.w, err = p.budget.reserve(t.job.ctx, t.job.shape.hint, t.job.shape.bytes)
			t.reserved = err == nil
		}
		p.stats.waitingMemory.Add(-1)
		p.tracer.Add(w.track, "wait_budget", picked, time.Now(), t.args()...)
		t.queue = time.Since(t.enqueued)
		if err != nil {
			p.idle <- w
			p.finish(t, err)
			continue
		}
		p.progress(t, StageScheduled, nil)
		w.tasks <- t
	}
}

func (p *Prover) synthLoop(w *synthWorker) {
	defer p.wg.Done()
	for {
		p.idle <- w // never blocks: the channel has room for every worker
		select {
		case t := <-w.tasks:
			p.synthesize(w, t)
		case <-p.done:
			return
		}
	}
}

func (p *Prover) synthesize(w *synthWorker, t *task) {
	p.stats.synthesizing.Add(1)
	defer p.stats.synthesizing.Add(-1)
	job := t.job
	t.synthStart = time.Now()
	p.progress(t, StageSynthesis, nil)
	err := guard(p.log, "synthesis", func() error {
		circuit, err := partitionCircuit(job.c1, t.k)
		if err != nil {
			return err
		}
		if t.w == nil {
			t.w = synth.NewProvingAssignment(job.shape.hint) // the reserved bytes
		} else {
			t.w.Reset() // a parked assignment of the same shape: its buffers are reused
		}
		return circuit.Synthesize(job.ctx, t.w)
	})
	t.synthesized = time.Now()
	t.synth = t.synthesized.Sub(t.synthStart)
	p.tracer.Add(w.track, "synthesis", t.synthStart, t.synthesized, t.args()...)
	if err != nil {
		if cause := context.Cause(job.ctx); cause != nil && !errors.Is(err, ErrInternal) {
			err = cause
		}
		t.w = nil // a failed synthesis may leave the assignment half built: drop it
		p.finish(t, fmt.Errorf("gpuc2: partition %d: synthesis: %w", t.k, err))
		return
	}
	p.proveQueue.push(t)
}

func (p *Prover) proveLoop(w *proveWorker) {
	defer p.wg.Done()
	for {
		t := p.proveQueue.pop(p.done)
		if t == nil {
			return
		}
		p.prove(w, t)
	}
}

func (p *Prover) prove(w *proveWorker, t *task) {
	job := t.job
	start := time.Now()
	t.queue += start.Sub(t.synthesized)
	if err := context.Cause(job.ctx); err != nil {
		p.finish(t, err)
		return
	}
	p.stats.proving.Add(1)
	w.busy.Store(true)
	defer func() { w.busy.Store(false); p.stats.proving.Add(-1) }()
	t.device = w.device
	p.progress(t, StageProving, nil)
	var opts []groth16.ProveOption
	if p.tracer != nil {
		opts = append(opts, groth16.WithPhases(func(name string, s, e time.Time, args ...any) {
			p.tracer.Add(w.track, name, s, e, append(t.args(), args...)...)
		}))
	}
	var proof *groth16.Proof
	err := guard(p.log, "prover", func() (err error) {
		proof, err = w.prover.Prove(job.ctx, job.key.pk, t.w, opts...)
		return err
	})
	end := time.Now()
	p.tracer.Add(w.track, "partition", start, end, t.args()...)
	t.prove = end.Sub(start)
	if err != nil {
		if cause := context.Cause(job.ctx); cause != nil && !errors.Is(err, ErrInternal) {
			err = cause
		}
		p.finish(t, fmt.Errorf("gpuc2: partition %d: %w", t.k, classify(err)))
		return
	}
	t.proof = proof
	p.finish(t, nil)
}

// partitionCircuit is partition k's circuit; a variable so that a test can
// make a circuit misbehave.
var partitionCircuit = func(c1 *porep.C1, k int) (synth.Circuit, error) { return c1.Circuit(k) }

// classify maps the lower layers' errors onto the package's sentinels (an
// error already carrying one is left as it is).
func classify(err error) error {
	switch {
	case err == nil, errors.Is(err, ErrBadInput), errors.Is(err, ErrParamsCorrupt), errors.Is(err, ErrOutOfDeviceMemory):
		return err
	case errors.Is(err, porep.ErrBadC1), errors.Is(err, porep.ErrUnknownProof):
		return fmt.Errorf("%w: %w", ErrBadInput, err)
	case errors.Is(err, groth16.ErrOutOfDeviceMemory):
		return fmt.Errorf("%w: %w", ErrOutOfDeviceMemory, err)
	case errors.Is(err, groth16.ErrKeyMismatch), errors.Is(err, groth16.ErrMalformedKey):
		return fmt.Errorf("%w: %w", ErrParamsCorrupt, err)
	}
	return err
}

// ProveSeal proves one sector's C2 through the pipeline, together with
// whatever other proofs are in flight: its partitions queue behind those of
// earlier calls. It returns when every partition is proven (and
// self-verified), or at the first error, once the partitions still in the
// pipeline have been withdrawn and their memory given back.
func (p *Prover) ProveSeal(ctx context.Context, req SealRequest) (res *SealResult, err error) {
	err = guard(p.log, "ProveSeal", func() error {
		res, err = p.proveSeal(ctx, req, forMiner)
		return err
	})
	return res, err
}

// c1Scope says what a proof request can be checked against.
type c1Scope int

const (
	// forMiner: the C1's replica_id must derive from the request's miner and
	// sector; NI-PoRep is refused (its chain proof is an aggregate).
	forMiner c1Scope = iota
	// circuitOnly: no miner is known (SealCommitPhase2CircuitProofs); the
	// C1's replica_id is taken as it stands, and every proof type is served.
	circuitOnly
)

func (p *Prover) proveSeal(ctx context.Context, req SealRequest, scope c1Scope) (*SealResult, error) {
	start := time.Now()
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := &SealResult{Backend: p.cfg.Backend}

	span := p.tracer.Begin(requestTrack, "C1 parse and check", "sector", uint64(req.Sector), "bytes", len(req.C1))
	in, err := porep.ParseC1ForSector(req.C1, req.Sector)
	if err == nil {
		switch sp, _ := porep.ParamsFor(in.RegisteredProof); {
		case scope == circuitOnly:
			err = in.CheckAllButReplicaID(ctx)
		case sp.NonInteractive():
			err = errNonInteractive(in.RegisteredProof)
		default:
			err = in.CheckAll(ctx, req.Miner, req.Sector)
		}
	}
	span.End()
	res.Timings.Parse = time.Since(start)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	t := in.RegisteredProof
	sh, err := p.shape(t)
	if err != nil {
		return nil, err
	}
	if len(in.VanillaProofs) != sh.partitions {
		return nil, fmt.Errorf("%w: %d partitions, %v has %d", ErrBadInput, len(in.VanillaProofs), porep.ProofName(t), sh.partitions)
	}
	if err := p.budget.fits(sh.bytes); err != nil {
		return nil, err
	}

	loadStart := time.Now()
	span = p.tracer.Begin(requestTrack, "parameter load", "proof", porep.ProofName(t))
	key, err := p.acquireKey(ctx, t)
	span.End()
	res.Timings.ParamLoad = time.Since(loadStart)
	if err != nil {
		return nil, err
	}
	defer p.releaseKey(t)
	if err := p.budget.fits(sh.bytes); err != nil { // the parameters may have shrunk it
		return nil, err
	}

	jctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	n := len(in.VanillaProofs)
	job := &proofJob{seq: atomic.AddUint64(&p.seq, 1), ctx: jctx, cancel: cancel, c1: in,
		sector: req.Sector, miner: req.Miner, key: key, shape: sh, done: make(chan *task, n)}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrClosed
	}
	p.jobs[job] = struct{}{}
	p.mu.Unlock()
	p.stats.proofs.Add(1)
	defer func() {
		p.stats.proofs.Add(-1)
		p.mu.Lock()
		delete(p.jobs, job)
		p.mu.Unlock()
	}()

	defer p.events.flush(p.closing) // the last reports of this call, before it returns

	tasks := make([]*task, n)
	now := time.Now()
	for k := range tasks {
		tasks[k] = &task{job: job, k: k, enqueued: now, device: -1}
	}
	p.synthQueue.push(tasks...)
	for _, tk := range tasks {
		p.progress(tk, StageQueued, nil)
	}

	var verifier *partitionVerifier
	if !p.cfg.SkipSelfVerify {
		verifier = &partitionVerifier{pvk: key.prepared(), c1: in}
	}
	res.Partitions = make([]groth16.Proof, n)
	res.PartitionDevices = make([]int, n)
	var firstErr error
	fail := func(err error) {
		if firstErr != nil {
			return
		}
		firstErr = err
		cancel(err)
	}
	pending := n
	withdraw := func() {
		// Partitions not yet handed out never report: take them back.
		for _, tk := range p.synthQueue.remove(job) {
			pending--
			p.progress(tk, StageFailed, firstErr)
		}
		for _, tk := range p.proveQueue.remove(job) {
			p.finish(tk, firstErr) // reports through job.done
		}
	}
	ctxDone := jctx.Done()
	for pending > 0 {
		select {
		case tk := <-job.done:
			pending--
			res.Timings.Queue += tk.queue
			res.Timings.Synthesis += tk.synth
			res.Timings.Prove += tk.prove
			if tk.err != nil {
				p.progress(tk, StageFailed, tk.err)
				fail(tk.err)
				withdraw()
				continue
			}
			res.PartitionDevices[tk.k] = tk.device
			p.progress(tk, StageProved, nil)
			if firstErr != nil {
				continue
			}
			if verifier != nil {
				vs := p.tracer.Begin(requestTrack, "self-verify", tk.args()...)
				vstart := time.Now()
				err := verifier.verify(tk.proof, req.Miner, req.Sector, tk.k)
				res.Timings.Verify += time.Since(vstart)
				vs.End()
				if err != nil {
					fail(err)
					withdraw()
					continue
				}
				p.progress(tk, StageVerified, nil)
			}
			res.Partitions[tk.k] = *tk.proof
		case <-ctxDone:
			ctxDone = nil
			fail(context.Cause(jctx))
			withdraw()
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}

	res.Proof, err = groth16.MarshalProofs(res.Partitions) // refuses a point off its curve, self-verify or not
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrProofInvalid, err)
	}
	for _, d := range res.PartitionDevices {
		if d >= 0 && !slices.Contains(res.Devices, d) {
			res.Devices = append(res.Devices, d)
		}
	}
	slices.Sort(res.Devices)
	sealed, unsealed, err := commitmentCIDs(frBytesLE(&in.CommR), in.CommD)
	if err != nil {
		return nil, err
	}
	res.VerifyInfo = proof.SealVerifyInfo{
		SealProof:             t,
		SectorID:              abi.SectorID{Miner: req.Miner, Number: req.Sector},
		DealIDs:               slices.Clone(req.DealIDs),
		Randomness:            slices.Clone(in.Ticket[:]),
		InteractiveRandomness: slices.Clone(in.Seed[:]),
		Proof:                 res.Proof,
		SealedCID:             sealed,
		UnsealedCID:           unsealed,
	}
	res.Timings.Total = time.Since(start)
	return res, nil
}

// partitionVerifier self-verifies partition proofs of one C1, computing the
// public inputs with one graph.
type partitionVerifier struct {
	pvk   *groth16.PreparedVerifyingKey
	c1    *porep.C1
	graph *porep.Graph
}

func (v *partitionVerifier) verify(proof *groth16.Proof, miner abi.ActorID, sector abi.SectorNumber, k int) error {
	if v.graph == nil {
		g, err := porep.NewGraph(v.c1.RegisteredProof)
		if err != nil {
			return err
		}
		v.graph = g
	}
	c := v.c1
	public, err := porep.PublicInputsFor(v.graph, c.RegisteredProof, frBytesLE(&c.ReplicaID), c.CommD, frBytesLE(&c.CommR), c.Seed, k)
	if err != nil {
		return err
	}
	ok, err := v.pvk.Verify(proof, public)
	if err != nil {
		return fmt.Errorf("%w: partition %d: %w", ErrProofInvalid, k, err)
	}
	if !ok {
		return fmt.Errorf("%w: partition %d", ErrProofInvalid, k)
	}
	return nil
}
