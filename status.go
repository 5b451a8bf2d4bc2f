package gpuc2

import (
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/groth16/gpu"
)

// Status is a snapshot of a Prover's pipeline.
type Status struct {
	Backend        Backend
	ProofsInFlight int // ProveSeal calls past parsing and parameter load

	// PartitionsQueued are waiting for a synthesis worker or for host
	// memory; PartitionsWaitingForMemory are those of them the dispatcher
	// has taken, with a synthesis worker free, that wait for their working
	// set's bytes of the host memory budget (Config.HostMemoryBudget).
	PartitionsQueued           int
	PartitionsWaitingForMemory int
	PartitionsSynthesizing     int
	PartitionsWaitingProver    int // synthesized, waiting for a prover worker
	PartitionsProving          int

	SynthesisWorkers int
	ProverWorkers    int
	Devices          []DeviceStatus            // empty with the CPU backend
	Loaded           []abi.RegisteredSealProof // seal types; Keys lists every file, update types included
	// Keys are the loaded parameter files, one per file, with where they
	// are held; Proofs the proofs in the pipeline (ProofsInFlight), in the
	// order they entered it.
	Keys   []KeyStatus
	Proofs []ProofStatus

	// The host memory budget of partition working sets: its limit now
	// (less loaded parameters when automatic), bytes reserved now (parked
	// proving assignments included), the most ever reserved at once, and
	// the bytes of parked assignments kept for reuse.
	HostBudgetBytes   int64
	HostReservedBytes int64
	HostPeakBytes     int64
	HostParkedBytes   int64

	// PinnedHostBytes is the page-locked host memory the process holds for
	// GPU proving now, every Prover's (Resources.PinnedBytes prices one's).
	PinnedHostBytes int64
}

// DeviceStatus is one GPU's share of the pipeline.
type DeviceStatus struct {
	Ordinal int
	Workers int // prover workers on the device
	Busy    int // workers proving now
	// Gate is the device's ledger and compute lock: its MemoryLimitBytes
	// (Config.DeviceMemoryLimit or the default), what is reserved now and
	// at most, and the time the compute lock was held.
	Gate gpu.DeviceMetrics
	// Mode is how the device proves with the loaded parameters (those of
	// the first loaded file by path; empty when none is loaded), and
	// PoolHighWaterBytes the most the native library's memory pool has
	// held allocated at once on it (proofs' working sets; a resident key
	// is outside the pool): with a streaming mode it stays within the
	// limit.
	Mode               gpu.DeviceMode
	PoolHighWaterBytes int64
	// Name and TotalBytes are the device's, as the driver reported them
	// when New ran; Proving the labels (SealRequest.Label) of the proofs
	// whose partitions its workers prove now, one per busy worker.
	Name       string
	TotalBytes int64
	Proving    []string
}

// KeyStatus is one loaded parameter file.
type KeyStatus struct {
	Types []abi.RegisteredSealProof // the seal proof types bound to it now
	// UpdateTypes are the update proof types bound to it now (a SnapDeals
	// file serves no seal type, and the other way round).
	UpdateTypes []abi.RegisteredUpdateProof
	PoStTypes   []abi.RegisteredPoStProof // the PoSt proof types bound to it now
	Path        string
	Bytes       int64 // the file's size: its decoded sections take as much
	Tier        KeyTier
	InUse       int // proofs using it now
	// Circuits are the ids of the circuits (Circuits) of the types bound to
	// it, in Circuits' order: one, as a file is one circuit's ("porep-32g").
	Circuits []string
}

// KeyTier says where a loaded key is held, fastest first.
type KeyTier string

const (
	KeyOnDevice KeyTier = "device" // in every GPU's memory (resident)
	KeyPinned   KeyTier = "pinned" // a page-locked host copy GPUs stream from
	KeyHost     KeyTier = "host"   // mapped and decoded on demand: the CPU's, or GPUs' before first use
)

// ProofStatus is one proof in the pipeline.
type ProofStatus struct {
	Seq        uint64 // Progress.Proof
	Label      string
	Priority   Priority
	Partitions int
	Started    int // partitions that began synthesis (proving or done included)
	Proved     int
}

// Status returns a snapshot of the pipeline: queues, workers, devices and
// host memory.
func (p *Prover) Status() Status {
	ps := p.pipe.Stats()
	s := Status{
		Backend:                    p.cfg.Backend,
		ProofsInFlight:             ps.Jobs,
		PartitionsQueued:           ps.Queued,
		PartitionsWaitingForMemory: ps.WaitingForMemory,
		PartitionsSynthesizing:     ps.Synthesizing,
		PartitionsWaitingProver:    ps.WaitingProver,
		PartitionsProving:          ps.Proving,
		SynthesisWorkers:           ps.SynthesisWorkers,
		ProverWorkers:              ps.Workers(),
		Loaded:                     p.keys.sealTypes(),
		HostBudgetBytes:            ps.Budget.Limit,
		HostReservedBytes:          ps.Budget.Reserved,
		HostPeakBytes:              ps.Budget.Peak,
		HostParkedBytes:            ps.Budget.Spare,
		PinnedHostBytes:            gpu.PinnedHostBytes(),
		Keys:                       p.keys.status(),
	}
	for _, j := range ps.JobList {
		s.Proofs = append(s.Proofs, ProofStatus{Seq: j.Seq, Label: j.Label, Priority: Priority(j.Priority),
			Partitions: j.Partitions, Started: j.Started, Proved: j.Proved})
	}
	if p.devices == nil {
		return s
	}
	for _, st := range p.devices.States(p.keys.anyKey()) {
		ds := DeviceStatus{Ordinal: st.Info.Ordinal, Gate: st.Metrics, Mode: st.Mode,
			PoolHighWaterBytes: st.PoolHighWater, Name: st.Info.Name, TotalBytes: st.Info.TotalBytes}
		for _, w := range ps.Provers {
			if w.Device == ds.Ordinal {
				if !w.Urgent {
					ds.Workers++
				}
				if w.Busy {
					ds.Busy++
					ds.Proving = append(ds.Proving, w.Label)
				}
			}
		}
		s.Devices = append(s.Devices, ds)
	}
	return s
}
