package gpu

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/gpuc2/gpuc2/gpulock"
	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/groth16/internal/prover"
	"github.com/gpuc2/gpuc2/msm/cuda"
	"github.com/gpuc2/gpuc2/native"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/pce"
)

// Device runs H and the five MSMs on one GPU through the native
// library; synthesis and the final assembly stay on the CPU. Its proofs
// equal the CPU prover's for the same r and s. Open makes one per
// device, with a device memory limit that its ledger holds every
// allocation to.
//
// A device proves in one of two modes. Resident, when the key and one
// proof fit the limit: the key is uploaded once (Preload, or the first
// Prove) and a proof walks gpulock's protocol on its own stream: reserve
// its buffers, upload a, b, c and the aux assignment, take the compute
// lock for H and the MSMs, release it, then free. Several goroutines may
// call Prove at once (one per worker); their uploads overlap each other's
// kernels. The first proof to need the key uploads it; others wait for
// that upload but stop when their context ends. Streaming, otherwise: the
// key is decoded once into pinned host memory, shared by every device of
// the process, and each MSM streams its points through two chunk buffers
// on a copy stream while the kernels work on the previous chunk; H holds
// two of a, b, c at a time (its Plan says which mode). A limit below
// Plan.LeastBytes fails with
// ErrOutOfDeviceMemory.
//
// Errors of device out-of-memory wrap ErrOutOfDeviceMemory.
type Device struct {
	device     int
	gate       *gpulock.Device // the device's ledger and compute lock
	host       *hostState      // the pinned host copies its Devices share
	noResident bool
	engine     cuda.Engine
	stage      stagePool    // pinned chunks of witness uploads
	lastStage  *vectorStage // streaming: the pinned copy of H's last vector
	keys       *flight[*groth16.ProvingKey, *deviceKey]
	matrices   *flight[pce.ID, *deviceMatrices] // WithMatrices' compiled circuits, resident
	closed     atomic.Bool

	mu    sync.Mutex
	plans map[*groth16.ProvingKey]*Plan // what each key costs here, computed once
	unfit map[*groth16.ProvingKey]bool  // keys found too large to be resident
}

var _ groth16.Prover = (*Device)(nil)

// newDevice is openDevice past its device queries.
func newDevice(cfg deviceConfig, gate *gpulock.Device, host *hostState) *Device {
	return &Device{
		device:     cfg.Device,
		gate:       gate,
		host:       host,
		noResident: cfg.NoResident,
		engine:     cuda.Engine{Device: cfg.Device},
		stage:      stagePool{vectors: host.vectors},
		lastStage:  newVectorStage(host.vectors),
		keys:       newFlight[*groth16.ProvingKey](func(dk *deviceKey) { dk.free() }),
		matrices:   newFlight[pce.ID](func(dm *deviceMatrices) { dm.free() }),
		plans:      map[*groth16.ProvingKey]*Plan{},
		unfit:      map[*groth16.ProvingKey]bool{},
	}
}

// usable fails for a prover that is closed or was not made by openDevice.
func (p *Device) usable() error {
	switch {
	case p.gate == nil:
		return fmt.Errorf("%w: a Device must come from openDevice", groth16.ErrInvalidInput)
	case p.closed.Load():
		return fmt.Errorf("GPU %d: %w", p.device, ErrClosed)
	}
	return nil
}

// Prove implements Prover.
func (p *Device) Prove(ctx context.Context, pk *groth16.ProvingKey, w *synth.ProvingAssignment, opts ...groth16.ProveOption) (*groth16.Proof, error) {
	proof, err := p.prove(ctx, pk, w, opts)
	return proof, classifyDevice(err)
}

func (p *Device) prove(ctx context.Context, pk *groth16.ProvingKey, w *synth.ProvingAssignment, opts []groth16.ProveOption) (*groth16.Proof, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	cfg := prover.Configure(opts)
	synth.AppendInputRows(w, len(w.Inputs))
	if w.WitnessOnly() {
		if err := prover.CheckWitness(w, cfg.Matrices); err != nil {
			return nil, err // before any upload
		}
	}
	dk, release, err := p.residentKey(ctx, pk, &cfg)
	if err != nil {
		return nil, err
	}
	if dk == nil {
		return p.proveStreamingWitness(ctx, pk, w, &cfg)
	}
	defer release()
	var dm *deviceMatrices
	src := prover.ABCHost
	if w.WitnessOnly() {
		var releaseMatrices func()
		if dm, releaseMatrices, err = p.deviceMatricesFor(ctx, pk, cfg.Matrices, &cfg); err != nil {
			return nil, err
		}
		if dm != nil {
			defer releaseMatrices()
			src = prover.ABCDevice
		}
	}
	if w, err = prover.ProofAssignment(ctx, w, cfg.Matrices, src); err != nil {
		return nil, err
	}
	return p.proveResident(ctx, dk, dm, pk.VerifyingKey(), w, &cfg)
}

// proveWith runs b through the skeleton every prover shares
// (prover.ProveWith: r and s, the six sections, the assembly) with vk and
// the key's section counts c.
func proveWith(ctx context.Context, cfg *prover.Settings, vk *groth16.VerifyingKey, c groth16.SectionCounts, b prover.Backend, args ...any) (*groth16.Proof, error) {
	proof, err := prover.ProveWith(ctx, cfg, (*prover.VerifyingKey)(vk), prover.Counts(c), b, args...)
	return (*groth16.Proof)(proof), err
}

// checkCounts returns the domain size and checks that a key of counts c
// and verifying key vk fits w, its input rows appended (prover.CheckCounts).
func checkCounts(c groth16.SectionCounts, vk *groth16.VerifyingKey, w *synth.ProvingAssignment) (int, error) {
	return prover.CheckCounts(prover.Counts(c), (*prover.VerifyingKey)(vk), w)
}

// Preload readies pk for proofs on the device until Evict or Close: in
// resident mode (the key and one proof fit the memory limit, and beside the
// keys and matrices resident here leave room for a proof of every other
// key) it uploads the key's points, waiting for room proofs hold; else it
// decodes them into pinned host memory (once per process) and proofs
// stream them. It fails with ErrOutOfDeviceMemory when a streamed proof of
// pk cannot fit beside what is held here either.
func (p *Device) Preload(ctx context.Context, pk *groth16.ProvingKey, opts ...PreloadOption) error {
	var cfg preloadConfig
	for _, o := range opts {
		o(&cfg)
	}
	return classifyDevice(p.preload(ctx, pk, cfg))
}

// PreloadOption configures Preload.
type PreloadOption func(*preloadConfig)

type preloadConfig struct {
	hosts   *HostSections // the devices whose preloads share the host sections (nil: kept)
	noStage bool
	aside   bool // SetAsideProof
}

// SetAsideProof tells a preload that makes the key resident to hold one of
// its proofs' device memory beside it, for its proofs of a priority above
// the default (gpulock's SetAside): such a proof (a WinningPoSt's, due in
// seconds) then never waits for memory that other proofs hold, only for
// the compute lock. The other keys' proofs have that much less room. A key
// that streams sets nothing aside.
func SetAsideProof() PreloadOption {
	return func(c *preloadConfig) { c.aside = true }
}

// NoVectorStage tells a streaming preload that the proofs' c will not need
// the device's pinned stage (StreamingStageBytes, 4 GiB at 32 GiB): their
// full assignments lie in PinnedVectors' memory, or a, b, c are evaluated
// on the device (WithMatrices). A proof whose c is on the heap after all
// allocates the stage when it first needs it.
func NoVectorStage() PreloadOption {
	return func(c *preloadConfig) { c.noStage = true }
}

func (p *Device) preload(ctx context.Context, pk *groth16.ProvingKey, cfg preloadConfig) error {
	hosts := cfg.hosts.join(pk)
	defer hosts.close() // whatever this device did, it needs no host section now
	if err := p.usable(); err != nil {
		return err
	}
	kp := p.plan(pk)
	if !p.noResident && kp.ResidentBytes <= p.gate.MemoryLimit() {
		_, release, _, err := p.keys.acquire(ctx, pk, func(ctx context.Context) (*deviceKey, error) {
			return p.uploadKey(ctx, pk, true, cfg.aside, hosts)
		})
		switch {
		case errors.Is(err, errEvicted):
			return nil // loaded, and evicted since
		case errors.Is(err, ErrOutOfDeviceMemory):
			// no room beside the resident keys and matrices held here
			// (uploadKey marked it unfit): streamed, as a key too large
		case err != nil:
			return err
		default:
			release()
			return nil
		}
	}
	p.markUnfit(pk) // proofs stream it
	if held := p.heldFor(kp.MostProofBytes()); kp.streamed.after > p.gate.MemoryLimit()-held {
		return fmt.Errorf("%w: GPU %d: the key needs %d bytes streamed (%d resident), the memory limit is %d, %d of it held by resident keys and matrices",
			ErrOutOfDeviceMemory, p.device, kp.streamed.after, kp.ResidentBytes, p.gate.MemoryLimit(), held)
	}
	_, release, err := p.pinnedKeyFor(ctx, pk)
	if err != nil {
		return err
	}
	release()
	if cfg.noStage {
		return nil
	}
	return p.lastStage.ready(ctx, StreamingStageBytes(pk.Counts().H+1)) // off the first proof's path
}

// Evict drops pk's device copy, if any: its memory is freed once the
// proofs using it have finished; an upload of it in flight is cancelled.
func (p *Device) Evict(pk *groth16.ProvingKey) {
	if p.keys != nil {
		p.keys.evict(pk)
		p.host.keys.drop(p, pk)
	}
}

// Close evicts every key, cancelling uploads in flight and waiting for
// them, and frees the pinned staging; later calls fail with
// ErrClosed. Keys still in use by proofs are freed as those end.
func (p *Device) Close() error {
	if p.gate == nil || p.closed.Swap(true) {
		return nil
	}
	p.keys.close()
	p.matrices.close()
	p.host.keys.drop(p, nil)
	p.host.matrices.drop(p, 0)
	p.stage.close()
	p.lastStage.close()
	return nil
}

// residentKey returns pk's device copy and the function that hands it
// back, uploading the key when no copy exists; nil when this proof should
// stream the key from host memory instead (NoResident, a key found too
// large, no room now, or an eviction under the upload).
func (p *Device) residentKey(ctx context.Context, pk *groth16.ProvingKey, cfg *prover.Settings) (*deviceKey, func(), error) {
	if p.noResident {
		return nil, nil, nil
	}
	begin := time.Now()
	dk, release, uploaded, err := p.keys.acquire(ctx, pk, func(ctx context.Context) (*deviceKey, error) {
		return p.uploadKey(ctx, pk, false, false, nil)
	})
	switch {
	case errors.Is(err, errNoRoom), errors.Is(err, ErrOutOfDeviceMemory), errors.Is(err, errEvicted):
		return nil, nil, nil
	case err != nil:
		return nil, nil, err
	}
	if uploaded { // the first proof with this key pays for its upload
		cfg.Report("key_upload", begin, "device", p.device, "bytes", groth16.KeyBytes(pk.Counts()))
	}
	return dk, release, nil
}

// uploadKey copies pk's points to the device: the one fit policy of
// resident keys. A key that, with one proof beside it, exceeds the
// device's budget, or whose allocation runs out of device memory, is
// marked unfit and fails with ErrOutOfDeviceMemory; a proof (wait unset)
// does not try an unfit key again, nor wait for room. Each section
// uploaded counts as done for hosts (nil: the host sections stay), which
// drops it once every device sharing them has it (HostSections). With
// aside, a proof's bytes are held beside it too (SetAsideProof).
func (p *Device) uploadKey(ctx context.Context, pk *groth16.ProvingKey, wait, aside bool, hosts *hostTicket) (*deviceKey, error) {
	c := pk.Counts()
	if !wait && p.isUnfit(pk) {
		return nil, fmt.Errorf("%w: GPU %d: the key was found too large", ErrOutOfDeviceMemory, p.device)
	}
	kp := p.plan(pk)
	if kp.ResidentBytes > p.gate.MemoryLimit() {
		p.markUnfit(pk)
		return nil, fmt.Errorf("%w: GPU %d: a resident key and one proof need %d bytes, the budget is %d",
			ErrOutOfDeviceMemory, p.device, kp.ResidentBytes, p.gate.MemoryLimit())
	}
	// Beside the keys and matrices resident here it must leave room for a
	// proof of its own and for one of each other key: else it streams
	// (until evicted and loaded again).
	proof := kp.ResidentBytes - groth16.KeyBytes(c)
	need := max(kp.ResidentBytes, groth16.KeyBytes(c)+p.otherProofBytes(pk, false))
	held := p.heldFor(need)
	// An urgent proof's memory only where no proof of another key wants it
	// (its layout for the whole limit); else resident without it.
	aside = aside && groth16.KeyBytes(c)+proof+max(proof, p.otherProofBytes(pk, true)) <= p.gate.MemoryLimit()-held
	if need > p.gate.MemoryLimit()-held {
		p.markUnfit(pk)
		return nil, fmt.Errorf("%w: GPU %d: a resident key and one proof need %d bytes, %d of the budget's %d are held by other resident keys and matrices",
			ErrOutOfDeviceMemory, p.device, need, held, p.gate.MemoryLimit())
	}
	dk, err := p.newDeviceKey(ctx, c, proof, wait, aside, func(ctx context.Context, i int) ([]byte, error) {
		if i == 4 {
			pts, err := pk.BG2(ctx)
			return native.AsBytes(pts), err
		}
		pts, err := [4]func(context.Context) ([]bls12381.G1Affine, error){pk.H, pk.L, pk.A, pk.BG1}[i](ctx)
		return native.AsBytes(pts), err
	}, false, hosts.mark)
	if err = classifyDevice(err); errors.Is(err, ErrOutOfDeviceMemory) {
		p.markUnfit(pk)
	}
	return dk, err
}

// heldFor returns what is held here for good (keys, matrices, memory set
// aside) once room is made for want bytes more: a key or matrices to hold,
// or a streamed key's proofs at their own layout. Memory set aside for
// urgent proofs (SetAsideProof) gives way when want exceeds the room it
// leaves: what does not fit (or proves in a smaller layout) costs every
// proof of its kind, an aside only an urgent proof's wait for memory.
func (p *Device) heldFor(want int64) int64 {
	held := p.gate.Held()
	if want > p.gate.MemoryLimit()-held && p.gate.SetAsideBytes() > 0 {
		for _, dk := range p.keys.values() {
			dk.dropAside()
		}
		held = p.gate.Held()
	}
	return held
}

// plan returns pk's plan on p's device, computing it on first use.
func (p *Device) plan(pk *groth16.ProvingKey) *Plan {
	p.mu.Lock()
	defer p.mu.Unlock()
	kp := p.plans[pk]
	if kp == nil {
		plan := newPlan(p.device, p.gate.MemoryLimit(), ShapeOf(pk), PlanOptions{NoResident: p.noResident})
		kp = &plan
		p.plans[pk] = kp
	}
	return kp
}

// otherProofBytes is the largest proof reservation of a key other than pk
// known here: a resident key's beside it, a streamed key's least (its aux
// MSMs after the h MSM; the larger of plain and with a, b, c). What is
// held for good (a resident key, matrices) must leave room for it, or that
// key's proofs never find any; where less room is left than its plan's
// layout takes, it takes one for the room (streamedIn).
// With whole, a streamed key's is its own layout instead (MostProofBytes).
func (p *Device) otherProofBytes(pk *groth16.ProvingKey, whole bool) int64 {
	var most int64
	for _, dk := range p.keys.values() {
		most = max(most, dk.proofBytes)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, kp := range p.plans {
		if k != pk && p.unfit[k] {
			if whole {
				most = max(most, kp.MostProofBytes())
			} else {
				most = max(most, kp.streamed.after, kp.streamedABC.after)
			}
		}
	}
	return most
}

// isUnfit says whether pk was found too large to be resident here.
func (p *Device) isUnfit(pk *groth16.ProvingKey) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.unfit[pk]
}

func (p *Device) markUnfit(pk *groth16.ProvingKey) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.unfit[pk] = true
}
