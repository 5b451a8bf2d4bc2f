package aggregate

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// envCrossCheck names a folder to write the fixture into for the bellperson
// harness (testdata/bellperson-xcheck: a Rust program that runs bellperson
// d1fa22cb's aggregate_proofs and verify_aggregate_proof on it): the SRS in bellperson's
// format (srs.bin), the 8 proofs compressed A ‖ B ‖ C (proofs.bin), the
// verifying key α₁ ‖ β₂ ‖ γ₂ ‖ δ₂ ‖ u32 LE count ‖ IC (vk.bin), the inputs
// as u32 LE per-proof count ‖ Fr 32 bytes LE each (inputs.bin), the
// transcript include (include.bin), and gpuc2's aggregates
// (agg_v{1,2}_{2,4,8}.go.bin); then the same for 64 proofs in its folder
// 64.
const envCrossCheck = "GPUC2_SNARKPACK_XCHECK"

// knownAnswers are the SHA-256 of the aggregates of the fixture's first n
// proofs under the TEST-ONLY SRS of seed 7 with transcript include
// "seeds and comm_rs", as bellperson d1fa22cb's aggregate_proofs wrote
// them (blstrs 0.7.1, blst dece82ea) from the files envCrossCheck writes;
// its verify_aggregate_proof accepted each and refused it under the other
// version and with swapped or altered inputs or another include.
var knownAnswers = map[string]string{
	"agg_v1_2": "346aa51e60dd649c65e2d4e59e0b94173246fb021da8d29bc8f3b188f410b212",
	"agg_v1_4": "325c568b6132e875e076c56119a80189bed6deb8f581d11d7b96928a7dfc06e1",
	"agg_v1_8": "59d4606af5941a6dcb074d75a959de9cea3c1a6eb897bec8558fd9cc20e0e4e5",
	"agg_v2_2": "7ada4e4ffd678e980ccdde9ec22de7901a2c915d87a868cb033470b9bf7b73ba",
	"agg_v2_4": "3d3e09ee89004f9ae67e0b4cc4f97e85e987b58a0f840a107cf4e17db17a60b0",
	"agg_v2_8": "5f4087c98ced81b95d492e9b92e55f94768962a342d889000b926200fbcc8e6a",
	// 64 proofs: bigFixture.
	"agg_v1_64": "60122a3a37f1608fea9669935c322003671e51350f63a68f94e9935d22e7365f",
	"agg_v2_64": "b46f6b13fea0537bdc2be0fbb188438ad223a656654b33a6fdef286a59ef0f7e",
}

// bigFixture is 64 proofs, the fixture's 8 repeated, under a TEST-ONLY SRS
// of seed 7 for 64: six GIPA rounds.
func bigFixture(t *testing.T, f *fixture) *fixture {
	t.Helper()
	const n = 64
	big := *f
	big.proofs, big.inputs = nil, nil
	for i := range n {
		big.proofs = append(big.proofs, f.proofs[i%len(f.proofs)])
		big.inputs = append(big.inputs, f.inputs[i%len(f.inputs)])
	}
	var err error
	big.gen, err = TestOnlySRS(rand.NewChaCha8([32]byte{7}), n)
	require.NoError(t, err)
	big.psrs, big.vsrs, err = big.gen.Specialize(n)
	require.NoError(t, err)
	return &big
}

func TestBellpersonKnownAnswers(t *testing.T) {
	f := testFixture(t)
	big := bigFixture(t, f)
	dir := os.Getenv(envCrossCheck)
	if dir != "" {
		writeCrossCheck(t, f, dir)
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "64"), 0o755))
		writeCrossCheck(t, big, filepath.Join(dir, "64"))
	}
	got := map[string]string{}
	for _, c := range []struct {
		f    *fixture
		n    int
		path string
	}{{f, 2, ""}, {f, 4, ""}, {f, 8, ""}, {big, 64, "64"}} {
		for _, v := range []Version{V1, V2} {
			f, n := c.f, c.n
			agg, err := Aggregate(context.Background(), f.psrs, f.proofs[:n], include, v)
			require.NoError(t, err)
			b := mustMarshal(t, agg)
			name := fmt.Sprintf("agg_v%d_%d", int(v), n)
			sum := sha256.Sum256(b)
			got[name] = hex.EncodeToString(sum[:])
			if dir != "" {
				require.NoError(t, os.WriteFile(filepath.Join(dir, c.path, name+".go.bin"), b, 0o644))
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(got)) {
		t.Logf("%s %s", name, got[name])
		require.Equal(t, knownAnswers[name], got[name], name)
	}
}

func writeCrossCheck(t *testing.T, f *fixture, dir string) {
	t.Helper()
	w, err := os.Create(filepath.Join(dir, "srs.bin"))
	require.NoError(t, err)
	_, err = f.gen.WriteTo(w)
	require.NoError(t, err)
	require.NoError(t, w.Close())

	var proofs []byte
	for _, p := range f.proofs {
		a, b, c := p.A.Bytes(), p.B.Bytes(), p.C.Bytes()
		proofs = append(append(append(proofs, a[:]...), b[:]...), c[:]...)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "proofs.bin"), proofs, 0o644))

	a, b, g, d := f.vk.AlphaG1.Bytes(), f.vk.BetaG2.Bytes(), f.vk.GammaG2.Bytes(), f.vk.DeltaG2.Bytes()
	vk := slices.Concat(a[:], b[:], g[:], d[:])
	vk = binary.LittleEndian.AppendUint32(vk, uint32(len(f.vk.IC)))
	for _, p := range f.vk.IC {
		e := p.Bytes()
		vk = append(vk, e[:]...)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "vk.bin"), vk, 0o644))

	in := binary.LittleEndian.AppendUint32(nil, uint32(len(f.inputs[0])))
	for _, xs := range f.inputs {
		for _, x := range xs {
			e := x.Bytes()
			slices.Reverse(e[:])
			in = append(in, e[:]...)
		}
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "inputs.bin"), in, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "include.bin"), include, 0o644))
}
