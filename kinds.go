package gpuc2

import (
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/internal/circuits"
)

// The facade's proof types are circuits.Type values: the table of circuit
// kinds (internal/circuits) says everything that differs between kinds.
// Here only the public API's go-state-types enums map to a Type and back.

func sealKind(t abi.RegisteredSealProof) circuits.Type {
	return circuits.PoRep.Type(int64(t))
}

func updateKind(t abi.RegisteredUpdateProof) circuits.Type {
	return circuits.SnapDeals.Type(int64(t))
}

// postKind is t's kind's type; a type no kind serves is WindowPoSt's,
// whose facts are then synth/post's error naming it.
func postKind(t abi.RegisteredPoStProof) circuits.Type {
	if typ, ok := circuits.Find(circuits.PoStProof, int64(t)); ok {
		return typ
	}
	return circuits.WindowPoSt.Type(int64(t))
}

// sealType is t as a seal proof type, if it is one.
func sealType(t circuits.Type) (abi.RegisteredSealProof, bool) {
	return abi.RegisteredSealProof(t.ID()), t.Kind() == circuits.PoRep
}

// addKeyType lists t among ks's types of its kind.
func addKeyType(ks *KeyStatus, t circuits.Type) {
	switch t.Kind() {
	case circuits.PoRep:
		ks.Types = append(ks.Types, abi.RegisteredSealProof(t.ID()))
	case circuits.SnapDeals:
		ks.UpdateTypes = append(ks.UpdateTypes, abi.RegisteredUpdateProof(t.ID()))
	case circuits.WindowPoSt, circuits.WinningPoSt:
		ks.PoStTypes = append(ks.PoStTypes, abi.RegisteredPoStProof(t.ID()))
	}
}
