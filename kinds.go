package gpuc2

import (
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/porep"
	"github.com/gpuc2/gpuc2/synth/stacked"
	"github.com/gpuc2/gpuc2/synth/update"
)

// proofKind is one proof type the facade proves: a seal proof type (PoRep
// C2's partition circuit) or an update proof type (SnapDeals'
// EmptySectorUpdate circuit). Comparable: the key cache is keyed by it.
// Everything that differs between the two circuits' types is asked of it.
type proofKind struct {
	isUpdate bool
	seal     abi.RegisteredSealProof
	update   abi.RegisteredUpdateProof
}

func sealKind(t abi.RegisteredSealProof) proofKind     { return proofKind{seal: t} }
func updateKind(t abi.RegisteredUpdateProof) proofKind { return proofKind{isUpdate: true, update: t} }

// String names the type as the Rust enums do; an update type says so.
func (k proofKind) String() string {
	if k.isUpdate {
		return "update " + update.ProofName(k.update)
	}
	return porep.ProofName(k.seal)
}

// sectorSize is the type's sector size in bytes.
func (k proofKind) sectorSize() (uint64, error) {
	if k.isUpdate {
		up, err := update.ParamsFor(k.update)
		return up.SectorSize, err
	}
	sp, err := porep.ParamsFor(k.seal)
	return sp.SectorSize, err
}

// sectorSizeName is the size as Curio's and Lotus' fetch-params take it ("32GiB").
func (k proofKind) sectorSizeName() (string, error) {
	size, err := k.sectorSize()
	if err != nil {
		return "", err
	}
	return abi.SectorSize(size).ShortString(), nil
}

// circuitSizes and partitions are the partition circuit's sizes (inputs with
// ONE, aux, rows without the input rows) and the proof's partition count.
func (k proofKind) circuitSizes() (sz synth.Sizes, partitions int, err error) {
	if k.isUpdate {
		up, err := update.ParamsFor(k.update)
		if err != nil {
			return sz, 0, err
		}
		sz, err = up.CircuitSizes()
		return sz, up.Partitions, err
	}
	cp, err := porep.CircuitParams(k.seal)
	if err != nil {
		return sz, 0, err
	}
	sp, err := porep.ParamsFor(k.seal)
	if err != nil {
		return sz, 0, err
	}
	return cp.Sizes(), sp.Partitions, nil
}

// blankCircuit is a partition circuit without a witness: the shape a
// setup is made for.
func (k proofKind) blankCircuit() (synth.Circuit, error) {
	if k.isUpdate {
		up, err := update.ParamsFor(k.update)
		if err != nil {
			return nil, err
		}
		return &update.Circuit{Params: up}, nil
	}
	cp, err := porep.CircuitParams(k.seal)
	if err != nil {
		return nil, err
	}
	return &stacked.Circuit{Params: cp}, nil
}

// paramsPrefix is the start of the type's Filecoin parameter file names.
func (k proofKind) paramsPrefix() (string, error) {
	if k.isUpdate {
		return update.ParamsFileBase(k.update)
	}
	return paramsPrefix(k.seal)
}

// testParamsName is the base name of the type's TEST-ONLY setup. Every seal
// type of a sector size (V1, V1_1, synthetic, NI) has the same partition
// circuit, as they share Filecoin's file, so they share one setup, named
// after the V1_1 type; update types have one each.
func (k proofKind) testParamsName() string {
	if k.isUpdate {
		return "TEST-ONLY-" + k.matricesName() + ".params"
	}
	name := porep.ProofName(k.seal)
	if size, err := porep.SectorSizeName(k.seal); err == nil {
		if v11, err := porep.ProofForSectorSize(size); err == nil {
			name = porep.ProofName(v11)
		}
	}
	return "TEST-ONLY-" + name + ".params"
}

// isTestSize: a TEST-ONLY setup is made on demand up to 512 MiB sectors.
func (k proofKind) isTestSize() bool {
	size, err := k.sectorSize()
	return err == nil && size <= 512<<20
}

// matricesName names the type's circuit in its matrices' cache file.
func (k proofKind) matricesName() string {
	if k.isUpdate {
		return "EmptySectorUpdate-" + update.ProofName(k.update)
	}
	return porep.ProofName(k.seal)
}
