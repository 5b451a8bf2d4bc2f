package gpuc2

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/internal/circuits"
	"github.com/gpuc2/gpuc2/internal/errtext"
)

// CircuitInfo is a circuit as Curio's proving daemon (cuzk) names it in
// PreloadSRS, EvictSRS and GetStatus: one per kind of proof and sector
// size, whose parameter file every proof type of that kind and size shares
// (PoRep's V1, V1_1, synthetic and NI types). The calls keyed by its ID
// (PreloadCircuit, EvictCircuit, FindCircuitParams, CircuitTestParamsPath)
// act for the proof type that stands for it, so a daemon serves every kind
// without a branch per kind.
type CircuitInfo struct {
	ID string // "porep-32g", "snap-32g", …
	// ProofKind is the kind of the proofs it proves as cuzk.v1's ProofKind
	// enum spells it: "POREP_SEAL_COMMIT", "SNAP_DEALS_UPDATE".
	ProofKind string
	// Kind names the kind for people: "PoRep", "SnapDeals".
	Kind       string
	SectorSize abi.SectorSize
}

// Circuits lists every circuit served, kind by kind (PoRep's, then
// SnapDeals'), smallest first.
func Circuits() []CircuitInfo {
	cs := circuits.Circuits()
	out := make([]CircuitInfo, len(cs))
	for i, c := range cs {
		out[i] = circuitInfo(c)
	}
	return out
}

func circuitInfo(c circuits.Circuit) CircuitInfo {
	size, _ := c.Type.SectorSize() // every circuit's type has one (internal/circuits' TestCircuits)
	return CircuitInfo{ID: c.ID, ProofKind: c.Kind().DaemonProofKind, Kind: c.Kind().Name, SectorSize: abi.SectorSize(size)}
}

// SealProofCircuit returns the circuit that proves seal proof type t (its
// sector size's PoRep circuit), and false for a type gpuc2 does not serve.
func SealProofCircuit(t abi.RegisteredSealProof) (CircuitInfo, bool) {
	return circuitOf(sealKind(t))
}

// UpdateProofCircuit returns the circuit that proves update proof type t,
// and false for a type gpuc2 does not serve.
func UpdateProofCircuit(t abi.RegisteredUpdateProof) (CircuitInfo, bool) {
	return circuitOf(updateKind(t))
}

func circuitOf(t circuits.Type) (CircuitInfo, bool) {
	c, ok := t.Circuit()
	if !ok {
		return CircuitInfo{}, false
	}
	return circuitInfo(c), true
}

// circuitByID returns the circuit named id, or an error wrapping
// ErrBadInput that lists the ids served.
func circuitByID(id string) (circuits.Circuit, error) {
	c, ok := circuits.CircuitByID(id)
	if !ok {
		return circuits.Circuit{}, fmt.Errorf("%w: unknown circuit id %s: gpuc2 serves %s", ErrBadInput, errtext.Quote(id),
			strings.Join(circuits.CircuitIDs(), ", "))
	}
	return c, nil
}

// PreloadCircuit is Preload (or PreloadUpdate) for the proof type that
// stands for circuit id (Circuits): its parameter file, shared by every
// type of the circuit, stays loaded until EvictCircuit, an Evict of one of
// its types, or Close. An unknown id is an error wrapping ErrBadInput.
func (p *Prover) PreloadCircuit(ctx context.Context, id string) error {
	c, err := circuitByID(id)
	if err != nil {
		return err
	}
	return p.preload(ctx, "PreloadCircuit", c.Type)
}

// EvictCircuit is Evict (or EvictUpdate) for circuit id: it releases the
// circuit's parameter file whichever of its proof types it was loaded for
// (a V1 proof's as well as a preload's V1_1). An unknown id is an error
// wrapping ErrBadInput; a circuit not loaded is no error.
func (p *Prover) EvictCircuit(id string) error {
	c, err := circuitByID(id)
	if err != nil {
		return err
	}
	return p.evict("EvictCircuit", c.Type, func(t circuits.Type) bool {
		tc, ok := t.Circuit()
		return ok && tc.ID == c.ID
	})
}

// FindCircuitParams is FindParams (or FindUpdateParams) for the proof type
// that stands for circuit id: the paths of its real Filecoin .params and
// .vk files in dir, or ErrParamsMissing naming the file looked for. An
// unknown id is an error wrapping ErrBadInput.
func FindCircuitParams(dir, id string) (params, vk string, err error) {
	err = guard(slog.Default(), "FindCircuitParams", func() error {
		c, err := circuitByID(id)
		if err != nil {
			return err
		}
		params, vk, err = findParams(dir, c.Type)
		return err
	})
	return params, vk, err
}

// CircuitTestParamsPath is TestParamsPath (or UpdateTestParamsPath) for the
// proof type that stands for circuit id: where its TEST-ONLY setup is kept
// under cacheDir. It is "" for an unknown id.
func CircuitTestParamsPath(cacheDir, id string) string {
	c, ok := circuits.CircuitByID(id)
	if !ok {
		return ""
	}
	return testParamsPath(cacheDir, c.Type)
}

// keyCircuits are the ids of the circuits whose types are bound to one
// loaded file, in Circuits' order, once each.
func keyCircuits(types []circuits.Type) []string {
	var out []string
	for _, c := range circuits.Circuits() {
		if slices.ContainsFunc(types, func(t circuits.Type) bool { tc, ok := t.Circuit(); return ok && tc.ID == c.ID }) {
			out = append(out, c.ID)
		}
	}
	return out
}

// SealProofName names seal proof type t as rust-fil-proofs' enum does
// ("StackedDrg32GiBV1_1"), or by number for a type gpuc2 does not know.
func SealProofName(t abi.RegisteredSealProof) string { return sealKind(t).Name() }

// UpdateProofName names update proof type t as rust-fil-proofs' enum does
// ("StackedDrg32GiBV1"), or by number for a type gpuc2 does not know.
func UpdateProofName(t abi.RegisteredUpdateProof) string { return updateKind(t).Name() }
