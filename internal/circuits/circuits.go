package circuits

import (
	"context"
	"fmt"
	"slices"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/pce"
)

// Enum names the go-state-types enum of a kind's proof types.
type Enum string

// The enums of the kinds in the table.
const (
	SealProof   Enum = "RegisteredSealProof"
	UpdateProof Enum = "RegisteredUpdateProof"
	PoStProof   Enum = "RegisteredPoStProof"
)

// Kind is a circuit kind: one partition circuit, proved for every proof
// type it serves. Kinds are the table's entries (table.go); their facts
// are read through a Type.
type Kind struct {
	// Name names the kind: "PoRep", "SnapDeals".
	Name string
	// Enum is the go-state-types enum of its proof types; a type's id is
	// its value there.
	Enum Enum
	// DaemonProofKind is the daemon's proof kind, as cuzk.v1's ProofKind
	// enum spells it ("POREP_SEAL_COMMIT"); the daemon maps it to its
	// protobuf value.
	DaemonProofKind string
	// SetupFlag is what examples/testsetup takes before -sector-size to
	// make the kind's TEST-ONLY setup ("" or "-update ").
	SetupFlag string
	// OnDemandSetupMax is the largest sector size whose TEST-ONLY setup is
	// made on first use (larger ones are made beforehand, on a GPU).
	OnDemandSetupMax uint64
	// Counts are the section counts of the kind's keys by sector size
	// where they are known without the file: what Requirements sizes a
	// proof by when the file is absent (else a and b are bounded by the
	// circuit's variables).
	Counts map[uint64]groth16.SectionCounts
	// Matrices sizes the kind's constraint matrices and their recording
	// before they exist: its circuit package's measured profile.
	Matrices pce.Profile
	// Urgent says its proofs fall due within seconds of the request (a
	// WinningPoSt's: Curio sends it CRITICAL). A preload that makes such a
	// key resident sets one of its proofs' device memory aside beside it
	// (gpu.SetAsideProof), so that proof waits for no other's memory.
	Urgent bool

	types    []int64      // the ids served, in the enum's order
	circuits []circuitRow // the daemon's circuits, smallest first
	// label goes before a type's name in String ("update ").
	label string

	// Each type's facts, from the kind's circuit package; a fact of an id
	// the kind does not serve is the package's error.
	name       func(id int64) string                    // as the Rust enum spells it
	sectorSize func(id int64) (uint64, error)           // bytes
	sizes      func(id int64) (synth.Sizes, int, error) // the partition circuit's, and the partitions
	blank      func(id int64) (synth.Circuit, error)    // the circuit without a witness
	// synthetic is partition 0's circuit of made-up inputs (TEST-ONLY
	// data): what a preload records or checks the matrices with, which do
	// not depend on the witness.
	synthetic    func(ctx context.Context, id int64) (synth.Circuit, error)
	paramsPrefix func(id int64) (string, error) // the start of Filecoin's file names
	setupName    func(id int64) string          // TEST-ONLY-<setupName>.params
	matricesName func(id int64) string          // <matricesName>-<inputs>-<aux>-<rows>.pce
}

// circuitRow is one of the daemon's circuits: its id and the type whose
// parameters stand for it.
type circuitRow struct {
	id     string
	typeID int64
}

func (k *Kind) String() string { return k.Name }

// Type is k's proof type id, whether k serves it or not (its facts then
// are errors).
func (k *Kind) Type(id int64) Type { return Type{kind: k, id: id} }

// Types are the proof types k serves, in the enum's order.
func (k *Kind) Types() []Type {
	out := make([]Type, len(k.types))
	for i, id := range k.types {
		out[i] = k.Type(id)
	}
	return out
}

// Serves reports whether id is one of k's proof types.
func (k *Kind) Serves(id int64) bool { return slices.Contains(k.types, id) }

// Circuits are k's circuits as the daemon names them, smallest first.
func (k *Kind) Circuits() []Circuit {
	out := make([]Circuit, len(k.circuits))
	for i, c := range k.circuits {
		out[i] = Circuit{ID: c.id, Type: k.Type(c.typeID)}
	}
	return out
}

// Kinds are the table's kinds, in its order.
func Kinds() []*Kind { return slices.Clone(kinds) }

// Find returns the served proof type of enum e with value id, and whether
// a kind serves it.
func Find(e Enum, id int64) (Type, bool) {
	for _, k := range kinds {
		if k.Enum == e && k.Serves(id) {
			return k.Type(id), true
		}
	}
	return Type{}, false
}

// Type is one proof type of one kind: the kind and the type's value in
// the kind's go-state-types enum. Comparable; the zero Type is no type.
type Type struct {
	kind *Kind
	id   int64
}

// Kind is t's kind.
func (t Type) Kind() *Kind { return t.kind }

// ID is t's value in its kind's enum.
func (t Type) ID() int64 { return t.id }

// Name is t's name as the Rust enum spells it ("StackedDrg32GiBV1_1").
func (t Type) Name() string { return t.kind.name(t.id) }

// String is t's name, with its kind said where the name alone is another
// kind's too ("update StackedDrg32GiBV1").
func (t Type) String() string {
	if t.kind == nil {
		return "no proof type"
	}
	return t.kind.label + t.Name()
}

// SectorSize is t's sector size in bytes.
func (t Type) SectorSize() (uint64, error) { return t.kind.sectorSize(t.id) }

// SectorSizeName is t's sector size as Curio's and Lotus' fetch-params
// take it ("32GiB").
func (t Type) SectorSizeName() (string, error) {
	size, err := t.SectorSize()
	if err != nil {
		return "", err
	}
	return abi.SectorSize(size).ShortString(), nil
}

// CircuitSizes are t's partition circuit's sizes (inputs with ONE, aux,
// rows without the input rows) and the proof's partition count. An update
// circuit is measured by synthesis the first time (seconds at 32 GiB).
func (t Type) CircuitSizes() (sz synth.Sizes, partitions int, err error) { return t.kind.sizes(t.id) }

// BlankCircuit is a partition circuit of t without a witness: the shape
// a setup is made for.
func (t Type) BlankCircuit() (synth.Circuit, error) { return t.kind.blank(t.id) }

// SyntheticCircuit is partition 0's circuit of made-up inputs for t (a
// synthetic sector's, never a real one's): the constraint matrices, which
// do not depend on the witness, can be recorded or checked with it before
// any request comes.
func (t Type) SyntheticCircuit(ctx context.Context) (synth.Circuit, error) {
	return t.kind.synthetic(ctx, t.id)
}

// ParamsPrefix is the start of t's Filecoin parameter file names.
func (t Type) ParamsPrefix() (string, error) { return t.kind.paramsPrefix(t.id) }

// ParamsFile is a Filecoin parameter or verifying-key file as
// parameters.json publishes it.
type ParamsFile struct {
	Name   string
	Digest string // the first 16 bytes of its BLAKE2b-512, in hex
}

// PublishedParams are t's .params and .vk files, as Filecoin publishes
// them.
func (t Type) PublishedParams() (params, vk ParamsFile, err error) {
	prefix, err := t.ParamsPrefix()
	if err != nil {
		return params, vk, err
	}
	file := func(ext string) (ParamsFile, error) {
		name := groth16.PublishedName(prefix, ext)
		d, ok := groth16.PublishedDigest(name)
		if !ok {
			return ParamsFile{}, fmt.Errorf("circuits: no published %s file for %v (%s…)", ext, t, prefix)
		}
		return ParamsFile{Name: name, Digest: d}, nil
	}
	if params, err = file(".params"); err != nil {
		return ParamsFile{}, ParamsFile{}, err
	}
	if vk, err = file(".vk"); err != nil {
		return ParamsFile{}, ParamsFile{}, err
	}
	return params, vk, nil
}

// TestParamsName is the base name of t's TEST-ONLY setup. Types of a kind
// that share Filecoin's file share one setup (PoRep's V1, V1_1, synthetic
// and NI types of a sector size, named after the V1_1 type).
func (t Type) TestParamsName() string { return "TEST-ONLY-" + t.kind.setupName(t.id) + ".params" }

// OnDemandSetup reports whether t's TEST-ONLY setup is made on first use
// (up to Kind.OnDemandSetupMax).
func (t Type) OnDemandSetup() bool {
	size, err := t.SectorSize()
	return err == nil && size <= t.kind.OnDemandSetupMax
}

// MatricesName names t's circuit in its recorded matrices' cache file.
func (t Type) MatricesName() string { return t.kind.matricesName(t.id) }

// KnownCounts are the section counts of t's key where the table knows
// them without the file (Kind.Counts, by t's sector size).
func (t Type) KnownCounts() (groth16.SectionCounts, bool) {
	size, err := t.SectorSize()
	if err != nil {
		return groth16.SectionCounts{}, false
	}
	c, ok := t.kind.Counts[size]
	return c, ok
}

// Circuit is t's circuit as the daemon names it: its kind's circuit of
// its sector size.
func (t Type) Circuit() (Circuit, bool) {
	if t.kind == nil || !t.kind.Serves(t.id) {
		return Circuit{}, false
	}
	size, err := t.SectorSize()
	if err != nil {
		return Circuit{}, false
	}
	for _, c := range t.kind.Circuits() {
		if s, err := c.Type.SectorSize(); err == nil && s == size {
			return c, true
		}
	}
	return Circuit{}, false
}

// Circuit is a circuit as the daemon names it in cuzk's PreloadSRS,
// EvictSRS and GetStatus: one per kind and sector size, whose parameter
// file every proof type of that kind and size shares.
type Circuit struct {
	ID string // "porep-32g", "snap-32g", …
	// Type is the proof type whose parameters stand for the circuit's
	// (the facade loads a file once for every type bound to it).
	Type Type
}

// Kind is c's kind.
func (c Circuit) Kind() *Kind { return c.Type.kind }

// Circuits are every kind's circuits, in the table's order.
func Circuits() []Circuit {
	var out []Circuit
	for _, k := range kinds {
		out = append(out, k.Circuits()...)
	}
	return out
}

// CircuitByID returns the circuit named id.
func CircuitByID(id string) (Circuit, bool) {
	for _, c := range Circuits() {
		if c.ID == id {
			return c, true
		}
	}
	return Circuit{}, false
}

// CircuitIDs are the ids of Circuits, for flags and messages.
func CircuitIDs() []string {
	var out []string
	for _, c := range Circuits() {
		out = append(out, c.ID)
	}
	return out
}
