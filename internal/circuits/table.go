package circuits

import (
	"context"
	"fmt"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/porep"
	"github.com/gpuc2/gpuc2/synth/post"
	"github.com/gpuc2/gpuc2/synth/stacked"
	"github.com/gpuc2/gpuc2/synth/update"
)

// kinds is the table: every circuit kind gpuc2 proves, in the order the
// daemon lists their circuits.
var kinds = []*Kind{PoRep, SnapDeals, WindowPoSt, WinningPoSt}

// syntheticMiner is the miner of the synthetic sectors SyntheticCircuit makes.
const syntheticMiner = abi.ActorID(1000)

// PoRep is PoRep C2: the stacked-DRG partition circuit (synth/stacked,
// its inputs in synth/porep) of every seal proof type. The V1, V1_1,
// synthetic and NI types of a sector size have the same circuit and share
// Filecoin's file (an NI proof has more partitions).
var PoRep = &Kind{
	Name:             "PoRep",
	Enum:             SealProof,
	DaemonProofKind:  "POREP_SEAL_COMMIT",
	OnDemandSetupMax: 512 << 20,
	Matrices:         stacked.MatricesProfile,
	Counts: map[uint64]groth16.SectionCounts{
		// The published section counts of the 32 GiB circuit (FILECOIN-C2-FACTS §5).
		32 << 30: {H: 134_217_727, L: 130_169_893, A: 129_753_620, B: 33_112_282},
	},
	types: idRange(0, 19), // abi's 5·variant + size: V1, V1_1, V1_1_Feat_SyntheticPoRep, V1_2_Feat_NonInteractivePoRep
	circuits: []circuitRow{
		{"porep-2k", int64(abi.RegisteredSealProof_StackedDrg2KiBV1_1)},
		{"porep-8m", int64(abi.RegisteredSealProof_StackedDrg8MiBV1_1)},
		{"porep-512m", int64(abi.RegisteredSealProof_StackedDrg512MiBV1_1)},
		{"porep-32g", int64(abi.RegisteredSealProof_StackedDrg32GiBV1_1)},
		{"porep-64g", int64(abi.RegisteredSealProof_StackedDrg64GiBV1_1)},
	},
	name: func(id int64) string { return porep.ProofName(abi.RegisteredSealProof(id)) },
	sectorSize: func(id int64) (uint64, error) {
		sp, err := porep.ParamsFor(abi.RegisteredSealProof(id))
		return sp.SectorSize, err
	},
	sizes: func(id int64) (synth.Sizes, int, error) {
		cp, err := porep.CircuitParams(abi.RegisteredSealProof(id))
		if err != nil {
			return synth.Sizes{}, 0, err
		}
		sp, err := porep.ParamsFor(abi.RegisteredSealProof(id))
		if err != nil {
			return synth.Sizes{}, 0, err
		}
		return cp.Sizes(), sp.Partitions, nil
	},
	blank: func(id int64) (synth.Circuit, error) {
		cp, err := porep.CircuitParams(abi.RegisteredSealProof(id))
		if err != nil {
			return nil, err
		}
		return &stacked.Circuit{Params: cp}, nil
	},
	synthetic: func(ctx context.Context, id int64) (synth.Circuit, error) {
		c1, err := porep.SyntheticC1(ctx, abi.RegisteredSealProof(id), syntheticMiner, 1, [32]byte{1})
		if err != nil {
			return nil, err
		}
		return c1.Circuit(0)
	},
	paramsPrefix: porepParamsPrefix,
	setupName: func(id int64) string { // the V1_1 type's: every type of a size shares the file
		p := abi.RegisteredSealProof(id)
		name := porep.ProofName(p)
		if size, err := porep.SectorSizeName(p); err == nil {
			if v11, err := porep.ProofForSectorSize(size); err == nil {
				name = porep.ProofName(v11)
			}
		}
		return name
	},
	matricesName: func(id int64) string { return porep.ProofName(abi.RegisteredSealProof(id)) },
}

// porepParamsPrefix is the start of the v28 PoRep parameter file names; the
// leading digits of each shape's hash tell the sizes apart (FILECOIN-C2-FACTS §5).
func porepParamsPrefix(id int64) (string, error) {
	p := abi.RegisteredSealProof(id)
	sp, err := porep.ParamsFor(p)
	if err != nil {
		return "", err
	}
	hash := map[uint64]string{
		2 << 10: "032d3138", 8 << 20: "ecd68364", 512 << 20: "6babf46c",
		32 << 30: "82a357d2", 64 << 30: "96f1b4a0",
	}[sp.SectorSize]
	if hash == "" {
		return "", fmt.Errorf("gpuc2: no parameter file known for %v", porep.ProofName(p))
	}
	return fmt.Sprintf("v28-stacked-proof-of-replication-merkletree-poseidon_hasher-%d-%d-%d-sha256_hasher-%s",
		sp.Shape.Base, sp.Shape.Sub, sp.Shape.Top, hash), nil
}

// SnapDeals is the SnapDeals sector update: storage-proofs-update's
// EmptySectorUpdate partition circuit (synth/update), one update proof type
// and one parameter file per sector size.
var SnapDeals = &Kind{
	Name:             "SnapDeals",
	Enum:             UpdateProof,
	DaemonProofKind:  "SNAP_DEALS_UPDATE",
	SetupFlag:        "-update ",
	OnDemandSetupMax: 512 << 20,
	Matrices:         update.MatricesProfile,
	Counts: map[uint64]groth16.SectionCounts{
		// The 32 GiB update circuit's section counts, from its synthesis
		// (`circuitinfo -update -sector-size 32GiB`: aux 80,978,488, a's aux
		// density 80,743,581, b's 20,983,607 and 1 of the inputs): a key has a
		// point per input and per aux column of A with a term, b per column of B
		// (groth16.Setup; checked against a TEST-ONLY 8 MiB update key's).
		32 << 30: {H: 134_217_727, L: 80_978_488, A: 80_743_586, B: 20_983_608},
	},
	types: []int64{
		int64(abi.RegisteredUpdateProof_StackedDrg2KiBV1),
		int64(abi.RegisteredUpdateProof_StackedDrg8MiBV1),
		int64(abi.RegisteredUpdateProof_StackedDrg512MiBV1),
		int64(abi.RegisteredUpdateProof_StackedDrg32GiBV1),
		int64(abi.RegisteredUpdateProof_StackedDrg64GiBV1),
	},
	// cuzk names snap-32g and snap-64g (Curio's extern/cuzk srs_manager.rs
	// CircuitId); the smaller snap ids are ours, named as cuzk names porep-2k…
	circuits: []circuitRow{
		{"snap-2k", int64(abi.RegisteredUpdateProof_StackedDrg2KiBV1)},
		{"snap-8m", int64(abi.RegisteredUpdateProof_StackedDrg8MiBV1)},
		{"snap-512m", int64(abi.RegisteredUpdateProof_StackedDrg512MiBV1)},
		{"snap-32g", int64(abi.RegisteredUpdateProof_StackedDrg32GiBV1)},
		{"snap-64g", int64(abi.RegisteredUpdateProof_StackedDrg64GiBV1)},
	},
	label: "update ",
	name:  func(id int64) string { return update.ProofName(abi.RegisteredUpdateProof(id)) },
	sectorSize: func(id int64) (uint64, error) {
		up, err := update.ParamsFor(abi.RegisteredUpdateProof(id))
		return up.SectorSize, err
	},
	sizes: func(id int64) (synth.Sizes, int, error) {
		up, err := update.ParamsFor(abi.RegisteredUpdateProof(id))
		if err != nil {
			return synth.Sizes{}, 0, err
		}
		sz, err := up.CircuitSizes()
		return sz, up.Partitions, err
	},
	blank: func(id int64) (synth.Circuit, error) {
		up, err := update.ParamsFor(abi.RegisteredUpdateProof(id))
		if err != nil {
			return nil, err
		}
		return &update.Circuit{Params: up}, nil
	},
	synthetic: func(_ context.Context, id int64) (synth.Circuit, error) {
		up, err := update.ParamsFor(abi.RegisteredUpdateProof(id))
		if err != nil {
			return nil, err
		}
		s, err := update.NewSynthetic(up, 1)
		if err != nil {
			return nil, err
		}
		w, err := s.Witness(0)
		if err != nil {
			return nil, err
		}
		return &update.Circuit{Params: up, Witness: w}, nil
	},
	paramsPrefix: func(id int64) (string, error) { return update.ParamsFileBase(abi.RegisteredUpdateProof(id)) },
	setupName:    snapMatricesName,
	matricesName: snapMatricesName,
}

func snapMatricesName(id int64) string {
	return "EmptySectorUpdate-" + update.ProofName(abi.RegisteredUpdateProof(id))
}

// idRange is lo…hi.
func idRange(lo, hi int64) []int64 {
	var out []int64
	for id := lo; id <= hi; id++ {
		out = append(out, id)
	}
	return out
}

// WindowPoSt is one WindowPoSt partition: storage-proofs-post's
// FallbackPoSt circuit (synth/post) of WINDOW_POST_SECTOR_COUNT sectors of
// 10 challenges. The V1_1 types only (the V1 ones were retired by
// FIP-0061); one parameter file a sector size.
var WindowPoSt = &Kind{
	Name:             "WindowPoSt",
	Enum:             PoStProof,
	DaemonProofKind:  "WINDOW_POST_PARTITION",
	SetupFlag:        "-post window ",
	OnDemandSetupMax: 512 << 20,
	Matrices:         post.MatricesProfile,
	Counts: map[uint64]groth16.SectionCounts{
		// The 32 GiB partition circuit's section counts, from its synthesis in
		// counting mode (synth.Checker): the circuit is 2,349 copies of one
		// sector's (25,840 inputs = 1 + 2,349 × 11; aux 2,349 × 54,024), and
		// circuits of one and of two sectors of the 32 GiB shape have a's aux
		// density 40,945 and b's 39,134 per sector, b's input density 1. A key
		// has a point per input and per aux column of A with a term, b per
		// column of B (TEST-ONLY 2 KiB WindowPoSt and 2 KiB and 8 MiB
		// WinningPoSt keys agree with their synthesis).
		32 << 30: {H: 134_217_727, L: 126_902_376, A: 96_205_645, B: 91_925_767},
	},
}

// cuzk names wpost-32g (srs_manager.rs CircuitId); the others are ours,
// named alike.
func init() { postFacts(WindowPoSt, "wpost", abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1) }

// WinningPoSt is a WinningPoSt: the FallbackPoSt circuit of 66 sectors of
// one challenge (one sector's 66 challenges). Its circuits are small (about
// 0.4 M rows at 32 GiB), so their TEST-ONLY setups are made on first use at
// every size.
var WinningPoSt = &Kind{
	Name:             "WinningPoSt",
	Enum:             PoStProof,
	DaemonProofKind:  "WINNING_POST",
	SetupFlag:        "-post winning ",
	OnDemandSetupMax: 64 << 30,
	Urgent:           true,
	Matrices:         post.MatricesProfile,
	Counts: map[uint64]groth16.SectionCounts{
		// The 32 GiB circuit's, from its synthesis in counting mode (a's aux
		// density 284,196, b's 272,184 and 1 of the inputs), equal to a
		// TEST-ONLY 32 GiB key's.
		32 << 30: {H: 524_287, L: 375_210, A: 284_329, B: 272_185},
	},
}

// cuzk names winning-32g; the others are ours.
func init() { postFacts(WinningPoSt, "winning", abi.RegisteredPoStProof_StackedDrgWinning2KiBV1) }

// The PoSt kinds' facts, from synth/post; a proof is one partition.

// postFacts completes a PoSt kind: its five types from first on (abi's
// sizes in order, 2 KiB … 64 GiB), its circuits "<prefix>-2k" …
// "<prefix>-64g", and synth/post's facts.
func postFacts(k *Kind, prefix string, first abi.RegisteredPoStProof) {
	for i, size := range []string{"2k", "8m", "512m", "32g", "64g"} {
		id := int64(first) + int64(i)
		k.types = append(k.types, id)
		k.circuits = append(k.circuits, circuitRow{prefix + "-" + size, id})
	}
	k.name, k.sectorSize, k.sizes, k.blank, k.synthetic = postName, postSectorSize, postSizes, postBlank, postSynthetic
	k.paramsPrefix, k.setupName, k.matricesName = postParamsPrefix, postName, postName
}

func postName(id int64) string { return post.ProofName(abi.RegisteredPoStProof(id)) }

func postSectorSize(id int64) (uint64, error) {
	p, err := post.ParamsFor(abi.RegisteredPoStProof(id))
	return p.SectorSize, err
}

func postSizes(id int64) (synth.Sizes, int, error) {
	p, err := post.ParamsFor(abi.RegisteredPoStProof(id))
	if err != nil {
		return synth.Sizes{}, 0, err
	}
	sz, err := p.CircuitSizes()
	return sz, 1, err
}

func postBlank(id int64) (synth.Circuit, error) {
	p, err := post.ParamsFor(abi.RegisteredPoStProof(id))
	if err != nil {
		return nil, err
	}
	return &post.Circuit{Params: p}, nil
}

// postSynthetic is a made-up proof of a full partition: Sectors sectors.
func postSynthetic(ctx context.Context, id int64) (synth.Circuit, error) {
	p, err := post.ParamsFor(abi.RegisteredPoStProof(id))
	if err != nil {
		return nil, err
	}
	ids := make([]uint64, p.Sectors)
	for i := range ids {
		ids[i] = uint64(i + 1)
	}
	proofs, err := post.SyntheticSectorProofs(ctx, p, [32]byte{1}, ids, 1)
	if err != nil {
		return nil, err
	}
	w, err := post.WitnessFor(p, proofs)
	if err != nil {
		return nil, err
	}
	return &post.Circuit{Params: p, Witness: w}, nil
}

func postParamsPrefix(id int64) (string, error) {
	p, err := post.ParamsFor(abi.RegisteredPoStProof(id))
	if err != nil {
		return "", err
	}
	return p.ParamsFileBase(), nil
}
