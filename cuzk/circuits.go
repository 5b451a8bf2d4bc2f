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
// GetStatus: one per kind and sector size, whose parameter file every proof
// type of that kind and size shares (PoRep's V1, V1_1, synthetic).
type circuit struct {
	id   string
	kind pb.ProofKind // POREP_SEAL_COMMIT or SNAP_DEALS_UPDATE
	size abi.SectorSize
	// seal (PoRep) or update (SnapDeals) is the type whose parameters stand
	// for the circuit's (the facade loads a file once for every type bound
	// to it).
	seal   abi.RegisteredSealProof
	update abi.RegisteredUpdateProof
}

// circuits are the circuits served, PoRep then SnapDeals, smallest first.
// cuzk names snap-32g and snap-64g (Curio's extern/cuzk srs_manager.rs
// CircuitId); the smaller snap ids are ours, named as cuzk names porep-2k…
var circuits = []circuit{
	{id: "porep-2k", kind: pb.ProofKind_POREP_SEAL_COMMIT, size: 2 << 10, seal: abi.RegisteredSealProof_StackedDrg2KiBV1_1},
	{id: "porep-8m", kind: pb.ProofKind_POREP_SEAL_COMMIT, size: 8 << 20, seal: abi.RegisteredSealProof_StackedDrg8MiBV1_1},
	{id: "porep-512m", kind: pb.ProofKind_POREP_SEAL_COMMIT, size: 512 << 20, seal: abi.RegisteredSealProof_StackedDrg512MiBV1_1},
	{id: "porep-32g", kind: pb.ProofKind_POREP_SEAL_COMMIT, size: 32 << 30, seal: abi.RegisteredSealProof_StackedDrg32GiBV1_1},
	{id: "porep-64g", kind: pb.ProofKind_POREP_SEAL_COMMIT, size: 64 << 30, seal: abi.RegisteredSealProof_StackedDrg64GiBV1_1},
	{id: "snap-2k", kind: pb.ProofKind_SNAP_DEALS_UPDATE, size: 2 << 10, update: abi.RegisteredUpdateProof_StackedDrg2KiBV1},
	{id: "snap-8m", kind: pb.ProofKind_SNAP_DEALS_UPDATE, size: 8 << 20, update: abi.RegisteredUpdateProof_StackedDrg8MiBV1},
	{id: "snap-512m", kind: pb.ProofKind_SNAP_DEALS_UPDATE, size: 512 << 20, update: abi.RegisteredUpdateProof_StackedDrg512MiBV1},
	{id: "snap-32g", kind: pb.ProofKind_SNAP_DEALS_UPDATE, size: 32 << 30, update: abi.RegisteredUpdateProof_StackedDrg32GiBV1},
	{id: "snap-64g", kind: pb.ProofKind_SNAP_DEALS_UPDATE, size: 64 << 30, update: abi.RegisteredUpdateProof_StackedDrg64GiBV1},
}

func (c circuit) isUpdate() bool { return c.kind == pb.ProofKind_SNAP_DEALS_UPDATE }

// circuitByID returns the circuit named id.
func circuitByID(id string) (circuit, error) {
	for _, c := range circuits {
		if c.id == id {
			return c, nil
		}
	}
	return circuit{}, fmt.Errorf("unknown circuit id %s: gpuc2d serves %s", errtext.Quote(id), circuitIDs())
}

// circuitOf returns the PoRep circuit of a seal proof type's sector size.
func circuitOf(t abi.RegisteredSealProof) (circuit, bool) {
	size, err := t.SectorSize()
	if err != nil {
		return circuit{}, false
	}
	for _, c := range circuits {
		if !c.isUpdate() && c.size == size {
			return c, true
		}
	}
	return circuit{}, false
}

// updateCircuitOf returns the SnapDeals circuit of an update proof type
// (one type per size: StackedDrg…V1).
func updateCircuitOf(t abi.RegisteredUpdateProof) (circuit, bool) {
	for _, c := range circuits {
		if c.isUpdate() && c.update == t {
			return c, true
		}
	}
	return circuit{}, false
}

// boundTo reports whether k, a loaded key, is c's parameter file.
func (c circuit) boundTo(k gpuc2.KeyStatus) bool {
	if c.isUpdate() {
		return slices.Contains(k.UpdateTypes, c.update)
	}
	return slices.ContainsFunc(k.Types, func(t abi.RegisteredSealProof) bool { cc, ok := circuitOf(t); return ok && cc.id == c.id })
}

// preload and evict are the Prover's calls for c's kind.
func (c circuit) preload(ctx context.Context, p *gpuc2.Prover) error {
	if c.isUpdate() {
		return p.PreloadUpdate(ctx, c.update)
	}
	return p.Preload(ctx, c.seal)
}

func (c circuit) evict(p *gpuc2.Prover) error {
	if c.isUpdate() {
		return p.EvictUpdate(c.update)
	}
	return p.Evict(c.seal)
}

// paramsPaths are where the Prover looks for c's parameters: the real file
// in paramsDir (empty if it is missing), the TEST-ONLY setup under
// testDir (empty without one).
func (c circuit) paramsPaths(paramsDir, testDir string) (real, test string) {
	var err error
	if c.isUpdate() {
		real, _, err = gpuc2.FindUpdateParams(paramsDir, c.update)
	} else {
		real, _, err = gpuc2.FindParams(paramsDir, c.seal)
	}
	if err != nil {
		real = ""
	}
	if testDir != "" {
		if c.isUpdate() {
			test = gpuc2.UpdateTestParamsPath(testDir, c.update)
		} else {
			test = gpuc2.TestParamsPath(testDir, c.seal)
		}
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

// CircuitProof is the seal proof type whose parameters stand for PoRep
// circuit id (Prover.Preload takes it); a SnapDeals id is refused: Preload
// serves both.
func CircuitProof(id string) (abi.RegisteredSealProof, error) {
	c, err := circuitByID(id)
	if err != nil {
		return 0, err
	}
	if c.isUpdate() {
		return 0, fmt.Errorf("circuit %s is a SnapDeals circuit, of no seal proof type", c.id)
	}
	return c.seal, nil
}

// Preload loads circuit id's parameters on p, as PreloadSRS does (gpuc2d's
// -preload).
func Preload(ctx context.Context, p *gpuc2.Prover, id string) error {
	c, err := circuitByID(id)
	if err != nil {
		return err
	}
	return c.preload(ctx, p)
}
