package gpu

import (
	"fmt"
	"math"

	"github.com/gpuc2/gpuc2/groth16"
)

// DeviceMode is how a device proves with a given key.
type DeviceMode string

const (
	// ModeResident: the key lives in device memory.
	ModeResident DeviceMode = "resident"
	// ModeStreaming: the key lives in pinned host memory and streams
	// through the device per proof.
	ModeStreaming DeviceMode = "streaming"
)

// Shape is what a plan needs of a proving key: its section counts and
// its public inputs (ONE included: the verifying key's IC). Its proofs'
// domain is H+1 and their aux variables L (a witness that differs fails
// with groth16.ErrKeyMismatch). Rows is the circuit's QAP rows (its
// constraints and one per input), which no key knows: it sizes only
// Plan.ProofBusBytes; 0 takes the domain, an upper bound.
type Shape struct {
	Counts groth16.SectionCounts
	Inputs int
	Rows   int
}

// ShapeOf is pk's shape.
func ShapeOf(pk *groth16.ProvingKey) Shape {
	return Shape{Counts: pk.Counts(), Inputs: len(pk.VerifyingKey().IC)}
}

func (s Shape) domain() int { return s.Counts.H + 1 }
func (s Shape) aux() int    { return s.Counts.L }

// rows is what a, b, c uploaded from the host hold: Rows, else the domain.
func (s Shape) rows() int {
	if s.Rows > 0 {
		return s.Rows
	}
	return s.domain()
}

// Plan is what proving with one key costs a device under a memory limit:
// the one place device memory is decided. Devices' provers read it for
// their mode and reservations, and Requirements reads it for a scheduler.
// Its figures are for workers proofs per device.
type Plan struct {
	// Mode is how the device proves: resident when the key and one proof
	// fit the limit, else streaming.
	Mode DeviceMode
	// MemoryLimit is the limit the plan is for (MaxInt64: none).
	MemoryLimit int64
	// ResidentBytes is a resident key and one proof beside it.
	ResidentBytes int64
	// ProofBytes is one proof's reservation in Mode, a resident key and
	// matrices not counted (with MatricesOnDevice, a proof's that
	// evaluates a, b, c on the device).
	ProofBytes int64
	// LeastBytes is the least limit with which a device proves with the
	// key at all: one streamed proof.
	LeastBytes int64
	// MatricesOnDevice says whether the device evaluates a, b, c from the
	// circuit's matrices (PlanOptions.MatricesBytes): resident, when they
	// fit beside the key and one proof (more workers take turns);
	// streaming, when a proof that holds its witness fits as many times as
	// a plain one (the matrices then stream from a pinned copy).
	MatricesOnDevice bool
	// HeldBytes is what the device holds for good beside its proofs: a
	// resident key, and the matrices with MatricesOnDevice.
	HeldBytes int64
	// ProofsAtOnce is how many of the workers reserve a proof at once (at
	// least one); the others wait for memory (gpulock).
	ProofsAtOnce int
	// PeakBytes is the device's peak: HeldBytes and ProofsAtOnce proofs,
	// and with MatricesOnDevice, where a waiting worker's witness fits
	// beside them, that witness, reserved ahead of its proof's rest
	// (UploadAheadBytes).
	PeakBytes int64
	// ProofBusBytes is what one proof moves host→device in Mode, the
	// key's and the matrices' one-time loads not counted: its witness (aux
	// and inputs); a, b, c unless MatricesOnDevice; streaming, also every
	// point of the key (its sections hold only the points the MSMs read,
	// each streamed once a proof) and, with MatricesOnDevice, the matrices
	// from their pinned copy (proofBusBytes).
	ProofBusBytes int64
	// UploadAheadBytes is what a proof with MatricesOnDevice reserves
	// ahead of the rest of ProofBytes: its witness (aux and inputs),
	// uploaded while the previous proof computes (resident: once that one
	// has given back b and c after H; streamed, with its aux MSMs beside
	// its h MSM: once it has given back its h MSM's memory). 0 otherwise.
	UploadAheadBytes int64
	// PinnedKeyBytes is the key's pinned host copy (streaming; one per
	// process, whatever the devices), PinnedMatricesBytes the matrices'
	// (streaming with MatricesOnDevice), StageBytes c's pinned stage
	// (streaming with PlanOptions.VectorStage) and StagingBytes the
	// workers' upload staging chunks.
	PinnedKeyBytes, PinnedMatricesBytes, StageBytes, StagingBytes int64

	// streamed and streamedABC are a streamed proof's reservations, plain
	// and one that evaluates a, b, c on the device.
	streamed, streamedABC streamedPlan
	workers, domain       int   // PlanOptions.Workers (at least 1), the key's domain
	device                int   // the device planned for (anyDevice: the most any needs)
	shape                 Shape // the key's, for streamedIn
}

// PlanOptions are what a plan depends on beside the key and the limit.
type PlanOptions struct {
	Workers int // proofs a device is given at once; 0 means 1
	// NoResident keeps the key in host memory even when it would fit.
	NoResident bool
	// MatricesBytes is the circuit's compiled matrices (pce's Bytes, or
	// its estimate) when proofs may evaluate a, b, c from them; 0: never.
	MatricesBytes int64
	// VectorStage: streamed proofs whose c lies on the heap, which a
	// pinned stage per device uploads.
	VectorStage bool
}

// NewPlan is the plan of a device of memory limit limit (0: none) for a
// key of shape s, as the devices' provers plan it. A limit below one
// streamed proof's need fails with ErrOutOfDeviceMemory naming that need.
func NewPlan(limit int64, s Shape, opts PlanOptions) (Plan, error) {
	if limit == 0 {
		limit = math.MaxInt64
	}
	p := newPlan(anyDevice, limit, s, opts)
	if p.Mode == "" {
		return p, fmt.Errorf("%w: a device memory limit of %d bytes is below the %d bytes one streamed proof needs",
			ErrOutOfDeviceMemory, limit, p.LeastBytes)
	}
	return p, nil
}

// newPlan is NewPlan on device (anyDevice: the most any device needs); its
// Mode is empty when the limit allows neither mode.
func newPlan(device int, limit int64, s Shape, opts PlanOptions) Plan {
	c, m, nAux, nIn := s.Counts, s.domain(), s.aux(), s.Inputs
	workers := max(opts.Workers, 1)
	p := Plan{MemoryLimit: limit, ResidentBytes: groth16.KeyBytes(c) + proofDeviceBytes(device, c, m, nAux),
		StagingBytes: int64(workers) * UploadStagingBytes, workers: workers, domain: m, device: device, shape: s}
	plain, withABC := streamingProofBytes(device, c, m, nAux, nIn)
	p.streamed = planStreamed(device, limit, c, m, nAux, nIn, false, plain)
	p.streamedABC = planStreamed(device, limit, c, m, nAux, nIn, true, withABC)
	p.LeastBytes = plain
	switch {
	case !opts.NoResident && p.ResidentBytes <= limit:
		p.Mode = ModeResident
		p.ProofBytes = p.ResidentBytes - groth16.KeyBytes(c)
		p.HeldBytes = groth16.KeyBytes(c)
		if opts.MatricesBytes > 0 && p.residentMatricesFit(opts.MatricesBytes) {
			p.MatricesOnDevice = true
			p.HeldBytes += MatricesDeviceBytes(opts.MatricesBytes)
			p.UploadAheadBytes = witnessDeviceBytes(nAux)
		}
		p.ProofsAtOnce = max(1, ProofsFit(limit-p.HeldBytes, p.ProofBytes, workers))
	case plain <= limit:
		p.Mode = ModeStreaming
		p.ProofBytes = p.streamed.bytes()
		p.PinnedKeyBytes = groth16.KeyBytes(c)
		if opts.VectorStage {
			p.StageBytes = StreamingStageBytes(m)
		}
		if opts.MatricesBytes > 0 && p.streamedMatricesFit() {
			p.MatricesOnDevice = true
			p.ProofBytes = p.streamedABC.bytes()
			p.PinnedMatricesBytes = PinnedMatricesBytes(opts.MatricesBytes)
			p.UploadAheadBytes = assignmentBytes(nAux, nIn)
		}
		p.ProofsAtOnce = max(1, ProofsFit(limit, p.ProofBytes, workers))
	default:
		return p
	}
	var matrices int64 // evaluated on the device from these
	if p.MatricesOnDevice {
		matrices = opts.MatricesBytes
	}
	p.ProofBusBytes = proofBusBytes(s, p.Mode == ModeStreaming, matrices)
	p.PeakBytes = p.peak(p.HeldBytes, p.ProofsAtOnce, p.ProofBytes, p.released(p.streamedFor(p.MatricesOnDevice)))
	return p
}

// proofBusBytes is what one proof of shape s moves host→device, resident
// or streaming, with a, b, c evaluated on the device from matrices of
// matrices bytes (pce's Bytes; 0: uploaded): the witness (aux and inputs)
// always; a, b, c, without matrices; streaming, the key (groth16.KeyBytes:
// each MSM streams all of its section's points, which are only those of
// the variables its density selects) and the matrices (each chunk once,
// with the coefficient table; the chunks' extra row starts, one a chunk,
// not counted). What is read back, a few points, is not counted either.
func proofBusBytes(s Shape, streaming bool, matrices int64) int64 {
	b := assignmentBytes(s.aux(), s.Inputs)
	if matrices == 0 {
		b += 3 * int64(s.rows()) * frSize
	}
	if streaming {
		b += groth16.KeyBytes(s.Counts) + matrices
	}
	return b
}

// LeastProofBytes is the least one proof reserves: ProofBytes resident;
// streaming, with its aux MSMs after the h MSM, the layout a device takes
// where what others hold for good leaves less room than ProofBytes
// (streamedIn).
func (p Plan) LeastProofBytes() int64 {
	if p.Mode == ModeStreaming {
		return p.streamedFor(p.MatricesOnDevice).after
	}
	return p.ProofBytes
}

// MostProofBytes is the most one proof reserves: ProofBytes resident;
// streaming, the larger of its own layouts (plain, and evaluating a, b, c),
// sized to the whole limit, which it takes where the room allows.
func (p Plan) MostProofBytes() int64 {
	if p.Mode == ModeStreaming {
		return max(p.streamed.bytes(), p.streamedABC.bytes())
	}
	return p.ProofBytes
}

// Beside is what the plan's proofs get on a device where other bytes are
// held for good beside the plan's own HeldBytes (the resident keys and
// matrices of other circuits, which the ledger never gives back to
// proofs): how many of the workers' proofs fit the room left at once, and
// the device's peak with them. proofs is 0 when not even one fits: such a
// proof waits in the ledger for memory that never comes. Beside(0) is the
// plan's own ProofsAtOnce and PeakBytes.
// A streamed proof whose layout does not fit the room left takes one that
// does, as the device does (streamedIn).
func (p Plan) Beside(other int64) (proofs int, peak int64) {
	held := p.HeldBytes + other
	proof := p.ProofBytes
	sp := p.streamedFor(p.MatricesOnDevice)
	if p.Mode == ModeStreaming {
		sp = p.streamedIn(p.MatricesOnDevice, p.MemoryLimit-held)
		proof = sp.bytes()
	}
	n := ProofsFit(p.MemoryLimit-held, proof, p.workers)
	if n == 0 {
		return 0, held
	}
	return n, p.peak(held, n, proof, p.released(sp))
}

// peak is the device's peak with held bytes held for good and n proofs of
// proof bytes at once, each giving released bytes back before it ends:
// with MatricesOnDevice and a worker waiting, its witness reserved ahead
// where the ledger lets it in (UploadAheadBytes).
func (p Plan) peak(held int64, n int, proof, released int64) int64 {
	peak := held + int64(n)*proof
	if p.workers > n && p.UploadAheadBytes > 0 {
		ahead := peak + p.UploadAheadBytes
		if ahead > p.MemoryLimit { // reserved once a proof has given memory back
			ahead -= released
		}
		if ahead <= p.MemoryLimit {
			peak = max(peak, ahead)
		}
	}
	return peak
}

// released is what one of the plan's proofs gives back before it ends:
// resident, b and c after H; streamed (sp, its layout) with its aux MSMs
// beside its h MSM, what that MSM held (besideLayout.afterH); else
// nothing.
func (p Plan) released(sp streamedPlan) int64 {
	switch {
	case p.Mode == ModeResident:
		return hReleasedBytes(p.domain)
	case sp.beside != nil:
		return sp.beside.releasedAfterH()
	}
	return 0
}

// PinnedBytes is the pinned host memory the plan holds beside the
// partitions' vectors: staging, and streaming, the key's and the
// matrices' copies and c's stage.
func (p Plan) PinnedBytes() int64 {
	return p.StagingBytes + p.PinnedKeyBytes + p.PinnedMatricesBytes + p.StageBytes
}

// streamedFor is a streamed proof's plan (withABC: one that evaluates a,
// b, c on the device).
func (p *Plan) streamedFor(withABC bool) streamedPlan {
	if withABC {
		return p.streamedABC
	}
	return p.streamed
}

// streamedIn is a streamed proof's plan (withABC: one that evaluates a,
// b, c on the device) in room bytes of the ledger, the limit less what
// resident keys and matrices hold for good: the plan's own where it fits
// (or where nothing smaller would), else one chosen for that room as the
// plan chose for its limit: the aux MSMs beside the h MSM in a layout
// that fits, or after it. A small key made resident beside a streamed one
// (a WinningPoSt's, loaded first) would otherwise leave a layout sized to
// the whole limit no room at all.
func (p *Plan) streamedIn(withABC bool, room int64) streamedPlan {
	sp := p.streamedFor(withABC)
	if sp.bytes() <= room || sp.after > room {
		return sp
	}
	s := p.shape
	return planStreamed(p.device, room, s.Counts, s.domain(), s.aux(), s.Inputs, withABC, sp.after)
}

// residentMatricesFit says whether compiled matrices of bytes (pce's
// Bytes) fit the limit beside a resident key and one proof: there the
// device evaluates a, b, c from them; otherwise that proof would never
// find room. More workers take turns.
func (p *Plan) residentMatricesFit(bytes int64) bool {
	return p.ResidentBytes+MatricesDeviceBytes(bytes) <= p.MemoryLimit
}

// streamedMatricesFit says whether streamed proofs that evaluate a, b, c
// on the device fit the limit as many at a time as plain streamed ones,
// counting up to streamedOverlap: holding the witness must not cost a
// device its overlap.
func (p *Plan) streamedMatricesFit() bool {
	n := ProofsFit(p.MemoryLimit, p.streamedABC.after, streamedOverlap)
	return n > 0 && n >= ProofsFit(p.MemoryLimit, p.streamed.after, streamedOverlap)
}
