package stackedtest_test

import (
	"context"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/merkle"
	"github.com/gpuc2/gpuc2/synth/stacked"
	"github.com/gpuc2/gpuc2/synth/stacked/stackedtest"
)

// nativeCheck verifies a witness without the circuit: paths against the
// roots, labels from the parent columns, the encoding, comm_r.
func nativeCheck(t *testing.T, p stacked.Params, w *stacked.Partition) {
	t.Helper()
	require.NoError(t, w.Validate(p))
	assert.Equal(t, stacked.CommR(w.CommC, w.CommRLast), w.CommR)
	for i := range w.Challenges {
		c := &w.Challenges[i]
		assert.True(t, c.TreeD.Verify(merkle.SHA256Hash, c.DataLeaf, w.CommD), "challenge %d tree D", i)
		col := func(name string, cl *stacked.Column) {
			h, err := stacked.ColumnHash(cl.Rows)
			require.NoError(t, err)
			assert.True(t, cl.Path.Verify(merkle.PoseidonHash, h, w.CommC), "challenge %d %s", i, name)
		}
		col("own column", &c.ColumnC)
		for k := range c.DRG {
			col("DRG", &c.DRG[k])
		}
		for k := range c.Exp {
			col("exp", &c.Exp[k])
		}
		for l := 1; l <= p.Layers; l++ {
			var ps []fr.Element
			for k := range c.DRG {
				ps = append(ps, c.DRG[k].Rows[l-1])
			}
			if l > 1 {
				for k := range c.Exp {
					ps = append(ps, c.Exp[k].Rows[l-2])
				}
			}
			lab, err := stacked.Label(&w.ReplicaID, uint32(l), c.Node, ps)
			require.NoError(t, err)
			assert.Equal(t, lab, c.ColumnC.Rows[l-1], "challenge %d layer %d label", i, l)
		}
		var enc fr.Element
		enc.Add(&c.ColumnC.Rows[p.Layers-1], &c.DataLeaf)
		assert.True(t, c.TreeR.Verify(merkle.PoseidonHash, enc, w.CommRLast), "challenge %d tree R", i)
	}
}

func TestGenerateConsistent(t *testing.T) {
	for _, p := range []stacked.Params{stacked.Params2KiB, stacked.Params8MiB, stacked.Params512MiB, stacked.Params32GiB, stacked.Params64GiB,
		stacked.TestCircuitParams(merkle.Shape{Base: 8, Sub: 4, Top: 2})} {
		// Many seeds for the small shapes, where challenges collide with
		// each other and with parents.
		n := uint64(20)
		if p.Layers == 11 || testing.Short() {
			n = 2
		}
		for seed := uint64(0); seed < n; seed++ {
			w, err := stackedtest.Partition(p, seed)
			require.NoError(t, err)
			nativeCheck(t, p, w)
		}
	}
}

func TestGenerateDeterministic(t *testing.T) {
	a, err := stackedtest.Partition(stacked.Params32GiB, 42)
	require.NoError(t, err)
	b, err := stackedtest.Partition(stacked.Params32GiB, 42)
	require.NoError(t, err)
	assert.Equal(t, a, b)
	c, err := stackedtest.Partition(stacked.Params32GiB, 43)
	require.NoError(t, err)
	assert.NotEqual(t, a.CommD, c.CommD)
}

// Several partitions of one sector share their trees, challenges may
// repeat and be each other's parents, and caller-given challenges and
// parents are used as given.
func TestGenerateSector(t *testing.T) {
	p := stacked.Params2KiB
	parents := func(n uint64) (drg [6]uint64, exp [8]uint64, err error) {
		for k := range drg {
			drg[k] = n ^ 1 // 4 and 5 are each other's parents
		}
		for k := range exp {
			exp[k] = (n*7 + uint64(k)) % 64
		}
		return
	}
	ws, err := stackedtest.Generate(p, stackedtest.Options{Seed: 1, Parents: parents,
		Challenges: [][]uint64{{5, 6}, {6, 40}, {4, 4}}})
	require.Error(t, err, "4 and 5 are challenged and each other's DRG parents: a cycle in layer 1")
	assert.ErrorIs(t, err, stackedtest.ErrOptions)

	below := func(n uint64) (drg [6]uint64, exp [8]uint64, err error) {
		for k := range drg {
			drg[k] = (n - 1 - uint64(k)%n) // below n; 4 is a parent of 5
		}
		for k := range exp {
			exp[k] = (n*7 + uint64(k)) % 64
		}
		return
	}
	ws, err = stackedtest.Generate(p, stackedtest.Options{Seed: 1, Parents: below,
		Challenges: [][]uint64{{5, 6}, {6, 40}, {4, 4}}})
	require.NoError(t, err)
	require.Len(t, ws, 3)
	for k, w := range ws {
		nativeCheck(t, p, w)
		assert.Equal(t, ws[0].CommD, w.CommD)
		assert.Equal(t, ws[0].CommC, w.CommC)
		assert.Equal(t, ws[0].CommRLast, w.CommRLast)
		assert.Equal(t, ws[0].ReplicaID, w.ReplicaID)
		drg, exp, _ := below(w.Challenges[0].Node)
		for j := range drg {
			assert.Equal(t, drg[j], w.Challenges[0].DRG[j].Path.LeafIndex(), "partition %d", k)
		}
		for j := range exp {
			assert.Equal(t, exp[j], w.Challenges[0].Exp[j].Path.LeafIndex(), "partition %d", k)
		}
	}
	// Node 5's DRG parent 4 is challenged too: its column holds 4's labels.
	assert.Equal(t, ws[2].Challenges[0].ColumnC.Rows, ws[0].Challenges[0].DRG[0].Rows)
	if testing.Short() {
		return
	}
	for _, w := range ws {
		ch := synth.NewChecker()
		require.NoError(t, (&stacked.Circuit{Params: p, Witness: w}).Synthesize(context.Background(), ch))
		assert.NoError(t, ch.Err())
	}
}

func TestGenerateOptionErrors(t *testing.T) {
	p := stacked.Params2KiB
	_, err := stackedtest.Generate(p, stackedtest.Options{Challenges: [][]uint64{{1}}})
	assert.ErrorIs(t, err, stackedtest.ErrOptions)
	_, err = stackedtest.Generate(p, stackedtest.Options{Challenges: [][]uint64{{1, 64}}})
	assert.ErrorIs(t, err, stackedtest.ErrOptions)
	bad := func(uint64) (drg [6]uint64, exp [8]uint64, err error) { drg[0] = 100; return }
	_, err = stackedtest.Generate(p, stackedtest.Options{Parents: bad})
	assert.ErrorIs(t, err, stackedtest.ErrOptions)
}
