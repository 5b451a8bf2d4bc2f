package circuits_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/circuits"
	"github.com/gpuc2/gpuc2/synth"
)

// Every seal and update proof type go-state-types defines has its kind,
// found by its enum and value; values outside the enums have none.
func TestEveryTypeHasAKind(t *testing.T) {
	for id := int64(0); id <= 19; id++ {
		typ, ok := circuits.Find(circuits.SealProof, id)
		require.True(t, ok, "seal %d", id)
		assert.Equal(t, circuits.PoRep, typ.Kind())
		assert.Equal(t, circuits.PoRep.Type(id), typ)
		assert.Equal(t, id, typ.ID())
	}
	for _, u := range []abi.RegisteredUpdateProof{abi.RegisteredUpdateProof_StackedDrg2KiBV1, abi.RegisteredUpdateProof_StackedDrg8MiBV1,
		abi.RegisteredUpdateProof_StackedDrg512MiBV1, abi.RegisteredUpdateProof_StackedDrg32GiBV1, abi.RegisteredUpdateProof_StackedDrg64GiBV1} {
		typ, ok := circuits.Find(circuits.UpdateProof, int64(u))
		require.True(t, ok, "update %d", u)
		assert.Equal(t, circuits.SnapDeals, typ.Kind())
	}
	// go-state-types' own table: every seal type it describes (V1, V1_1,
	// synthetic, NI) and the update type of each.
	require.Len(t, abi.SealProofInfos, 20)
	for p, info := range abi.SealProofInfos {
		_, ok := circuits.Find(circuits.SealProof, int64(p))
		assert.True(t, ok, "seal %d", p)
		_, ok = circuits.Find(circuits.UpdateProof, int64(info.UpdateProof))
		assert.True(t, ok, "update type of %d", p)
	}
	for _, c := range []struct {
		e  circuits.Enum
		id int64
	}{{circuits.SealProof, -1}, {circuits.SealProof, 20}, {circuits.UpdateProof, -1}, {circuits.UpdateProof, 5},
		{circuits.PoStProof, -1}, {circuits.PoStProof, 5}, {circuits.PoStProof, 9}, {circuits.PoStProof, 15}, {"RegisteredFooProof", 0}} {
		_, ok := circuits.Find(c.e, c.id)
		assert.False(t, ok, "%s %d", c.e, c.id)
	}
	// Each kind's Types are what Find finds, and no two kinds serve a type.
	seen := map[circuits.Type]bool{}
	for _, k := range circuits.Kinds() {
		require.NotEmpty(t, k.Types(), k.Name)
		for _, typ := range k.Types() {
			got, ok := circuits.Find(k.Enum, typ.ID())
			assert.True(t, ok)
			assert.Equal(t, typ, got)
			assert.False(t, seen[typ])
			seen[typ] = true
		}
	}
	// The PoSt types: Winning V1 and Window V1_1, each its kind's.
	for id := int64(0); id <= 14; id++ {
		typ, ok := circuits.Find(circuits.PoStProof, id)
		if id >= 5 && id <= 9 { // the retired WindowPoSt V1 types
			assert.False(t, ok, "post %d", id)
			continue
		}
		require.True(t, ok, "post %d", id)
		want := circuits.WindowPoSt
		if id < 5 {
			want = circuits.WinningPoSt
		}
		assert.Equal(t, want, typ.Kind(), "post %d", id)
	}
	assert.Equal(t, []*circuits.Kind{circuits.PoRep, circuits.SnapDeals, circuits.WindowPoSt, circuits.WinningPoSt}, circuits.Kinds())
	assert.Equal(t, "no proof type", circuits.Type{}.String())
}

// The facts of each type, as the facade had them before the table: sector
// sizes, partitions and circuit sizes, the estimate's known counts, the
// setup made on demand up to 512 MiB.
func TestSizesAndCounts(t *testing.T) {
	porep32 := groth16.SectionCounts{H: 134_217_727, L: 130_169_893, A: 129_753_620, B: 33_112_282}
	update32 := groth16.SectionCounts{H: 134_217_727, L: 80_978_488, A: 80_743_586, B: 20_983_608}
	window32 := groth16.SectionCounts{H: 134_217_727, L: 126_902_376, A: 96_205_645, B: 91_925_767}
	winning32 := groth16.SectionCounts{H: 524_287, L: 375_210, A: 284_329, B: 272_185}
	for _, tc := range []struct {
		t          circuits.Type
		size       string
		partitions int
		sizes      synth.Sizes
		counts     *groth16.SectionCounts
		blank      string
		large      bool // its sizes take seconds (an update circuit's are synthesized)
	}{
		{seal(abi.RegisteredSealProof_StackedDrg2KiBV1), "2KiB", 1, synth.Sizes{Inputs: 40, Aux: 2685673, Rows: 2687921}, nil, "*stacked.Circuit", false},
		{seal(abi.RegisteredSealProof_StackedDrg8MiBV1_1), "8MiB", 1, synth.Sizes{Inputs: 40, Aux: 3842449, Rows: 3844929}, nil, "*stacked.Circuit", false},
		{seal(abi.RegisteredSealProof_StackedDrg512MiBV1_1_Feat_SyntheticPoRep), "512MiB", 1, synth.Sizes{Inputs: 40, Aux: 4420837, Rows: 4423433}, nil, "*stacked.Circuit", false},
		{seal(abi.RegisteredSealProof_StackedDrg32GiBV1_1), "32GiB", 10, synth.Sizes{Inputs: 328, Aux: 130169893, Rows: 130278541}, &porep32, "*stacked.Circuit", false},
		{seal(abi.RegisteredSealProof_StackedDrg32GiBV1_2_Feat_NiPoRep), "32GiB", 126, synth.Sizes{Inputs: 328, Aux: 130169893, Rows: 130278541}, &porep32, "*stacked.Circuit", false},
		{seal(abi.RegisteredSealProof_StackedDrg64GiBV1_1), "64GiB", 10, synth.Sizes{Inputs: 328, Aux: 131076643, Rows: 131185849}, nil, "*stacked.Circuit", false},
		{upd(abi.RegisteredUpdateProof_StackedDrg2KiBV1), "2KiB", 1, synth.Sizes{Inputs: 5, Aux: 1703569, Rows: 1705039}, nil, "*update.Circuit", false},
		{upd(abi.RegisteredUpdateProof_StackedDrg8MiBV1), "8MiB", 4, synth.Sizes{Inputs: 5, Aux: 9998039, Rows: 10007503}, nil, "*update.Circuit", true},
		{upd(abi.RegisteredUpdateProof_StackedDrg512MiBV1), "512MiB", 16, synth.Sizes{Inputs: 5, Aux: 57401314, Rows: 57450479}, nil, "*update.Circuit", true},
		{upd(abi.RegisteredUpdateProof_StackedDrg32GiBV1), "32GiB", 16, synth.Sizes{Inputs: 5, Aux: 80978488, Rows: 81049499}, &update32, "*update.Circuit", true},
		{upd(abi.RegisteredUpdateProof_StackedDrg64GiBV1), "64GiB", 16, synth.Sizes{Inputs: 5, Aux: 84931220, Rows: 85006101}, nil, "*update.Circuit", true},
		{pst(abi.RegisteredPoStProof_StackedDrgWindow32GiBV1_1), "32GiB", 1, synth.Sizes{Inputs: 25840, Aux: 126902376, Rows: 125279217}, &window32, "*post.Circuit", false},
		{pst(abi.RegisteredPoStProof_StackedDrgWinning32GiBV1), "32GiB", 1, synth.Sizes{Inputs: 133, Aux: 375210, Rows: 370590}, &winning32, "*post.Circuit", false},
	} {
		t.Run(tc.t.String(), func(t *testing.T) {
			size, err := tc.t.SectorSizeName()
			require.NoError(t, err)
			assert.Equal(t, tc.size, size)
			bytes, err := tc.t.SectorSize()
			require.NoError(t, err)
			assert.Equal(t, bytes <= 512<<20 || tc.t.Kind() == circuits.WinningPoSt, tc.t.OnDemandSetup())
			blank, err := tc.t.BlankCircuit()
			require.NoError(t, err)
			assert.Equal(t, tc.blank, fmt.Sprintf("%T", blank))
			counts, ok := tc.t.KnownCounts()
			assert.Equal(t, tc.counts != nil, ok)
			if ok {
				assert.Equal(t, *tc.counts, counts)
			}
			if tc.large && testing.Short() {
				return
			}
			sizes, partitions, err := tc.t.CircuitSizes()
			require.NoError(t, err)
			assert.Equal(t, tc.sizes, sizes)
			assert.Equal(t, tc.partitions, partitions)
			if ok { // the known counts are this circuit's: a point of l per aux variable
				assert.Equal(t, sizes.Aux, counts.L)
			}
		})
	}
}

// Names as the facade gave them: the Rust enum names, the parameter file
// prefix, one TEST-ONLY setup per sector size for PoRep's types, the
// matrices' names.
func TestNames(t *testing.T) {
	v1 := seal(abi.RegisteredSealProof_StackedDrg32GiBV1)
	assert.Equal(t, "StackedDrg32GiBV1", v1.String())
	assert.Equal(t, "TEST-ONLY-StackedDrg32GiBV1_1.params", v1.TestParamsName())
	assert.Equal(t, "StackedDrg32GiBV1", v1.MatricesName())
	prefix, err := v1.ParamsPrefix()
	require.NoError(t, err)
	assert.Equal(t, "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2", prefix)

	u := upd(abi.RegisteredUpdateProof_StackedDrg32GiBV1)
	assert.Equal(t, "StackedDrg32GiBV1", u.Name())
	assert.Equal(t, "update StackedDrg32GiBV1", u.String())
	assert.Equal(t, "TEST-ONLY-EmptySectorUpdate-StackedDrg32GiBV1.params", u.TestParamsName())
	assert.Equal(t, "EmptySectorUpdate-StackedDrg32GiBV1", u.MatricesName())
	prefix, err = u.ParamsPrefix()
	require.NoError(t, err)
	assert.Equal(t, "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18", prefix)

	// Every type of a PoRep sector size shares the V1_1 type's setup; no
	// two kinds share a setup or a matrices' name.
	setups := map[string]circuits.Type{}
	matrices := map[string]bool{}
	for _, k := range circuits.Kinds() {
		for _, typ := range k.Types() {
			c, ok := typ.Circuit()
			require.True(t, ok)
			name := typ.TestParamsName()
			if first, ok := setups[name]; ok {
				assert.Equal(t, first.Kind(), typ.Kind(), name)
				fc, _ := first.Circuit()
				assert.Equal(t, fc, c, "%v and %v share a setup, so a circuit", first, typ)
			} else {
				setups[name] = typ
			}
			assert.Equal(t, c.Type.TestParamsName(), name, "%v's setup is its circuit's", typ)
			assert.False(t, matrices[typ.MatricesName()], typ.MatricesName())
			matrices[typ.MatricesName()] = true
		}
	}
	assert.Len(t, setups, 20)

	// A type the kind does not serve answers with the circuit package's error.
	bad := seal(20)
	_, err = bad.ParamsPrefix()
	assert.ErrorContains(t, err, "unknown registered seal proof: 20")
	_, _, err = bad.CircuitSizes()
	assert.Error(t, err)
	assert.False(t, bad.OnDemandSetup())
	_, ok := bad.Circuit()
	assert.False(t, ok)
	_, _, err = upd(5).PublishedParams()
	assert.ErrorContains(t, err, "unknown update proof type 5")

	// PoSt: go-state-types' names, parameters.json's files and digests.
	w := pst(abi.RegisteredPoStProof_StackedDrgWindow32GiBV1_1)
	assert.Equal(t, "StackedDrgWindow32GiBV1_1", w.String())
	assert.Equal(t, "TEST-ONLY-StackedDrgWindow32GiBV1_1.params", w.TestParamsName())
	params, vk, err := w.PublishedParams()
	require.NoError(t, err)
	assert.Equal(t, circuits.ParamsFile{Name: "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-" +
		"0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc.params", Digest: "2cf49eb26f1fee94c85781a390ddb4c8"}, params)
	assert.Equal(t, "0f8ec542485568fa3468c066e9fed82b", vk.Digest)
	win := pst(abi.RegisteredPoStProof_StackedDrgWinning2KiBV1)
	params, _, err = win.PublishedParams()
	require.NoError(t, err)
	assert.Equal(t, "82c88066be968bb550a05e30ff6c2413", params.Digest)
	assert.Equal(t, "winning-2k", must(win.Circuit()).ID)
}

// Every served type's parameter files are Filecoin's published ones, with
// their digests.
func TestPublishedParams(t *testing.T) {
	for _, k := range circuits.Kinds() {
		for _, typ := range k.Types() {
			params, vk, err := typ.PublishedParams()
			require.NoError(t, err, typ)
			prefix, err := typ.ParamsPrefix()
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(params.Name, prefix) && strings.HasSuffix(params.Name, ".params"), params.Name)
			assert.Equal(t, strings.TrimSuffix(params.Name, ".params")+".vk", vk.Name)
			assert.Len(t, params.Digest, 32)
			assert.Len(t, vk.Digest, 32)
			assert.NotEqual(t, params.Digest, vk.Digest)
		}
	}
	params, _, err := seal(abi.RegisteredSealProof_StackedDrg2KiBV1_1).PublishedParams()
	require.NoError(t, err)
	assert.Equal(t, circuits.ParamsFile{Name: "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-" +
		"032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params", Digest: "434fb1338ecfaf0f59256f30dde4968f"}, params)
}

// The daemon's circuits: cuzk's ids, unique, each standing for a served
// type of its kind, found by id and by every type of its kind and size.
func TestCircuits(t *testing.T) {
	assert.Equal(t, []string{"porep-2k", "porep-8m", "porep-512m", "porep-32g", "porep-64g",
		"snap-2k", "snap-8m", "snap-512m", "snap-32g", "snap-64g",
		"wpost-2k", "wpost-8m", "wpost-512m", "wpost-32g", "wpost-64g",
		"winning-2k", "winning-8m", "winning-512m", "winning-32g", "winning-64g"}, circuits.CircuitIDs())
	ids := map[string]bool{}
	for _, c := range circuits.Circuits() {
		assert.False(t, ids[c.ID], "duplicate id %s", c.ID)
		ids[c.ID] = true
		got, ok := circuits.CircuitByID(c.ID)
		require.True(t, ok)
		assert.Equal(t, c, got)
		assert.True(t, c.Kind().Serves(c.Type.ID()), c.ID)
		back, ok := c.Type.Circuit()
		require.True(t, ok)
		assert.Equal(t, c, back, "a circuit's type stands for it")
	}
	_, ok := circuits.CircuitByID("porep-1t")
	assert.False(t, ok)

	for id, want := range map[abi.RegisteredSealProof]string{
		abi.RegisteredSealProof_StackedDrg2KiBV1:                        "porep-2k",
		abi.RegisteredSealProof_StackedDrg32GiBV1:                       "porep-32g",
		abi.RegisteredSealProof_StackedDrg32GiBV1_1_Feat_SyntheticPoRep: "porep-32g",
		abi.RegisteredSealProof_StackedDrg64GiBV1_2_Feat_NiPoRep:        "porep-64g",
	} {
		c, ok := seal(id).Circuit()
		require.True(t, ok)
		assert.Equal(t, want, c.ID)
	}
	c, ok := upd(abi.RegisteredUpdateProof_StackedDrg32GiBV1).Circuit()
	require.True(t, ok)
	assert.Equal(t, "snap-32g", c.ID)
	assert.Equal(t, abi.RegisteredSealProof_StackedDrg32GiBV1_1, abi.RegisteredSealProof(must(circuits.CircuitByID("porep-32g")).Type.ID()))

	// The daemon's proof kinds are cuzk.v1 ProofKind names, one per kind.
	kinds := map[string]bool{}
	for _, k := range circuits.Kinds() {
		assert.Contains(t, []string{"POREP_SEAL_COMMIT", "SNAP_DEALS_UPDATE", "WINDOW_POST_PARTITION", "WINNING_POST"}, k.DaemonProofKind)
		assert.False(t, kinds[k.DaemonProofKind])
		kinds[k.DaemonProofKind] = true
	}
	assert.Equal(t, "POREP_SEAL_COMMIT", circuits.PoRep.DaemonProofKind)
	assert.Equal(t, "SNAP_DEALS_UPDATE", circuits.SnapDeals.DaemonProofKind)
}

func seal(t abi.RegisteredSealProof) circuits.Type  { return circuits.PoRep.Type(int64(t)) }
func upd(t abi.RegisteredUpdateProof) circuits.Type { return circuits.SnapDeals.Type(int64(t)) }

// pst is t with its kind, as circuits.Find gives it.
func pst(t abi.RegisteredPoStProof) circuits.Type {
	typ, _ := circuits.Find(circuits.PoStProof, int64(t))
	return typ
}
func must(c circuits.Circuit, ok bool) circuits.Circuit {
	if !ok {
		panic("no circuit")
	}
	return c
}
