package gpuc2

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/circuits"
	"github.com/gpuc2/gpuc2/internal/pipeline"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/pce"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// SealRequest is one sector's C2.
type SealRequest struct {
	C1     []byte // filecoin-ffi's C1 JSON or the Commit2In envelope
	Sector abi.SectorNumber
	Miner  abi.ActorID
	// DealIDs are copied into the result's SealVerifyInfo (the proof does not
	// depend on them).
	DealIDs []abi.DealID
	// Priority orders the proof's partitions in the pipeline (see Priority).
	Priority Priority
	// ProofType, if set, is the proof type the caller expects: a C1 of
	// another type is refused (ErrBadInput) before any work.
	ProofType *abi.RegisteredSealProof
	// Label names the proof in Status (ProofStatus, DeviceStatus.Proving),
	// e.g. a job id; gpuc2 does not interpret it.
	Label string
}

// Priority orders proofs in the pipeline: a proof's partitions go ahead of
// every queued partition of a lower priority; within one priority, first
// come first served. Partitions already synthesizing or proving are not
// pre-empted. The zero value is PriorityNormal.
type Priority int

// Priorities, lowest first.
const (
	PriorityLow      Priority = -1
	PriorityNormal   Priority = 0
	PriorityHigh     Priority = 1
	PriorityCritical Priority = 2
)

// SealResult is a finished, self-verified (unless SkipSelfVerify) proof.
type SealResult struct {
	// Proof is filecoin-ffi's SealCommitPhase2 output: the partition proofs,
	// 192 bytes each, in order; for NI-PoRep the SnarkPack aggregate (V2)
	// of them.
	Proof      []byte
	Partitions []groth16.Proof // the partition proofs, decoded
	// VerifyInfo is ready for VerifySeal (and for the chain's
	// ProveCommitSector): proof type, sector, randomness, CIDs, proof.
	VerifyInfo proof.SealVerifyInfo
	Backend    Backend
	// Devices are the GPUs that proved partitions (ordinals, ascending);
	// empty with the CPU backend. PartitionDevices[k] is partition k's (-1: CPU).
	Devices          []int
	PartitionDevices []int
	Timings          ProofTimings
}

// ProofTimings break a proof's time down, a seal proof's or an update's.
// Partition stages are summed over the proof's partitions, which overlap,
// so the sum of the stages may exceed Total.
type ProofTimings struct {
	Parse     time.Duration // C1 (or vanilla proofs') parse and native checks
	ParamLoad time.Duration // waiting for the parameters (0 once loaded)
	// Wait is wall time from the proof's entry into the pipeline (after
	// the parse, the parameters and the matrices) until its first
	// partition began synthesis: how long it waited behind other proofs.
	Wait      time.Duration
	Queue     time.Duration // waiting for a synthesis worker, host memory and a prover
	Synthesis time.Duration
	Prove     time.Duration // H and the MSMs (GPU or CPU)
	Aggregate time.Duration // an NI-PoRep C2's SnarkPack aggregate of its partition proofs
	Verify    time.Duration // self-verification (an NI-PoRep aggregate's too)
	Total     time.Duration // wall time of the call
}

// Add adds u's durations to t (to sum or average the timings of many proofs).
func (t *ProofTimings) Add(u ProofTimings) {
	t.Parse += u.Parse
	t.ParamLoad += u.ParamLoad
	t.Wait += u.Wait
	t.Queue += u.Queue
	t.Synthesis += u.Synthesis
	t.Prove += u.Prove
	t.Aggregate += u.Aggregate
	t.Verify += u.Verify
	t.Total += u.Total
}

// SealCommitPhase2 proves a sector's C1 output (filecoin-ffi JSON or the
// Commit2In envelope) and returns the concatenated partition proofs, 192
// bytes each: filecoin-ffi's SealCommitPhase2, the call Curio makes. For
// NI-PoRep types it returns, as ffi does, the SnarkPack aggregate (V2) of
// the partition proofs (AggregateSealProofs of this one sector), checked
// with VerifySeal's check unless Config.SkipSelfVerify: it needs
// SRSFileName beside the parameters (or Config.TestParamsDir's TEST-ONLY
// SRS).
func (p *Prover) SealCommitPhase2(ctx context.Context, phase1Output []byte, sector abi.SectorNumber, miner abi.ActorID) ([]byte, error) {
	res, err := p.ProveSeal(ctx, SealRequest{C1: phase1Output, Sector: sector, Miner: miner})
	if err != nil {
		return nil, err
	}
	return res.Proof, nil
}

// SealCommitPhase2CircuitProofs is filecoin-ffi's call of the same name: the
// partition proofs of any proof type, NI-PoRep included, concatenated (192
// bytes each), for an aggregator to combine. With no miner to derive it
// from, the C1's replica_id is taken as it stands; everything that follows
// from it is checked as in SealCommitPhase2.
func (p *Prover) SealCommitPhase2CircuitProofs(ctx context.Context, phase1Output []byte, sector abi.SectorNumber) ([]byte, error) {
	var res *SealResult
	err := guard(p.log, "SealCommitPhase2CircuitProofs", func() (err error) {
		res, err = p.proveSeal(ctx, SealRequest{C1: phase1Output, Sector: sector}, circuitOnly)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res.Proof, nil
}

// ProveC1 is SealCommitPhase2 returning the partition proofs unencoded.
func (p *Prover) ProveC1(ctx context.Context, c1 []byte, sector abi.SectorNumber, miner abi.ActorID) ([]groth16.Proof, error) {
	res, err := p.ProveSeal(ctx, SealRequest{C1: c1, Sector: sector, Miner: miner})
	if err != nil {
		return nil, err
	}
	return res.Partitions, nil
}

// ProveSeal proves one sector's C2 through the pipeline, together with
// whatever other proofs are in flight: its partitions queue behind those of
// earlier calls. It returns when every partition is proven (and
// self-verified; an NI-PoRep sector's aggregated and checked too), or at
// the first error, once the partitions still in the pipeline have been
// withdrawn and their memory given back.
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
	// sector; an NI-PoRep sector's proof is the aggregate of its partition
	// proofs, as on chain.
	forMiner c1Scope = iota
	// circuitOnly: no miner is known (SealCommitPhase2CircuitProofs); the
	// C1's replica_id is taken as it stands, and the proof is the partition
	// proofs, NI-PoRep's included.
	circuitOnly
)

// partitionCircuit is partition k's circuit; a variable so that a test can
// make a circuit misbehave.
var partitionCircuit = func(c1 *porep.C1, k int) (synth.Circuit, error) { return c1.Circuit(k) }

// proveSeal is ProveSeal in four steps: admit (parse and check the C1,
// load the parameters), enqueue (its partitions into the pipeline),
// collect (their proofs, self-verified), result (the proof and its
// SealVerifyInfo).
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
	a, err := p.admit(ctx, req, scope, &res.Timings)
	if err != nil {
		return nil, err
	}
	defer p.keys.release(a.kind)
	var verifier partitionChecker
	if !p.cfg.SkipSelfVerify {
		verifier = &partitionVerifier{pvk: a.key.prepared(), c1: a.c1}
	}
	meta := requestMeta{sector: req.Sector, miner: req.Miner, priority: req.Priority, label: req.Label}
	res.Partitions, res.PartitionDevices, err = p.provePartitions(ctx, a, meta, verifier, &res.Timings)
	if err != nil {
		return nil, err
	}
	if err := p.result(ctx, res, req, a, scope); err != nil {
		return nil, err
	}
	res.Timings.Total = time.Since(start)
	return res, nil
}

// admission is a request admitted to the pipeline: its proof type, its
// circuit's shape, its parameters (with a user counted until
// keys.release) and its partitions' circuits.
type admission struct {
	kind       circuits.Type
	shape      *shape
	key        *keyEntry
	partitions int
	// circuit is partition k's circuit, the proof type's own: the matrices
	// are recorded and checked with it.
	circuit func(k int) (synth.Circuit, error)
	// pipelined is what the pipeline synthesizes: circuit, but for a seal
	// partitionCircuit's (a test may replace it).
	pipelined func(k int) (synth.Circuit, error)
	c1        *porep.C1 // a seal's C1, checked; nil for an update
}

// requestMeta is what the pipeline, Status and Progress know of a request.
type requestMeta struct {
	sector   abi.SectorNumber // 0 for an update (its request has none)
	miner    abi.ActorID
	priority Priority
	label    string
}

// partitionChecker self-verifies one partition proof of a request; its
// errors wrap ErrProofInvalid.
type partitionChecker interface {
	verify(proof *groth16.Proof, k int) error
}

// provePartitions proves a's partitions through the pipeline (with the
// matrices where Config.ConstraintMatrices asks for them), self-verifying
// each with verifier unless it is nil, and returns them with the GPU that
// proved each (-1: the CPU), timed into timings.
func (p *Prover) provePartitions(ctx context.Context, a *admission, meta requestMeta, verifier partitionChecker,
	timings *ProofTimings) ([]groth16.Proof, []int, error) {
	ms, err := p.matrices(ctx, a, timings)
	if err != nil {
		return nil, nil, err
	}
	enqueued := time.Now()
	job, err := p.enqueue(ctx, meta, a, ms)
	if err != nil {
		return nil, nil, err
	}
	defer p.events.flush(ctx, p.closing) // the last reports of this call, before it returns (or ctx ends)
	proofs, devices, err := p.collect(job, meta, verifier, timings)
	if err != nil {
		return nil, nil, err
	}
	if started := job.Started(); !started.IsZero() {
		timings.Wait = max(0, started.Sub(enqueued))
	}
	return proofs, devices, nil
}

// admit parses and checks req's C1, finds the SRS where its proof is an
// aggregate, checks that a partition fits the host budget, and loads the
// parameters, timing the parse and the load.
func (p *Prover) admit(ctx context.Context, req SealRequest, scope c1Scope, timings *ProofTimings) (*admission, error) {
	parseStart := time.Now()
	in, err := p.parse(ctx, req, scope)
	timings.Parse = time.Since(parseStart)
	if err != nil {
		return nil, err
	}
	a := sealAdmission(in)
	if sp, _ := porep.ParamsFor(in.RegisteredProof); sp.NonInteractive() && scope == forMiner {
		// Its proof will be an aggregate: the SRS is found before any work.
		if _, _, err := p.specializedSRS(ctx, aggregateTargetLen(a.partitions)); err != nil {
			return nil, err
		}
	}
	if err := p.admitShape(ctx, a, timings); err != nil {
		return nil, err
	}
	return a, nil
}

// sealAdmission is a C1's admission before its shape and key.
func sealAdmission(in *porep.C1) *admission {
	return &admission{kind: sealKind(in.RegisteredProof), partitions: len(in.VanillaProofs), c1: in,
		circuit:   func(k int) (synth.Circuit, error) { return in.Circuit(k) },
		pipelined: func(k int) (synth.Circuit, error) { return partitionCircuit(in, k) }}
}

// admitShape completes a (its kind, partitions and circuits set): its
// shape, checked against the partition count and the host budget, and its
// parameters, loaded (timed into timings).
func (p *Prover) admitShape(ctx context.Context, a *admission, timings *ProofTimings) error {
	sh, err := newShape(a.kind)
	if err != nil {
		return err
	}
	if a.partitions != sh.partitions {
		return fmt.Errorf("%w: %d partitions, %v has %d", ErrBadInput, a.partitions, a.kind, sh.partitions)
	}
	if err := p.pipe.Budget().Fits(sh.bytes); err != nil { // before minutes of loading
		return err
	}
	loadStart := time.Now()
	span := p.tracer.Begin(requestTrack, "parameter load", "proof", a.kind.String())
	key, err := p.keys.acquire(ctx, a.kind)
	span.End()
	timings.ParamLoad = time.Since(loadStart)
	if err != nil {
		return err
	}
	a.shape, a.key = sh, key
	return nil
}

// parse parses req's C1 for its sector and checks it as scope allows.
func (p *Prover) parse(ctx context.Context, req SealRequest, scope c1Scope) (*porep.C1, error) {
	span := p.tracer.Begin(requestTrack, "C1 parse and check", "sector", uint64(req.Sector), "bytes", len(req.C1))
	defer span.End()
	in, err := porep.ParseC1ForSector(req.C1, req.Sector)
	if err == nil && req.ProofType != nil && in.RegisteredProof != *req.ProofType {
		return nil, fmt.Errorf("%w: the C1 is for %v, the request for %v", ErrBadInput,
			porep.ProofName(in.RegisteredProof), porep.ProofName(*req.ProofType))
	}
	if err == nil {
		if scope == circuitOnly {
			err = in.CheckAllButReplicaID(ctx)
		} else {
			err = in.CheckAll(ctx, req.Miner, req.Sector)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return in, nil
}

// enqueue puts the admitted request's partitions into the pipeline, to be
// proved from their witnesses and ms when set; their stages go to
// Config.Progress.
func (p *Prover) enqueue(ctx context.Context, req requestMeta, a *admission, ms *pce.Matrices) (*pipeline.Job, error) {
	n := a.partitions
	shape := a.shape.hint
	if ms != nil {
		shape = a.shape.witness
	}
	return p.pipe.Enqueue(ctx, pipeline.Spec{
		Partitions: n,
		Circuit:    a.pipelined,
		Key:        a.key.pk,
		Shape:      shape,
		Bytes:      partitionBytes(a, ms),
		Matrices:   ms,
		Report: func(e pipeline.Event) {
			p.events.send(Progress{Proof: e.Seq, Sector: req.sector, Miner: req.miner, Partition: e.Partition,
				Partitions: n, Stage: stages[e.Stage], Device: e.Device, Err: e.Err, Phase: e.Phase})
		},
		Priority:  int(req.priority),
		Label:     req.label,
		TraceArgs: []any{"sector", uint64(req.sector), "proof", a.kind.String()},
	})
}

// collect gathers the job's partition proofs and their GPUs, self-verifying
// each with verifier (nil: SkipSelfVerify) as it comes: the first that
// fails ends the job.
func (p *Prover) collect(job *pipeline.Job, req requestMeta, verifier partitionChecker, timings *ProofTimings) ([]groth16.Proof, []int, error) {
	n := job.Partitions()
	proofs := make([]groth16.Proof, n)
	devices := make([]int, n)
	err := job.Collect(func(r pipeline.Result) error {
		timings.Queue += r.Queue
		timings.Synthesis += r.Synthesis
		timings.Prove += r.Prove
		devices[r.Partition] = r.Device
		if verifier != nil {
			if err := p.selfVerify(verifier, job, req, r, timings); err != nil {
				return err
			}
		}
		proofs[r.Partition] = *r.Proof
		return nil
	})
	return proofs, devices, err
}

// selfVerify checks partition r's proof with v, timed and traced, and
// reports it verified.
func (p *Prover) selfVerify(v partitionChecker, job *pipeline.Job, req requestMeta, r pipeline.Result, timings *ProofTimings) error {
	span := p.tracer.Begin(requestTrack, "self-verify", "sector", uint64(req.sector), "proof", job.Seq(), "partition", r.Partition)
	start := time.Now()
	err := v.verify(r.Proof, r.Partition)
	timings.Verify += time.Since(start)
	span.End()
	if err != nil {
		return err
	}
	p.events.send(Progress{Proof: job.Seq(), Sector: req.sector, Miner: req.miner, Partition: r.Partition,
		Partitions: job.Partitions(), Stage: StageVerified, Device: r.Device})
	return nil
}

// result completes res: the proof's bytes (for a miner's NI-PoRep sector
// the aggregate of its partition proofs), the GPUs used and the
// SealVerifyInfo.
func (p *Prover) result(ctx context.Context, res *SealResult, req SealRequest, a *admission, scope c1Scope) error {
	var err error
	if res.Proof, err = marshalProofs(res.Partitions); err != nil {
		return err
	}
	if sp, _ := porep.ParamsFor(a.c1.RegisteredProof); sp.NonInteractive() && scope == forMiner {
		if res.Proof, err = p.sealAggregate(ctx, a, res.Partitions, &res.Timings); err != nil {
			return err
		}
	}
	res.Devices = usedDevices(res.PartitionDevices)
	res.VerifyInfo, err = sealVerifyInfo(a.c1, res.Proof, req.Sector, req.Miner)
	res.VerifyInfo.DealIDs = slices.Clone(req.DealIDs)
	return err
}

// marshalProofs is the partition proofs' bytes, 192 each; it refuses a
// point off its curve, self-verified or not.
func marshalProofs(proofs []groth16.Proof) ([]byte, error) {
	b, err := groth16.MarshalProofs(proofs)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrProofInvalid, err)
	}
	return b, nil
}

// usedDevices are the GPUs of partitionDevices (-1: the CPU), ascending.
func usedDevices(partitionDevices []int) []int {
	var out []int
	for _, d := range partitionDevices {
		if d >= 0 && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return out
}
