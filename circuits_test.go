package gpuc2_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/internal/circuits"
)

// Circuits is the table's list, once each and in its order, with each
// circuit's kind and sector size; each proof type's circuit is its kind's
// of its sector size.
func TestCircuitsListed(t *testing.T) {
	table := circuits.Circuits()
	got := gpuc2.Circuits()
	require.Len(t, got, len(table))
	seen := map[string]bool{}
	for i, c := range got {
		want := table[i]
		assert.Equal(t, want.ID, c.ID)
		assert.False(t, seen[c.ID], "%s listed twice", c.ID)
		seen[c.ID] = true
		assert.Equal(t, want.Kind().DaemonProofKind, c.ProofKind)
		assert.Equal(t, want.Kind().Name, c.Kind)
		size, err := want.Type.SectorSize()
		require.NoError(t, err)
		assert.Equal(t, abi.SectorSize(size), c.SectorSize)
	}
	assert.Equal(t, circuits.CircuitIDs(), ids(got))

	for p := range abi.SealProofInfos { // every seal type: V1, V1_1, synthetic, NI
		c, ok := gpuc2.SealProofCircuit(p)
		require.True(t, ok, "%d", p)
		size, err := p.SectorSize()
		require.NoError(t, err)
		assert.Equal(t, size, c.SectorSize)
		assert.Equal(t, "POREP_SEAL_COMMIT", c.ProofKind)
	}
	for u, id := range []string{"snap-2k", "snap-8m", "snap-512m", "snap-32g", "snap-64g"} {
		c, ok := gpuc2.UpdateProofCircuit(abi.RegisteredUpdateProof(u))
		require.True(t, ok, "%d", u)
		assert.Equal(t, id, c.ID)
		assert.Equal(t, "SNAP_DEALS_UPDATE", c.ProofKind)
	}
	_, ok := gpuc2.SealProofCircuit(99)
	assert.False(t, ok)
	_, ok = gpuc2.UpdateProofCircuit(5)
	assert.False(t, ok)
}

func ids(cs []gpuc2.CircuitInfo) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

// A circuit id stands for its table type: FindCircuitParams and
// CircuitTestParamsPath answer as FindParams, FindUpdateParams,
// TestParamsPath and UpdateTestParamsPath do for it, whether the files are
// there or not.
func TestCircuitParamsAsPerKind(t *testing.T) {
	full, empty := t.TempDir(), t.TempDir()
	for _, c := range circuits.Circuits() {
		prefix, err := c.Type.ParamsPrefix()
		require.NoError(t, err)
		for _, ext := range []string{".params", ".vk"} {
			require.NoError(t, os.WriteFile(filepath.Join(full, prefix+"test"+ext), nil, 0o644))
		}
	}
	for _, c := range circuits.Circuits() {
		t.Run(c.ID, func(t *testing.T) {
			findPerKind, testPerKind := gpuc2.FindParams, gpuc2.TestParamsPath
			switch c.Kind() {
			case circuits.SnapDeals:
				findPerKind = func(dir string, _ abi.RegisteredSealProof) (string, string, error) {
					return gpuc2.FindUpdateParams(dir, abi.RegisteredUpdateProof(c.Type.ID()))
				}
				testPerKind = func(dir string, _ abi.RegisteredSealProof) string {
					return gpuc2.UpdateTestParamsPath(dir, abi.RegisteredUpdateProof(c.Type.ID()))
				}
			case circuits.WindowPoSt, circuits.WinningPoSt:
				findPerKind = func(dir string, _ abi.RegisteredSealProof) (string, string, error) {
					return gpuc2.FindPoStParams(dir, abi.RegisteredPoStProof(c.Type.ID()))
				}
				testPerKind = func(dir string, _ abi.RegisteredSealProof) string {
					return gpuc2.PoStTestParamsPath(dir, abi.RegisteredPoStProof(c.Type.ID()))
				}
			}
			typ := abi.RegisteredSealProof(c.Type.ID()) // ignored by the other kinds' closures
			for _, dir := range []string{full, empty} {
				params, vk, err := gpuc2.FindCircuitParams(dir, c.ID)
				wantParams, wantVK, wantErr := findPerKind(dir, typ)
				assert.Equal(t, wantParams, params)
				assert.Equal(t, wantVK, vk)
				if dir == full {
					assert.NoError(t, err)
					assert.True(t, strings.HasPrefix(filepath.Base(params), must(c.Type.ParamsPrefix())))
				} else {
					require.Error(t, wantErr)
					assert.ErrorIs(t, err, gpuc2.ErrParamsMissing)
					assert.EqualError(t, err, wantErr.Error())
				}
			}
			path := gpuc2.CircuitTestParamsPath("/cache", c.ID)
			assert.Equal(t, testPerKind("/cache", typ), path)
			assert.Equal(t, c.Type.TestParamsName(), filepath.Base(path))
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// An unknown circuit id is bad input, quoted (cut to 64 bytes) with the
// ids served; CircuitTestParamsPath has no path for it. Nothing is loaded.
func TestCircuitUnknownID(t *testing.T) {
	ctx := context.Background()
	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: t.TempDir(), Backend: gpuc2.BackendCPU})
	require.NoError(t, err)
	defer p.Close()
	long := strings.Repeat("x", 1<<20)
	for _, id := range []string{"porep-1t", "", "POREP-2K", long} {
		_, _, findErr := gpuc2.FindCircuitParams(t.TempDir(), id)
		for name, err := range map[string]error{
			"PreloadCircuit":    p.PreloadCircuit(ctx, id),
			"EvictCircuit":      p.EvictCircuit(id),
			"FindCircuitParams": findErr,
		} {
			require.ErrorIs(t, err, gpuc2.ErrBadInput, name)
			assert.Contains(t, err.Error(), "unknown circuit id", name)
			assert.Contains(t, err.Error(), strings.Join(circuits.CircuitIDs(), ", "), name)
			assert.Less(t, len(err.Error()), 500, name) // the 20 ids served and a 64-byte cut of the id
			if id != long {
				assert.Contains(t, err.Error(), `"`+id+`"`, name)
			} else {
				assert.Contains(t, err.Error(), "(1048576 bytes)", name)
			}
		}
		assert.Empty(t, gpuc2.CircuitTestParamsPath("/cache", id))
	}
	assert.Empty(t, p.Status().Keys)
}

// PreloadCircuit loads the file of the type standing for the circuit,
// which Status lists with the circuit's id; EvictCircuit releases it,
// whichever of the circuit's types it was loaded for (here V1, which the
// V1_1 type standing for porep-2k shares its file with). On the CPU, with
// the tests' shared 2 KiB TEST-ONLY setup.
func TestPreloadEvictCircuit(t *testing.T) {
	ctx := context.Background()
	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: t.TempDir(), TestParamsDir: testParamsDir(t), Backend: gpuc2.BackendCPU})
	require.NoError(t, err)
	defer p.Close()
	v1, v11 := abi.RegisteredSealProof_StackedDrg2KiBV1, abi.RegisteredSealProof_StackedDrg2KiBV1_1

	require.NoError(t, p.PreloadCircuit(ctx, "porep-2k"))
	st := p.Status()
	require.Len(t, st.Keys, 1)
	k := st.Keys[0]
	assert.Equal(t, []string{"porep-2k"}, k.Circuits)
	assert.Equal(t, []abi.RegisteredSealProof{v11}, k.Types)
	assert.Empty(t, k.UpdateTypes)
	assert.Equal(t, gpuc2.CircuitTestParamsPath(testParamsDir(t), "porep-2k"), k.Path)
	assert.Equal(t, []abi.RegisteredSealProof{v11}, st.Loaded)
	require.NoError(t, p.PreloadCircuit(ctx, "porep-2k"), "loaded already: no error")
	assert.Len(t, p.Status().Keys, 1)

	require.NoError(t, p.EvictCircuit("porep-2k"))
	assert.Empty(t, p.Status().Keys)
	assert.Empty(t, p.Status().Loaded)
	require.NoError(t, p.EvictCircuit("porep-2k"), "not loaded: no error")
	require.NoError(t, p.EvictCircuit("snap-2k"), "never loaded: no error")

	require.NoError(t, p.Preload(ctx, v1))
	st = p.Status()
	require.Len(t, st.Keys, 1)
	assert.Equal(t, []string{"porep-2k"}, st.Keys[0].Circuits, "V1's circuit is V1_1's")
	assert.Equal(t, []abi.RegisteredSealProof{v1}, st.Keys[0].Types)
	require.NoError(t, p.EvictCircuit("porep-2k"))
	assert.Empty(t, p.Status().Keys, "the file loaded for V1 is the circuit's")
}
