package provingengine

import (
	"fmt"

	"github.com/filecoin-project/go-state-types/abi"
)

// circuit is a PoRep circuit as cuzk names it in PreloadSRS, EvictSRS and
// GetStatus: one per sector size, whose parameter file every proof type of
// that size shares (V1, V1_1, synthetic).
type circuit struct {
	id   string
	size abi.SectorSize
	// proof is the type whose parameters stand for the circuit's (the
	// facade loads a file once for every type bound to it).
	proof abi.RegisteredSealProof
}

// circuits are the PoRep circuits, smallest first.
var circuits = []circuit{
	{"porep-2k", 2 << 10, abi.RegisteredSealProof_StackedDrg2KiBV1_1},
	{"porep-8m", 8 << 20, abi.RegisteredSealProof_StackedDrg8MiBV1_1},
	{"porep-512m", 512 << 20, abi.RegisteredSealProof_StackedDrg512MiBV1_1},
	{"porep-32g", 32 << 30, abi.RegisteredSealProof_StackedDrg32GiBV1_1},
	{"porep-64g", 64 << 30, abi.RegisteredSealProof_StackedDrg64GiBV1_1},
}

// circuitByID returns the circuit named id.
func circuitByID(id string) (circuit, error) {
	for _, c := range circuits {
		if c.id == id {
			return c, nil
		}
	}
	return circuit{}, fmt.Errorf("unknown circuit id %s: gpuc2d serves %s", clip(id), circuitIDs())
}

// circuitOf returns the circuit of a proof type's sector size.
func circuitOf(t abi.RegisteredSealProof) (circuit, bool) {
	size, err := t.SectorSize()
	if err != nil {
		return circuit{}, false
	}
	for _, c := range circuits {
		if c.size == size {
			return c, true
		}
	}
	return circuit{}, false
}

// CircuitIDs lists the circuit ids served, for flags and messages.
func CircuitIDs() []string {
	out := make([]string, len(circuits))
	for i, c := range circuits {
		out[i] = c.id
	}
	return out
}

func circuitIDs() string { return fmt.Sprint(CircuitIDs()) }

// clip quotes a caller's string for an error, cut to 64 bytes with its
// full length said: an error never carries more than that of it.
func clip(s string) string {
	const keep = 64
	if len(s) <= keep {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q… (%d bytes)", s[:keep], len(s))
}

// CircuitProof is the proof type whose parameters stand for circuit id
// (Prover.Preload takes it).
func CircuitProof(id string) (abi.RegisteredSealProof, error) {
	c, err := circuitByID(id)
	return c.proof, err
}
