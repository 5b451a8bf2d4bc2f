package gpuc2

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/groth16/gpu"
	"github.com/gpuc2/gpuc2/internal/circuits"
)

// SetResources is what one process needs to serve several circuits at
// once, their keys preloaded in order (CircuitsRequirements): where each
// key ends up, and the host RAM, pinned memory and VRAM of the whole set.
type SetResources struct {
	// Circuits are the circuits in the order given, as the set leaves
	// each.
	Circuits []CircuitResources
	// KeysBytes is the circuits' parameter files together (their
	// ParamsBytes): what the keys take decoded, wherever they are held.
	KeysBytes int64
	// HostBytes is the process's peak host RAM with the set's keys
	// preloaded in order and its proofs running: the keys no GPU holds
	// (pinned copies; the heap on the CPU) and the matrices' host copies
	// added up; the largest circuit's working sets (its partitions held at
	// once, its matrices' load phase beside the other circuits' copies, the
	// synthesis' garbage); the upload chunks and c's stage once; the
	// runtime; or, if larger, a preload's (a resident key's largest
	// section beside the keys loaded before it).
	HostBytes int64
	// PinnedBytes is page-locked host memory: the streamed keys' and
	// matrices' copies added up, the largest circuit's working sets, the
	// upload chunks and c's stage once; 0 on the CPU.
	PinnedBytes int64
	// VRAMBytes is each GPU's peak: the resident keys and matrices
	// together, and the largest of the circuits' proofs at once beside
	// them (their VRAMBytes); 0 on the CPU.
	VRAMBytes int64
	// DeviceMemoryLimit is the limit every GPU is modelled under (as
	// Resources.DeviceMemoryLimit; 0: none).
	DeviceMemoryLimit int64
	// Stall, when not empty, says why the set is not served under cfg,
	// naming the first circuit whose Stall is set; see SetStall.
	Stall string
}

// CircuitResources is one circuit of a set (CircuitsRequirements).
type CircuitResources struct {
	ID string // "porep-32g", …
	// Resources are the circuit's figures as Requirements gives them,
	// beside the set's other circuits: an automatic host budget's room is
	// less their loaded keys and matrices (fewer partitions at once);
	// ProofsPerGPU is how many of its proofs fit at once in the device
	// memory left by every resident key and matrices, VRAMBytes the GPU's
	// peak while they run (those keys and matrices included); and where
	// the GPU had no room for its matrices beside the other keys, it proves
	// as without them on the GPU (MatricesOnGPU false: under MatricesAuto
	// every partition synthesized in full, the matrices recorded all the
	// same and kept on the heap, in MatricesBytes and HostBytes). A key the
	// set leaves KeyPinned though its own plan is resident streams: its
	// Mode, reservations and PartitionBusBytes are a streamed proof's. For
	// a set of one circuit they are Requirements'.
	Resources
	// Key is where the circuit's key is held once the set is preloaded:
	// KeyOnDevice (resident on every GPU), KeyPinned (a page-locked host
	// copy the GPUs stream from), KeyHost (the CPU's heap).
	Key KeyTier
	// KeyDeviceBytes is the key's points as a GPU holds them, resident or
	// pinned (groth16's affine G1 and G2); 0 on the CPU.
	KeyDeviceBytes int64
	// SetAsideBytes is the device memory each GPU holds beside a resident
	// key of an urgent kind (WinningPoSt) for one of its proofs, which then
	// waits for no other proof's memory; 0 where the room does not allow it
	// (the key is then resident without it) or the kind is not urgent.
	SetAsideBytes int64
	// Stall, when not empty, says why this circuit is not served.
	Stall SetStall
}

// SetStall says why a circuit of a set is not served (CircuitResources).
type SetStall string

const (
	// StallProof: a proof's reservation is larger than the device memory
	// the resident keys and matrices leave: it fails at once with
	// ErrOutOfDeviceMemory (gpulock's held reservations), as does the
	// preload of a streamed key in that case.
	StallProof SetStall = "proof"
	// StallBudget: a partition is larger than the automatic host budget
	// left beside the loaded keys and matrices: its proofs fail with
	// ErrBudget.
	StallBudget SetStall = "budget"
)

// CircuitsRequirements returns what one process needs to serve the
// circuits ids (Circuits' ids: "porep-32g", "snap-32g", "wpost-32g",
// "winning-32g", …) at once under cfg, their keys preloaded in the order
// given, as gpuc2d's -preload loads them. cfg is read as Requirements
// reads it (each GPU under the same DeviceMemoryLimit). An unknown or
// repeated id, or none, is an error wrapping ErrBadInput.
//
// What it models, from what the code does (keys.go, groth16/gpu):
//   - Each GPU decides a key's mode as gpu.Device.Preload does: a key
//     whose own plan is resident (the key and one of its proofs) and that
//     leaves, beside the resident keys and matrices loaded before it, room
//     for a proof of its own and one of each key loaded before it, is
//     uploaded; any other streams from one pinned host copy. So the order
//     decides which keys are resident.
//   - A resident key of an urgent kind (WinningPoSt) holds one of its
//     proofs' memory beside it (SetAsideBytes) where that leaves every
//     key loaded before it room for a proof at its own layout; a key,
//     matrices, or a streamed key's proofs at their own layout loaded after
//     it that find too little room take that memory back.
//   - Each circuit's matrices are recorded by its first proof, in the
//     same order with the GPU otherwise idle; a resident circuit's go onto
//     the GPU where they fit beside the keys held and a proof of each (a
//     try, never a wait), else the circuit proves as without them there.
//   - The resident keys and matrices hold their device memory for good;
//     each circuit's proofs reserve what its plan says in the room left
//     (StallProof where none fits: such a proof fails at once with
//     ErrOutOfDeviceMemory, and a preload of a streamed key that cannot
//     fit fails the same way).
//   - On the host the keys no GPU holds and the matrices' copies add up;
//     the working sets do not: one pipeline proves every circuit's
//     partitions through the same workers and budget, so the largest
//     circuit's count. An automatic host budget leaves room for every
//     loaded key and matrices (StallBudget where a partition no longer
//     fits).
//
// Not modelled: the one partition of a PoSt (a priority above NORMAL)
// the pipeline synthesizes beside the others' (its working set; the host
// budget still bounds it: it waits there for room) and proves on each
// device's urgent worker beside them (its device memory; it waits in the
// ledger, first in line, for room); keys
// loaded by a first proof instead of a preload (the
// upload then takes the room only if it is free at that moment, else that
// proof streams: the outcome depends on what else runs, and such a
// resident key keeps its decoded sections on the host: Requirements'
// HostBytes); two circuits' first proofs loading their matrices at the same
// time (their load phases would add); GPUs of different limits;
// evictions. Key sizes are estimates (upper bounds on the a and b
// sections) where neither the parameter file nor the table of circuit kinds
// gives them (Resources.ParamsExact), and without a GPU to ask, the native
// library's scratch sizes are taken at their bounds, as Requirements takes
// them.
func CircuitsRequirements(ids []string, cfg Config) (s SetResources, err error) {
	err = guard(slog.Default(), "CircuitsRequirements", func() error {
		s, err = circuitsRequirements(ids, cfg)
		return err
	})
	return s, err
}

func circuitsRequirements(ids []string, cfg Config) (SetResources, error) {
	if len(ids) == 0 {
		return SetResources{}, fmt.Errorf("%w: no circuit ids", ErrBadInput)
	}
	types := make([]circuits.Type, len(ids))
	for i, id := range ids {
		c, err := circuitByID(id)
		if err != nil {
			return SetResources{}, err
		}
		for _, t := range types[:i] {
			if t == c.Type {
				return SetResources{}, fmt.Errorf("%w: circuit id %s given twice", ErrBadInput, id)
			}
		}
		types[i] = c.Type
	}
	alone := make([]*typeModel, len(ids))
	for i, t := range types {
		m, err := model(t, cfg, modelOpts{})
		if err != nil {
			return SetResources{}, fmt.Errorf("%s: %w", ids[i], err)
		}
		alone[i] = m
	}
	cuda := alone[0].cfg.Backend == BackendCUDA
	out := SetResources{Circuits: make([]CircuitResources, len(ids)), DeviceMemoryLimit: alone[0].r.DeviceMemoryLimit}
	cs := out.Circuits

	// The GPU, key by key in load order, then each circuit's matrices.
	limit := alone[0].plan.MemoryLimit
	var held int64       // device memory held for good: resident keys and matrices
	var otherProof int64 // the largest proof of a key loaded so far
	holders := []string{}
	// makeRoom gives the urgent proofs' set-aside memory back where want
	// bytes more exceed the room it leaves, as the device does (gpu.Device's
	// heldFor), and says whether want fits then.
	makeRoom := func(want int64) bool {
		if held+want > limit {
			for i := range cs {
				held -= cs[i].SetAsideBytes
				cs[i].SetAsideBytes = 0
			}
		}
		return held+want <= limit
	}
	var otherMost int64 // the largest proof of a key loaded so far, at its own layout (gpu.Plan's MostProofBytes)
	noDeviceMatrices := make([]bool, len(ids))
	streamed := make([]bool, len(ids)) // pinned by the set, though resident alone
	for i, m := range alone {
		c := &cs[i]
		c.ID = ids[i]
		out.KeysBytes += m.r.ParamsBytes
		if cuda {
			c.KeyDeviceBytes = groth16.KeyBytes(m.counts)
		}
		need := max(m.plan.ResidentBytes, c.KeyDeviceBytes+otherProof) // resident, as gpu.Device's uploadKey
		switch {
		case !cuda:
			c.Key = KeyHost
		case m.plan.Mode == gpu.ModeStreaming:
			c.Key = KeyPinned // too large alone
			makeRoom(m.plan.MostProofBytes())
		case !makeRoom(need):
			// Too large beside what is resident and the other keys' proofs:
			// the device streams it, and its proofs reserve as streamed ones.
			c.Key = KeyPinned
			streamed[i] = true
			sm, err := model(types[i], cfg, modelOpts{streamed: true})
			if err != nil {
				return SetResources{}, fmt.Errorf("%s: %w", ids[i], err)
			}
			alone[i], m = sm, sm
			makeRoom(m.plan.MostProofBytes())
		default:
			c.Key = KeyOnDevice
			// As gpu.SetAsideProof: an urgent kind's proof beside its key,
			// where no other key's proof wants the room.
			if proof := m.plan.ResidentBytes - c.KeyDeviceBytes; types[i].Kind().Urgent &&
				held+c.KeyDeviceBytes+proof+max(proof, otherMost) <= limit {
				c.SetAsideBytes = proof
			}
			held += c.KeyDeviceBytes + c.SetAsideBytes
			holders = append(holders, c.ID+"'s key")
		}
		if cuda {
			otherProof = max(otherProof, m.plan.LeastProofBytes()) // the keys after it leave room for it
			otherMost = max(otherMost, m.plan.MostProofBytes())
		}
	}
	for i, m := range alone {
		if cs[i].Key != KeyOnDevice || !m.plan.MatricesOnDevice {
			continue
		}
		if md := gpu.MatricesDeviceBytes(m.r.MatricesBytes); makeRoom(md + otherProof) { // room left for every key's proof
			held += md
			holders = append(holders, cs[i].ID+"'s matrices")
		} else {
			noDeviceMatrices[i] = true
		}
	}

	// Each circuit beside the others: the host budget's room, its matrices.
	loaded := func(i int) bool { return cs[i].Key != "" }
	models := make([]*typeModel, len(ids))
	for i, t := range types {
		models[i] = alone[i]
		if noDeviceMatrices[i] {
			m, err := model(t, cfg, modelOpts{noDeviceMatrices: true})
			if err != nil {
				return SetResources{}, fmt.Errorf("%s: %w", ids[i], err)
			}
			models[i] = m
		}
	}
	var longLived int64
	for i, m := range models {
		if loaded(i) {
			longLived += m.longLivedHost
		}
	}
	for i, t := range types {
		if !loaded(i) {
			cs[i].Resources = alone[i].r
			continue
		}
		m, err := model(t, cfg, modelOpts{besideHost: longLived - models[i].longLivedHost, noDeviceMatrices: noDeviceMatrices[i],
			streamed: streamed[i]})
		if err != nil {
			return SetResources{}, fmt.Errorf("%s: %w", ids[i], err)
		}
		models[i] = m
		cs[i].Resources = m.r
		if room := m.cfg.HostMemoryBudget - longLived; m.budgetAuto && room < m.r.PartitionHostBytes {
			cs[i].Stall = StallBudget
			out.stall(fmt.Sprintf("%s: a partition's %s exceed the %s the automatic host budget leaves beside the loaded keys and matrices (%s): "+
				"its proofs fail with ErrBudget", cs[i].ID, gib(m.r.PartitionHostBytes), gib(max(room, 0)), gib(longLived)))
		}
		if !cuda {
			continue
		}
		n, peak := m.plan.Beside(held - m.plan.HeldBytes - cs[i].SetAsideBytes)
		cs[i].ProofsPerGPU, cs[i].VRAMBytes = n, peak
		out.VRAMBytes = max(out.VRAMBytes, peak)
		if n == 0 && cs[i].Stall == "" {
			cs[i].Stall = StallProof
			out.stall(fmt.Sprintf("%s: a proof reserves %s of device memory; the GPU holds %s of its %s limit for good (%s): "+
				"its proofs fail at once with ErrOutOfDeviceMemory", cs[i].ID, gib(m.plan.ProofBytes), gib(held), gib(limit),
				strings.Join(append(slices.Clip(holders), urgentHolders(cs)...), ", ")))
		}
	}
	out.HostBytes, out.PinnedBytes = setHost(cs, models)
	return out, nil
}

// urgentHolders names the circuits whose keys hold an urgent proof's
// memory beside them.
func urgentHolders(cs []CircuitResources) []string {
	var out []string
	for _, c := range cs {
		if c.SetAsideBytes > 0 {
			out = append(out, c.ID+"'s urgent proof")
		}
	}
	return out
}

// stall records why the set is not served, the first reason only.
func (s *SetResources) stall(why string) {
	if s.Stall == "" {
		s.Stall = why
	}
}

// setHost is the host RAM and pinned memory of a set's loaded circuits,
// each modelled beside the others (models).
func setHost(cs []CircuitResources, models []*typeModel) (host, pinned int64) {
	var keys, keySlack, matrices, stage, staging, work, slack, vectors, transient int64
	for i, m := range models {
		if cs[i].Key == "" {
			continue
		}
		key := m.r.ParamsBytes // pinned, or the CPU's heap
		if cs[i].Key == KeyOnDevice {
			key = 0 // on the host only while it loads, a section at a time
		}
		// While it preloads: the keys and matrices before it, its own key
		// or largest section, and its matrices' load beside them.
		transient = max(transient, keys+max(key, groth16.LargestSectionBytes(m.counts))+matrices+m.h.load)
		keys += key
		keySlack += m.h.keySlack
		matrices += m.h.matrices
		stage, staging = max(stage, m.h.stage), max(staging, m.h.staging)
		work = max(work, int64(m.h.partitions)*m.h.held)
		slack = max(slack, m.h.slack)
		pinned += m.plan.PinnedKeyBytes + m.plan.PinnedMatricesBytes
		vectors = max(vectors, m.pinnedVectors)
	}
	var load int64 // a circuit's matrices loading beside the others' copies
	for i, m := range models {
		if cs[i].Key != "" && m.h.load > 0 {
			load = max(load, m.h.load+matrices-m.h.matrices)
		}
	}
	steady := work + matrices + stage + staging
	host = max(keys+max(steady, load)+keySlack+slack, transient) + runtimeHostBytes
	return host, pinned + vectors + stage + staging
}

// gib formats bytes in GiB for a message.
func gib(b int64) string { return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30)) }
