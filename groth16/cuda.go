package groth16

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/gpulock"
	"github.com/gpuc2/gpuc2/msm"
	"github.com/gpuc2/gpuc2/native"
	"github.com/gpuc2/gpuc2/synth"
)

// CUDAProver runs H and the five MSMs on one GPU through the native library;
// synthesis and the final assembly stay on the CPU. Its proofs equal the
// CPU prover's for the same r and s. NewCUDAProver makes one per device.
//
// With the proving key resident on the device (Preload, or the first Prove
// when the key and one proof fit the device's budget), a proof walks
// gpulock's protocol on its own stream: reserve its buffers, upload a, b, c
// and the aux assignment, take the compute lock for H and the MSMs, release
// it, then free. Several goroutines may call Prove at once (one per
// worker); their uploads overlap each other's kernels. The first proof to
// need the key uploads it; others wait for that upload but stop when their
// context ends. When the key does not fit, each MSM streams its section
// from host memory through the synchronous entries instead.
//
// Errors of device out-of-memory wrap ErrOutOfDeviceMemory.
type CUDAProver struct {
	device     int
	gate       *gpulock.Device // the device's ledger and compute lock
	noResident bool
	engine     msm.CUDA
	stage      stagePool // pinned chunks of witness uploads
	keys       *flight[*ProvingKey, *deviceKey]
	closed     atomic.Bool

	mu    sync.Mutex
	unfit map[*ProvingKey]bool // keys found too large for the device
}

var _ Prover = (*CUDAProver)(nil)

// newCUDAProver is NewCUDAProver past its device queries.
func newCUDAProver(cfg CUDAConfig, gate *gpulock.Device) *CUDAProver {
	return &CUDAProver{
		device:     cfg.Device,
		gate:       gate,
		noResident: cfg.NoResident,
		engine:     msm.CUDA{Device: cfg.Device},
		keys:       newFlight[*ProvingKey](func(dk *deviceKey) { dk.free() }),
		unfit:      map[*ProvingKey]bool{},
	}
}

// usable fails for a prover that is closed or was not made by NewCUDAProver.
func (p *CUDAProver) usable() error {
	switch {
	case p.gate == nil:
		return fmt.Errorf("%w: a CUDAProver must come from NewCUDAProver", ErrInvalidInput)
	case p.closed.Load():
		return fmt.Errorf("GPU %d: %w", p.device, ErrProverClosed)
	}
	return nil
}

// Prove implements Prover.
func (p *CUDAProver) Prove(ctx context.Context, pk *ProvingKey, w *synth.ProvingAssignment, opts ...ProveOption) (*Proof, error) {
	proof, err := p.prove(ctx, pk, w, opts)
	return proof, classifyDevice(err)
}

func (p *CUDAProver) prove(ctx context.Context, pk *ProvingKey, w *synth.ProvingAssignment, opts []ProveOption) (*Proof, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	cfg := configure(opts)
	dk, release, err := p.residentKey(ctx, pk, &cfg)
	if err != nil {
		return nil, err
	}
	if dk == nil {
		return p.proveStreaming(ctx, pk, w, &cfg)
	}
	defer release()
	synth.AppendInputRows(w, len(w.Inputs))
	return p.proveResident(ctx, dk, pk.VerifyingKey(), w, &cfg)
}

// Preload uploads pk's query points to the device and keeps them there
// until Evict or Close. It fails (ErrOutOfDeviceMemory) when they and one
// proof do not fit the device's budget, and waits for the room otherwise.
func (p *CUDAProver) Preload(ctx context.Context, pk *ProvingKey) error {
	return classifyDevice(p.preload(ctx, pk))
}

func (p *CUDAProver) preload(ctx context.Context, pk *ProvingKey) error {
	if err := p.usable(); err != nil {
		return err
	}
	_, release, _, err := p.keys.acquire(ctx, pk, func(ctx context.Context) (*deviceKey, error) {
		return p.uploadKey(ctx, pk, true)
	})
	if errors.Is(err, errEvicted) {
		return nil // loaded, and evicted since
	}
	if err != nil {
		return err
	}
	release()
	return nil
}

// Evict drops pk's device copy, if any: its memory is freed once the
// proofs using it have finished; an upload of it in flight is cancelled.
func (p *CUDAProver) Evict(pk *ProvingKey) {
	if p.keys != nil {
		p.keys.evict(pk)
	}
}

// Close evicts every key, cancelling uploads in flight and waiting for
// them, and frees the pinned staging; later calls fail with
// ErrProverClosed. Keys still in use by proofs are freed as those end.
func (p *CUDAProver) Close() error {
	if p.gate == nil || p.closed.Swap(true) {
		return nil
	}
	p.keys.close()
	p.stage.close()
	return nil
}

// residentKey returns pk's device copy and the function that hands it
// back, uploading the key when no copy exists; nil when this proof should
// stream the key from host memory instead (NoResident, a key found too
// large, no room now, or an eviction under the upload).
func (p *CUDAProver) residentKey(ctx context.Context, pk *ProvingKey, cfg *proveConfig) (*deviceKey, func(), error) {
	if p.noResident {
		return nil, nil, nil
	}
	begin := time.Now()
	dk, release, uploaded, err := p.keys.acquire(ctx, pk, func(ctx context.Context) (*deviceKey, error) {
		return p.uploadKey(ctx, pk, false)
	})
	switch {
	case errors.Is(err, errKeyNoRoom), errors.Is(err, ErrOutOfDeviceMemory), errors.Is(err, errEvicted):
		return nil, nil, nil
	case err != nil:
		return nil, nil, err
	}
	if uploaded { // the first proof with this key pays for its upload
		cfg.report("key_upload", begin, "device", p.device, "bytes", KeyBytes(pk.Counts()))
	}
	return dk, release, nil
}

// uploadKey copies pk's points to the device: the one fit policy of
// resident keys. A key that, with one proof beside it, exceeds the
// device's budget, or whose allocation runs out of device memory, is
// marked unfit and fails with ErrOutOfDeviceMemory; a proof (wait unset)
// does not try an unfit key again, nor wait for room.
func (p *CUDAProver) uploadKey(ctx context.Context, pk *ProvingKey, wait bool) (*deviceKey, error) {
	c := pk.Counts()
	if !wait && p.isUnfit(pk) {
		return nil, fmt.Errorf("%w: GPU %d: the key was found too large", ErrOutOfDeviceMemory, p.device)
	}
	proofBytes := residentProofBytes(p.device, c)
	if need := KeyBytes(c) + proofBytes; need > p.gate.Budget() {
		p.markUnfit(pk)
		return nil, fmt.Errorf("%w: GPU %d: a resident key and one proof need %d bytes, the budget is %d",
			ErrOutOfDeviceMemory, p.device, need, p.gate.Budget())
	}
	dk, err := p.newDeviceKey(ctx, c, proofBytes, wait, func(ctx context.Context, i int) ([]byte, error) {
		if i == 4 {
			pts, err := pk.BG2(ctx)
			return native.AsBytes(pts), err
		}
		pts, err := [4]func(context.Context) ([]bls12381.G1Affine, error){pk.H, pk.L, pk.A, pk.BG1}[i](ctx)
		return native.AsBytes(pts), err
	}, false)
	if err = classifyDevice(err); errors.Is(err, ErrOutOfDeviceMemory) {
		p.markUnfit(pk)
	}
	return dk, err
}

func (p *CUDAProver) isUnfit(pk *ProvingKey) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.unfit[pk]
}

func (p *CUDAProver) markUnfit(pk *ProvingKey) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.unfit[pk] = true
}

// proveStreaming is the path for keys that do not fit the device: the
// synchronous entries upload each section per call, under one reservation
// of the largest call's memory and the compute lock.
func (p *CUDAProver) proveStreaming(ctx context.Context, pk *ProvingKey, w *synth.ProvingAssignment, cfg *proveConfig) (*Proof, error) {
	hs, err := newHostSections(pk, w, p.engine, p.quotient)
	if err != nil {
		return nil, err
	}
	job := p.deviceJob(cfg)
	defer job.done()
	b := &streaming{deviceJob: job, hostSections: hs, bytes: streamingBytes(p.device, pk.Counts(), hs.m)}
	return proveWith(ctx, cfg, pk.VerifyingKey(), pk.Counts(), b, "device", p.device)
}

// quotient is the streaming path's quotient: H on the device, through the
// synchronous entry.
func (p *CUDAProver) quotient(ctx context.Context, a, b, c []fr.Element, m int) ([]fr.Element, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]fr.Element, m)
	if err := native.H(p.device, a, b, c, out); err != nil {
		return nil, fmt.Errorf("GPU %d: %w", p.device, err)
	}
	return out, ctx.Err()
}

// streaming is the streaming path's backend: host sections whose calls
// run on the device, inside the gate.
type streaming struct {
	deviceJob
	*hostSections
	bytes int64 // the largest synchronous call's device memory
}

func (s *streaming) prepare(ctx context.Context) error {
	if err := s.reserve(ctx, s.bytes); err != nil {
		return err
	}
	return s.compute(ctx)
}

func (s *streaming) finish() error { return s.job.EndCompute() }
