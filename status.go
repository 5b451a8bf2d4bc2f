package gpuc2

import (
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/groth16"
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
	Devices          []DeviceStatus // empty with the CPU backend
	Loaded           []abi.RegisteredSealProof

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
	Gate    groth16.DeviceMetrics
	// Mode is how the device proves with the loaded parameters (those of
	// the first loaded type; empty when none is loaded); MemoryLimitBytes
	// its ledger's limit (Config.DeviceMemoryLimit or the default), and
	// PoolHighWaterBytes the most the native library's memory pool has
	// held allocated at once on it (proofs' working sets; a resident key
	// is outside the pool): with a streaming mode it stays within the
	// limit.
	Mode               groth16.DeviceMode
	MemoryLimitBytes   int64
	PoolHighWaterBytes int64
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
		ProverWorkers:              len(ps.Provers),
		Loaded:                     p.keys.types(),
		HostBudgetBytes:            ps.Budget.Limit,
		HostReservedBytes:          ps.Budget.Reserved,
		HostPeakBytes:              ps.Budget.Peak,
		HostParkedBytes:            ps.Budget.Spare,
		PinnedHostBytes:            groth16.PinnedHostBytes(),
	}
	var pk *groth16.ProvingKey // the first loaded type's key
	if len(p.devices) > 0 && len(s.Loaded) > 0 {
		if e := p.keys.loaded(s.Loaded[0]); e != nil && e.pk != nil {
			pk = e.pk
		}
	}
	for _, d := range p.devices {
		ds := DeviceStatus{Ordinal: d.Device(), Gate: d.Metrics(), MemoryLimitBytes: d.MemoryLimit()}
		if pk != nil {
			ds.Mode = d.Mode(pk)
		}
		if hw, err := d.PoolHighWater(); err == nil {
			ds.PoolHighWaterBytes = hw
		}
		for _, w := range ps.Provers {
			if w.Device == d.Device() {
				ds.Workers++
				if w.Busy {
					ds.Busy++
				}
			}
		}
		s.Devices = append(s.Devices, ds)
	}
	return s
}
