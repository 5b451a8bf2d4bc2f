package gpuc2

import (
	"slices"

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
}

// DeviceStatus is one GPU's share of the pipeline.
type DeviceStatus struct {
	Ordinal int
	Workers int // prover workers on the device
	Busy    int // workers proving now
	Gate    groth16.DeviceMetrics
}

// Status returns a snapshot of the pipeline: queues, workers, devices and
// host memory.
func (p *Prover) Status() Status {
	s := Status{
		Backend:                 p.cfg.Backend,
		ProofsInFlight:          int(p.stats.proofs.Load()),
		PartitionsQueued:        p.synthQueue.len(),
		PartitionsSynthesizing:  int(p.stats.synthesizing.Load()),
		PartitionsWaitingProver: p.proveQueue.len(),
		PartitionsProving:       int(p.stats.proving.Load()),
		SynthesisWorkers:        p.synthCount,
		ProverWorkers:           len(p.provers),
	}
	s.PartitionsWaitingForMemory = int(p.stats.waitingMemory.Load())
	s.PartitionsQueued += s.PartitionsWaitingForMemory
	for i, ord := range p.devices {
		d := DeviceStatus{Ordinal: ord, Gate: p.deviceProvers[i].Metrics()}
		for _, w := range p.provers {
			if w.device == ord {
				d.Workers++
				if w.busy.Load() {
					d.Busy++
				}
			}
		}
		s.Devices = append(s.Devices, d)
	}
	p.mu.Lock()
	for t := range p.keys {
		s.Loaded = append(s.Loaded, t)
	}
	p.mu.Unlock()
	slices.Sort(s.Loaded)
	b := p.budget.snapshot()
	s.HostBudgetBytes, s.HostReservedBytes, s.HostPeakBytes, s.HostParkedBytes = b.limit, b.used, b.peak, b.parked
	return s
}
