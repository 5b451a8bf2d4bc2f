package por_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/gadgets/boolean"
	"github.com/gpuc2/gpuc2/synth/gadgets/num"
	"github.com/gpuc2/gpuc2/synth/gadgets/por"
	"github.com/gpuc2/gpuc2/synth/internal/testcs"
	"github.com/gpuc2/gpuc2/synth/merkle"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func randLeaves(r *rand.Rand, n int) []fr.Element {
	out := make([]fr.Element, n)
	for i := range out {
		// Below 2^254, as tree-D leaves (fr32) are.
		out[i].SetUint64(r.Uint64())
		var hi fr.Element
		hi.SetUint64(r.Uint64() >> 2)
		hi.Mul(&hi, &num.Pow2[192])
		out[i].Add(&out[i], &hi)
	}
	return out
}

type treeCase struct {
	name   string
	leaves int
	shape  merkle.Shape
	sha    bool
}

func (tc treeCase) tree(t testing.TB, ls []fr.Element) *merkle.Tree {
	var tr *merkle.Tree
	var err error
	if tc.sha {
		tr, err = merkle.NewSHA256(ls)
	} else {
		tr, err = merkle.NewPoseidon(ls, tc.shape)
	}
	require.NoError(t, err)
	return tr
}

func hasher(tc treeCase, b *boolean.Builder) por.Hasher {
	if tc.sha {
		return por.NewSHA256Hasher(b)
	}
	return por.NewPoseidonHasher(b)
}

// The circuits of storage-proofs-core tests/por_circuit.rs: leaf and root as
// values (allocated by the gadget), 64 × base-tree-count leaves.
func TestPinnedPoRCounts(t *testing.T) {
	tests := []struct {
		treeCase
		private bool
		rows    int
	}{
		{treeCase{"poseidon 8", 64, merkle.Shape{Base: 8}, false}, false, 1063},
		{treeCase{"poseidon 8", 64, merkle.Shape{Base: 8}, false}, true, 1062},
		{treeCase{"poseidon 2", 64, merkle.Shape{Base: 2}, false}, false, 1887},
		{treeCase{"poseidon 2", 64, merkle.Shape{Base: 2}, false}, true, 1886},
		{treeCase{"poseidon 4", 64, merkle.Shape{Base: 4}, false}, false, 1164},
		{treeCase{"poseidon 8-2", 128, merkle.Shape{Base: 8, Sub: 2}, false}, false, 1377},
		{treeCase{"poseidon 8-8", 512, merkle.Shape{Base: 8, Sub: 8}, false}, false, 1593},
		{treeCase{"poseidon 8-4-2", 512, merkle.Shape{Base: 8, Sub: 4, Top: 2}, false}, false, 1764},
		{treeCase{"poseidon 8-8-2", 1024, merkle.Shape{Base: 8, Sub: 8, Top: 2}, false}, false, 1907},
		{treeCase{"poseidon 8-2-4", 512, merkle.Shape{Base: 8, Sub: 2, Top: 4}, false}, false, 1764},
		{treeCase{"sha256 2", 64, merkle.Shape{Base: 2}, true}, false, 272295},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s private=%v", tc.name, tc.private), func(t *testing.T) {
			if tc.sha && testing.Short() {
				t.Skip("large")
			}
			ls := randLeaves(r, tc.leaves)
			tr := tc.tree(t, ls)
			idx := r.IntN(tc.leaves)
			path, err := tr.Path(idx)
			require.NoError(t, err)
			ch := synth.NewChecker()
			b := boolean.NewBuilder(ch)
			res, err := por.Synthesize(b, hasher(tc.treeCase, b), por.Val(ls[idx]), path, por.Val(tr.Root()), tc.private)
			require.NoError(t, err)
			require.NoError(t, ch.Err())
			st := ch.Stats()
			assert.Equal(t, tc.rows, st.Constraints)
			wantInputs := 3
			if tc.private {
				wantInputs = 2
			}
			assert.Equal(t, wantInputs, st.Inputs)
			var want fr.Element
			want.SetUint64(uint64(idx))
			assert.Equal(t, want, ch.Value(res.Index.Var))
			assert.Equal(t, tr.Root(), res.Computed.Value)

			// A wrong root fails the equality row.
			bad := synth.NewChecker()
			bb := boolean.NewBuilder(bad)
			_, err = por.Synthesize(bb, hasher(tc.treeCase, bb), por.Val(ls[idx]), path, por.Val(ls[idx]), tc.private)
			require.NoError(t, err)
			assert.Error(t, bad.Err())
		})
	}
}

// M-* fingerprints of CIRCUIT-SPEC-POREP.md §9.3: leaf and root allocated
// first, then the inclusion with Var leaf and root, private.
func TestDigests(t *testing.T) {
	tests := []struct {
		treeCase
		aux, rows int
		digest    string
	}{
		{treeCase{"M-8x2", 64, merkle.Shape{Base: 8}, false}, 1076, 1062,
			"5e8fb3da26a3266c97c0069c5648ae6cb68ef45fcd6c68205931688947034cee"},
		{treeCase{"M-sha-2x6", 64, merkle.Shape{Base: 2}, true}, 272012, 272294,
			"4f128b9c242c8221b6216b4586633c5c7e65b5acdc035684efaac338fd4b5159"},
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.sha && testing.Short() {
				t.Skip("large")
			}
			ls := randLeaves(r, tc.leaves)
			tr := tc.tree(t, ls)
			idx := r.IntN(tc.leaves)
			path, err := tr.Path(idx)
			require.NoError(t, err)
			rec := synth.NewRecorder()
			b := boolean.NewBuilder(rec)
			leaf := num.Alloc(b, ls[idx])
			root := num.Alloc(b, tr.Root())
			_, err = por.Synthesize(b, hasher(tc.treeCase, b), por.Var(leaf), path, por.Var(root), true)
			require.NoError(t, err)
			assert.Equal(t, 2, len(rec.Inputs))
			assert.Equal(t, tc.aux, len(rec.Aux))
			assert.Equal(t, tc.rows, rec.NumRows())
			assert.Equal(t, tc.digest, testcs.Digest(rec))
		})
	}
}

// Every insert output for every index, and the pinned insert costs 2, 8, 22.
func TestInsert(t *testing.T) {
	for _, tc := range []struct{ arity, rows int }{{2, 2}, {4, 8}, {8, 22}} {
		for pos := 0; pos < tc.arity; pos++ {
			ch := synth.NewChecker()
			b := boolean.NewBuilder(ch)
			var x fr.Element
			x.SetUint64(1000)
			xn := num.Alloc(b, x)
			nb := 0
			for 1<<uint(nb) < tc.arity {
				nb++
			}
			bits := make([]boolean.Boolean, nb)
			for j := range bits {
				bits[j] = b.AllocBit(pos>>uint(j)&1 == 1)
			}
			sibs := make([]num.Num, tc.arity-1)
			for j := range sibs {
				var v fr.Element
				v.SetUint64(uint64(j + 1))
				sibs[j] = num.Alloc(b, v)
			}
			before := ch.Stats().Constraints
			out, err := por.Insert(b, xn, bits, sibs)
			require.NoError(t, err)
			assert.Equal(t, tc.rows, ch.Stats().Constraints-before)
			k := 0
			for j, o := range out {
				want := x
				if j != pos {
					want = sibs[k].Value
					k++
				}
				assert.Equal(t, want, o.Value, "arity %d pos %d out %d", tc.arity, pos, j)
				assert.Equal(t, want, ch.Value(o.Var))
			}
			require.NoError(t, ch.Err())
		}
	}
}

func TestCorruptedWitnessFails(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ls := randLeaves(r, 64)
	tr, err := merkle.NewPoseidon(ls, merkle.Shape{Base: 8})
	require.NoError(t, err)
	path, err := tr.Path(37)
	require.NoError(t, err)
	for n := 0; n < 1076; n += 5 {
		ch := synth.NewChecker()
		cs := &testcs.Corrupt{ConstraintSystem: ch, N: n}
		b := boolean.NewBuilder(cs)
		_, err := por.Synthesize(b, por.NewPoseidonHasher(b), por.Val(ls[37]), path, por.Val(tr.Root()), false)
		require.NoError(t, err)
		assert.Error(t, ch.Err(), "aux %d corrupted", n)
	}
}

func TestBadPath(t *testing.T) {
	b := boolean.NewBuilder(synth.NewChecker())
	_, err := por.Synthesize(b, por.NewPoseidonHasher(b), por.Val(fr.Element{}),
		merkle.Path{{Siblings: make([]fr.Element, 2), Index: 0}}, por.Val(fr.Element{}), true)
	assert.ErrorIs(t, err, por.ErrArity)
}

// The production tree R/C shapes through random paths (no 2^30-leaf tree
// needed): M-8x10 (32 GiB) and M-8x10+2 (64 GiB) of CIRCUIT-SPEC-POREP.md §9.3.
func TestProductionShapeDigests(t *testing.T) {
	tests := []struct {
		name      string
		arities   []int
		aux, rows int
		digest    string
	}{
		{"M-8x10", []int{8, 8, 8, 8, 8, 8, 8, 8, 8, 8}, 5372, 5302,
			"6826f79fdeb1c94835c7ccf85d6d7d3ddb17d264ce33aa55e06dbee24cdbcff6"},
		{"M-8x10+2", []int{8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 2}, 5687, 5616,
			"479fd7b79e7767aedd8c1d60430f459da3727ebac2672a75f9aa71d2d4c8d5a4"},
	}
	r := rand.New(rand.NewPCG(7, 8))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := make(merkle.Path, len(tc.arities))
			for l, a := range tc.arities {
				path[l] = merkle.PathElement{Siblings: randLeaves(r, a-1), Index: r.IntN(a)}
			}
			leaf := randLeaves(r, 1)[0]
			root, err := path.Compute(merkle.PoseidonHash, leaf)
			require.NoError(t, err)
			for _, rec := range []bool{false, true} {
				var cs synth.ConstraintSystem
				var recorder *synth.Recorder
				checker := synth.NewChecker()
				if rec {
					recorder = synth.NewRecorder()
					cs = recorder
				} else {
					cs = checker
				}
				b := boolean.NewBuilder(cs)
				ln := num.Alloc(b, leaf)
				rn := num.Alloc(b, root)
				res, err := por.Synthesize(b, por.NewPoseidonHasher(b), por.Var(ln), path, por.Var(rn), true)
				require.NoError(t, err)
				if rec {
					assert.Equal(t, tc.aux, len(recorder.Aux))
					assert.Equal(t, tc.rows, recorder.NumRows())
					assert.Equal(t, tc.digest, testcs.Digest(recorder))
				} else {
					require.NoError(t, checker.Err())
					var idx fr.Element
					idx.SetUint64(path.LeafIndex())
					assert.Equal(t, idx, res.Index.Value)
				}
			}
		})
	}
}
