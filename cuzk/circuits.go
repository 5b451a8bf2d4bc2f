package cuzk

import (
	"context"
	"fmt"
	"slices"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2"
	pb "github.com/gpuc2/gpuc2/cuzk/cuzkv1"
	"github.com/gpuc2/gpuc2/internal/errtext"
)

// circuit is a circuit as cuzk names it in PreloadSRS, EvictSRS and
// GetStatus: the facade's (gpuc2.Circuits, one table for every kind) with
// its proof kind as the protocol's enum.
type circuit struct {
	id   string
	kind pb.ProofKind
	size abi.SectorSize
}

// circuits are the circuits served, in the facade's order; a circuit of a
// kind the protocol does not name is left out.
var circuits = func() []circuit {
	var out []circuit
	for _, c := range gpuc2.Circuits() {
		if k, ok := pb.ProofKind_value[c.ProofKind]; ok {
			out = append(out, circuit{id: c.ID, kind: pb.ProofKind(k), size: c.SectorSize})
		}
	}
	return out
}()

// servedKinds are the proof kinds gpuc2d proves, in GetStatus' order.
var servedKinds = func() []pb.ProofKind {
	var out []pb.ProofKind
	for _, c := range circuits {
		if !slices.Contains(out, c.kind) {
			out = append(out, c.kind)
		}
	}
	return out
}()

// circuitByID returns the circuit named id.
func circuitByID(id string) (circuit, error) {
	for _, c := range circuits {
		if c.id == id {
			return c, nil
		}
	}
	return circuit{}, fmt.Errorf("unknown circuit id %s: gpuc2d serves %s", errtext.Quote(id), circuitIDs())
}

// circuitOf is info's circuit.
func circuitOf(info gpuc2.CircuitInfo, ok bool) (circuit, bool) {
	if !ok {
		return circuit{}, false
	}
	c, err := circuitByID(info.ID)
	return c, err == nil
}

// boundTo reports whether k, a loaded key, is c's parameter file.
func (c circuit) boundTo(k gpuc2.KeyStatus) bool { return slices.Contains(k.Circuits, c.id) }

// paramsPaths are where the Prover looks for c's parameters: the real file
// in paramsDir (empty if it is missing), the TEST-ONLY setup under
// testDir (empty without one).
func (c circuit) paramsPaths(paramsDir, testDir string) (real, test string) {
	real, _, err := gpuc2.FindCircuitParams(paramsDir, c.id)
	if err != nil {
		real = ""
	}
	if testDir != "" {
		test = gpuc2.CircuitTestParamsPath(testDir, c.id)
	}
	return real, test
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

// Preload loads circuit id's parameters on p, as PreloadSRS does (gpuc2d's
// -preload).
func Preload(ctx context.Context, p *gpuc2.Prover, id string) error {
	c, err := circuitByID(id)
	if err != nil {
		return err
	}
	return p.PreloadCircuit(ctx, c.id)
}
