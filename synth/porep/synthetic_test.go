package porep_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/synth/hash/poseidon"
	"github.com/gpuc2/gpuc2/synth/merkle"
	"github.com/gpuc2/gpuc2/synth/porep"
)

var testSeed = [32]byte{'g', 'p', 'u', 'c', '2'}

// syntheticProofs are the proof types TestSyntheticC1 generates: the small
// sizes always; unless -short, 32 and 64 GiB (a few seconds each on 2 cores)
// and the dense 8 MiB synthetic-PoRep and NI-PoRep sectors (about 17 s of
// CPU each).
func syntheticProofs() []abi.RegisteredSealProof {
	ps := []abi.RegisteredSealProof{
		abi.RegisteredSealProof_StackedDrg2KiBV1,
		abi.RegisteredSealProof_StackedDrg2KiBV1_1,
		abi.RegisteredSealProof_StackedDrg8MiBV1_1,
		abi.RegisteredSealProof_StackedDrg512MiBV1_1,
		abi.RegisteredSealProof_StackedDrg2KiBV1_1_Feat_SyntheticPoRep,
		abi.RegisteredSealProof_StackedDrg2KiBV1_2_Feat_NiPoRep,
	}
	if !testing.Short() {
		ps = append(ps,
			abi.RegisteredSealProof_StackedDrg32GiBV1_1,
			abi.RegisteredSealProof_StackedDrg64GiBV1_1,
			abi.RegisteredSealProof_StackedDrg8MiBV1_1_Feat_SyntheticPoRep,
			abi.RegisteredSealProof_StackedDrg8MiBV1_2_Feat_NiPoRep)
	}
	return ps
}

func synthetic(t testing.TB, p abi.RegisteredSealProof) *porep.C1 {
	t.Helper()
	c, err := porep.SyntheticC1(context.Background(), p, testMiner, testSector, testSeed)
	require.NoError(t, err)
	return c
}

func TestSyntheticC1(t *testing.T) {
	ctx := context.Background()
	for _, p := range syntheticProofs() {
		t.Run(porep.ProofName(p), func(t *testing.T) {
			c := synthetic(t, p)
			if s, _ := p.SectorSize(); s <= 512<<20 { // a full check takes seconds at 32 GiB
				require.NoError(t, c.Check(testMiner, testSector))
				require.NoError(t, c.CheckHashes(ctx))
			}

			js, err := c.EncodeJSON()
			require.NoError(t, err)
			got, err := porep.ParseC1(js)
			require.NoError(t, err)
			assert.Equal(t, c, got, "JSON")
			require.NoError(t, got.CheckAll(ctx, testMiner, testSector))

			env, err := porep.EncodeCommit2In(c, testSector)
			require.NoError(t, err)
			got, err = porep.ParseC1(env)
			require.NoError(t, err)
			assert.Equal(t, c, got, "envelope")

			got, err = porep.ParseC1Bincode(c.EncodeBincode(), p)
			require.NoError(t, err)
			assert.Equal(t, c, got, "bincode")

			// another miner's sector: same data, other replica_id
			assert.ErrorIs(t, c.CheckAll(ctx, testMiner+1, testSector), porep.ErrBadC1)
		})
	}
}

func TestSyntheticC1Deterministic(t *testing.T) {
	p := abi.RegisteredSealProof_StackedDrg8MiBV1_1
	a, err := synthetic(t, p).EncodeJSON()
	require.NoError(t, err)
	b, err := synthetic(t, p).EncodeJSON()
	require.NoError(t, err)
	assert.Equal(t, a, b, "same seed, same bytes")

	other := testSeed
	other[31] ^= 1
	c, err := porep.SyntheticC1(context.Background(), p, testMiner, testSector, other)
	require.NoError(t, err)
	js, err := c.EncodeJSON()
	require.NoError(t, err)
	assert.NotEqual(t, a, js)
}

func TestSyntheticC1Errors(t *testing.T) {
	ctx := context.Background()
	for _, p := range []abi.RegisteredSealProof{ // challenges from comm_r, too large to label in full
		abi.RegisteredSealProof_StackedDrg512MiBV1_1_Feat_SyntheticPoRep,
		abi.RegisteredSealProof_StackedDrg32GiBV1_1_Feat_SyntheticPoRep,
		abi.RegisteredSealProof_StackedDrg512MiBV1_2_Feat_NiPoRep,
		abi.RegisteredSealProof_StackedDrg32GiBV1_2_Feat_NiPoRep,
		abi.RegisteredSealProof_StackedDrg64GiBV1_2_Feat_NiPoRep,
	} {
		_, err := porep.SyntheticC1(ctx, p, testMiner, testSector, testSeed)
		assert.ErrorIs(t, err, errors.ErrUnsupported, porep.ProofName(p))
		assert.ErrorContains(t, err, "every node must be labelled", porep.ProofName(p))
	}
	_, err := porep.SyntheticC1(ctx, 20, testMiner, testSector, testSeed)
	assert.ErrorIs(t, err, porep.ErrUnknownProof)

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = porep.SyntheticC1(cancelled, abi.RegisteredSealProof_StackedDrg2KiBV1_1, testMiner, testSector, testSeed)
	assert.ErrorIs(t, err, context.Canceled)
	c := synthetic(t, abi.RegisteredSealProof_StackedDrg2KiBV1_1)
	assert.ErrorIs(t, c.CheckAll(cancelled, testMiner, testSector), context.Canceled)
}

// A synthetic-PoRep C1 answers the challenges derived from its own comm_r:
// for each partition, the synthetic challenges (a set of min(nodes, 2^18)
// derived from replica_id and comm_r) at the indexes that the seed selects,
// as rust-fil-proofs' SynthChallenges::derive_indexes picks the proofs of a
// partition out of the stored synthetic ones (stacked/vanilla/proof.rs,
// read_porep_proofs_from_synth). Another seed selects other challenges of
// the same set.
func TestSyntheticC1SyntheticPoRep(t *testing.T) {
	ctx := context.Background()
	p := abi.RegisteredSealProof_StackedDrg2KiBV1_1_Feat_SyntheticPoRep
	c := synthetic(t, p)
	require.NoError(t, c.CheckAll(ctx, testMiner, testSector))
	sp, err := porep.ParamsFor(p)
	require.NoError(t, err)

	var rid, commR [32]byte
	fr.LittleEndian.PutElement(&rid, c.ReplicaID)
	fr.LittleEndian.PutElement(&commR, c.CommR)
	gen, sel := porep.NewSynthForTest(sp.Nodes, rid, commR, min(sp.Nodes, 1<<18))
	selected := func(seed [32]byte, k int) []uint64 {
		var out []uint64
		for _, i := range sel(sp.ChallengesPerPartition, seed, k) {
			out = append(out, gen(i))
		}
		return out
	}
	require.Len(t, c.VanillaProofs, sp.Partitions)
	for k, part := range c.VanillaProofs {
		var got []uint64
		for _, cp := range part {
			got = append(got, cp.LabelingProofs[0].Node)
		}
		want, err := porep.Challenges(p, rid, commR, c.Seed, k)
		require.NoError(t, err)
		assert.Equal(t, want, got, "partition %d: Challenges", k)
		assert.Equal(t, selected(c.Seed, k), got, "partition %d: the selected synthetic challenges", k)

		other := c.Seed
		other[0] ^= 1
		moved, err := porep.Challenges(p, rid, commR, other, k)
		require.NoError(t, err)
		assert.Equal(t, selected(other, k), moved, "partition %d: another seed", k)
		assert.NotEqual(t, got, moved, "partition %d: another seed selects others", k)
	}
}

// NI-PoRep: the sector is built in full like synthetic PoRep's, and each
// of its 13 partitions opens the challenges hashed from replica_id and the
// final comm_r; the seed the C1 carries selects nothing (challenges.rs
// NiChallenges::derive takes none).
func TestSyntheticC1NonInteractive(t *testing.T) {
	ctx := context.Background()
	p := abi.RegisteredSealProof_StackedDrg2KiBV1_2_Feat_NiPoRep
	c := synthetic(t, p)
	require.NoError(t, c.CheckAll(ctx, testMiner, testSector))
	sp, err := porep.ParamsFor(p)
	require.NoError(t, err)
	require.Equal(t, 13, sp.Partitions)

	var rid, commR [32]byte
	fr.LittleEndian.PutElement(&rid, c.ReplicaID)
	fr.LittleEndian.PutElement(&commR, c.CommR)
	other := c.Seed
	other[0] ^= 1
	require.Len(t, c.VanillaProofs, sp.Partitions)
	for k, part := range c.VanillaProofs {
		var got []uint64
		for _, cp := range part {
			got = append(got, cp.LabelingProofs[0].Node)
		}
		want, err := porep.Challenges(p, rid, commR, c.Seed, k)
		require.NoError(t, err)
		assert.Equal(t, want, got, "partition %d", k)
		anySeed, err := porep.Challenges(p, rid, commR, other, k)
		require.NoError(t, err)
		assert.Equal(t, got, anySeed, "partition %d: another seed", k)
	}

	// the seed is random like a real C1's (C2 refuses a zero one) and
	// changes nothing that CheckAll derives
	assert.NotEqual(t, [32]byte{}, c.Seed)
	c.Seed = other
	assert.NoError(t, c.CheckAll(ctx, testMiner, testSector))
}

// Synthetic-PoRep and NI-PoRep sectors are built in full: every label of
// every node is the SDR label (node 0 hashes no parents, as create_label in
// stacked/vanilla/create_label/single.rs), and comm_c is the root of tree C
// over all their column hashes — recomputed here from replica_id alone.
func TestSyntheticC1Dense(t *testing.T) {
	for _, p := range []abi.RegisteredSealProof{
		abi.RegisteredSealProof_StackedDrg2KiBV1_1_Feat_SyntheticPoRep,
		abi.RegisteredSealProof_StackedDrg2KiBV1_2_Feat_NiPoRep,
	} {
		t.Run(porep.ProofName(p), func(t *testing.T) { checkDense(t, p) })
	}
}

func checkDense(t *testing.T, p abi.RegisteredSealProof) {
	c := synthetic(t, p)
	sp, err := porep.ParamsFor(p)
	require.NoError(t, err)
	require.Equal(t, merkle.Shape{Base: 8}, sp.Shape)
	g, err := porep.NewGraph(p)
	require.NoError(t, err)
	var rid [32]byte
	fr.LittleEndian.PutElement(&rid, c.ReplicaID)

	labels := make([][]fr.Element, sp.Nodes) // [node][layer]
	for n := range labels {
		labels[n] = make([]fr.Element, sp.Layers)
	}
	for l := range sp.Layers {
		for n := range labels {
			if n == 0 {
				var msg [64]byte
				copy(msg[:], rid[:])
				binary.BigEndian.PutUint32(msg[32:], uint32(l+1))
				d := sha256.Sum256(msg[:])
				d[31] &= 0x3f
				labels[0][l], err = fr.LittleEndian.Element(&d)
				require.NoError(t, err)
				continue
			}
			drg, exp, err := g.Parents(uint64(n))
			require.NoError(t, err)
			var base []fr.Element
			for _, q := range drg {
				base = append(base, labels[q][l])
			}
			if l > 0 {
				for _, q := range exp {
					base = append(base, labels[q][l-1])
				}
			}
			parents := make([]fr.Element, porep.TotalParents)
			for j := range parents {
				parents[j] = base[j%len(base)]
			}
			labels[n][l], err = porep.Label(rid, uint32(l+1), uint64(n), parents)
			require.NoError(t, err)
		}
	}

	// every opened column holds the recomputed labels
	opened := 0
	for _, part := range c.VanillaProofs {
		for _, cp := range part {
			rc := cp.ReplicaColumnProofs
			for _, col := range append([]porep.ColumnProof{rc.CX}, append(rc.DRGParents, rc.ExpParents...)...) {
				assert.Equal(t, labels[col.Column.Index], col.Column.Rows, "node %d", col.Column.Index)
				opened++
			}
		}
	}
	require.Positive(t, opened)

	level := make([]fr.Element, sp.Nodes)
	for n := range level {
		level[n], err = poseidon.Hash(labels[n])
		require.NoError(t, err)
	}
	for len(level) > 1 {
		next := make([]fr.Element, len(level)/8)
		for i := range next {
			next[i], err = poseidon.Hash(level[8*i : 8*i+8])
			require.NoError(t, err)
		}
		level = next
	}
	assert.Equal(t, level[0], c.VanillaProofs[0][0].ReplicaColumnProofs.CX.InclusionProof.Root, "comm_c")
}

// TestCheckHashesShapeC1: random values are caught at the first hash.
func TestCheckHashesShapeC1(t *testing.T) {
	c := porep.ShapeC1(abi.RegisteredSealProof_StackedDrg2KiBV1_1, 1, testMiner, testSector)
	var ce *porep.C1Error
	require.ErrorAs(t, c.CheckHashes(context.Background()), &ce)
	assert.Equal(t, 0, ce.Partition)
	assert.Equal(t, 0, ce.Challenge)
	assert.Equal(t, "comm_d_proofs", ce.Field)
}

// TestLabel pins the label layout with an independent construction.
func TestLabel(t *testing.T) {
	rid := [32]byte{1, 2, 3}
	parents := make([]fr.Element, porep.TotalParents)
	for i := range parents {
		parents[i].SetUint64(uint64(1000 + i))
	}
	var msg []byte
	msg = append(msg, rid[:]...)
	msg = binary.BigEndian.AppendUint32(msg, 7)
	msg = binary.BigEndian.AppendUint64(msg, 0x0102030405)
	msg = append(msg, make([]byte, 20)...)
	for i := range parents {
		b := parents[i].Bytes() // big-endian
		for j := 31; j >= 0; j-- {
			msg = append(msg, b[j])
		}
	}
	require.Len(t, msg, 1248)
	d := sha256.Sum256(msg)
	d[31] &= 0x3f
	want, err := fr.LittleEndian.Element(&d)
	require.NoError(t, err)

	got, err := porep.Label(rid, 7, 0x0102030405, parents)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	_, err = porep.Label(rid, 7, 1, parents[:36])
	assert.Error(t, err)
}

// corruption changes one value of a synthetic C1 in place (the target
// challenge proof p, or the C1 itself) and returns how to undo it, or nil
// where the value does not exist for this tree shape.
type corruption struct {
	name   string
	mutate func(c *porep.C1, p *porep.ChallengeProof) (undo func())
	field  string // the *C1Error's Field
	at     string // "p": the target challenge; "first": partition 0 challenge 0; "": none
	hashes bool   // CheckHashes alone names the same field
}

func flipByte(b *[32]byte, i int) func() {
	b[i] ^= 1
	return func() { b[i] ^= 1 }
}

func bump(e *fr.Element) func() {
	old := *e
	var one fr.Element
	one.SetOne()
	e.Add(e, &one)
	return func() { *e = old }
}

func corruptions() []corruption {
	rc := func(p *porep.ChallengeProof) *porep.ReplicaColumnProofs { return &p.ReplicaColumnProofs }
	return []corruption{
		{"data leaf", func(c *porep.C1, p *porep.ChallengeProof) func() { return flipByte(&p.CommDProof.Leaf, 0) }, "comm_d_proofs", "p", true},
		{"tree D path hash", func(c *porep.C1, p *porep.ChallengeProof) func() { return flipByte(&p.CommDProof.Base[3].Hashes[0], 9) }, "comm_d_proofs", "p", true},
		{"tree D path index", func(c *porep.C1, p *porep.ChallengeProof) func() {
			p.CommDProof.Base[2].Index ^= 1
			return func() { p.CommDProof.Base[2].Index ^= 1 }
		}, "comm_d_proofs", "p", true},
		{"tree D root", func(c *porep.C1, p *porep.ChallengeProof) func() { return flipByte(&p.CommDProof.Root, 4) }, "comm_d_proofs.data.Single.root", "p", true},
		{"replica leaf", func(c *porep.C1, p *porep.ChallengeProof) func() { return bump(&p.CommRLastProof.Leaf) }, "comm_r_last_proof", "p", true},
		{"tree R base hash", func(c *porep.C1, p *porep.ChallengeProof) func() { return bump(&p.CommRLastProof.Base[0].Hashes[6]) }, "comm_r_last_proof", "p", true},
		{"tree R sub hash", func(c *porep.C1, p *porep.ChallengeProof) func() {
			if p.CommRLastProof.Sub == nil {
				return nil
			}
			return bump(&p.CommRLastProof.Sub[0].Hashes[3])
		}, "comm_r_last_proof", "p", true},
		{"tree R top hash", func(c *porep.C1, p *porep.ChallengeProof) func() {
			if p.CommRLastProof.Top == nil {
				return nil
			}
			return bump(&p.CommRLastProof.Top[0].Hashes[0])
		}, "comm_r_last_proof", "p", true},
		{"comm_r_last root", func(c *porep.C1, p *porep.ChallengeProof) func() { return bump(&p.CommRLastProof.Root) }, "comm_r_last_proof.data.%s.root", "p", true},
		{"c_x row", func(c *porep.C1, p *porep.ChallengeProof) func() { return bump(&rc(p).CX.Column.Rows[1]) }, "replica_column_proofs.c_x", "p", true},
		{"c_x leaf", func(c *porep.C1, p *porep.ChallengeProof) func() { return bump(&rc(p).CX.InclusionProof.Leaf) }, "replica_column_proofs.c_x", "p", true},
		{"c_x path hash", func(c *porep.C1, p *porep.ChallengeProof) func() {
			return bump(&rc(p).CX.InclusionProof.Base[1].Hashes[2])
		}, "replica_column_proofs.c_x.inclusion_proof", "p", true},
		{"c_x sub hash", func(c *porep.C1, p *porep.ChallengeProof) func() {
			if rc(p).CX.InclusionProof.Sub == nil {
				return nil
			}
			return bump(&rc(p).CX.InclusionProof.Sub[0].Hashes[6])
		}, "replica_column_proofs.c_x.inclusion_proof", "p", true},
		{"comm_c root", func(c *porep.C1, p *porep.ChallengeProof) func() { return bump(&rc(p).CX.InclusionProof.Root) }, "replica_column_proofs.c_x.inclusion_proof.data.%s.root", "p", true},
		{"drg parent row", func(c *porep.C1, p *porep.ChallengeProof) func() { return bump(&rc(p).DRGParents[3].Column.Rows[0]) }, "replica_column_proofs.drg_parents[3]", "p", true},
		{"exp parent row", func(c *porep.C1, p *porep.ChallengeProof) func() { return bump(&rc(p).ExpParents[7].Column.Rows[1]) }, "replica_column_proofs.exp_parents[7]", "p", true},
		{"exp parent path hash", func(c *porep.C1, p *porep.ChallengeProof) func() {
			return bump(&rc(p).ExpParents[0].InclusionProof.Base[0].Hashes[0])
		}, "replica_column_proofs.exp_parents[0].inclusion_proof", "p", true},
		{"drg parent index", func(c *porep.C1, p *porep.ChallengeProof) func() {
			rc(p).DRGParents[2].Column.Index ^= 1
			return func() { rc(p).DRGParents[2].Column.Index ^= 1 }
		}, "replica_column_proofs.drg_parents[2].column.index", "p", false},
		{"labeling parent", func(c *porep.C1, p *porep.ChallengeProof) func() { return bump(&p.LabelingProofs[1].Parents[20]) }, "labeling_proofs[1].parents[20]", "p", true},
		{"labeling node", func(c *porep.C1, p *porep.ChallengeProof) func() {
			p.LabelingProofs[0].Node ^= 1
			return func() { p.LabelingProofs[0].Node ^= 1 }
		}, "labeling_proofs[0].node", "p", false},
		{"encoding parent", func(c *porep.C1, p *porep.ChallengeProof) func() { return bump(&p.EncodingProof.Parents[36]) }, "encoding_proof.parents[36]", "p", false},
		{"encoding node", func(c *porep.C1, p *porep.ChallengeProof) func() {
			p.EncodingProof.Node ^= 2
			return func() { p.EncodingProof.Node ^= 2 }
		}, "encoding_proof.node", "p", false},
		{"comm_r", func(c *porep.C1, p *porep.ChallengeProof) func() { return bump(&c.CommR) }, "comm_r", "", true},
		{"comm_d", func(c *porep.C1, p *porep.ChallengeProof) func() { return flipByte(&c.CommD, 0) }, "comm_d", "", false},
		{"replica_id", func(c *porep.C1, p *porep.ChallengeProof) func() { return bump(&c.ReplicaID) }, "replica_id", "", false},
		{"ticket", func(c *porep.C1, p *porep.ChallengeProof) func() { return flipByte(&c.Ticket, 31) }, "replica_id", "", false},
		{"seed", func(c *porep.C1, p *porep.ChallengeProof) func() { return flipByte(&c.Seed, 17) }, "comm_d_proofs", "first", false},
	}
}

// TestCheckAllCorruption corrupts one value at a time and checks that
// CheckAll (and CheckHashes, for hashed values) names it.
func TestCheckAllCorruption(t *testing.T) {
	type target struct {
		p    abi.RegisteredSealProof
		k, i int
		only map[string]bool // nil: every corruption
	}
	targets := []target{
		{abi.RegisteredSealProof_StackedDrg2KiBV1_1, 0, 1, nil},
		{abi.RegisteredSealProof_StackedDrg8MiBV1, 0, 1, nil},
	}
	if !testing.Short() {
		// the upper levels, on a challenge early enough to keep it quick
		big := map[string]bool{"tree R sub hash": true, "tree R top hash": true, "c_x sub hash": true,
			"comm_c root": true, "labeling parent": true, "exp parent row": true}
		targets = append(targets,
			target{abi.RegisteredSealProof_StackedDrg32GiBV1_1, 1, 2, big},
			target{abi.RegisteredSealProof_StackedDrg64GiBV1_1, 1, 2, big})
	}
	ctx := context.Background()
	for _, tg := range targets {
		c := synthetic(t, tg.p)
		p := &c.VanillaProofs[tg.k][tg.i]
		for _, cr := range corruptions() {
			if tg.only != nil && !tg.only[cr.name] {
				continue
			}
			t.Run(fmt.Sprintf("%v/%s", porep.ProofName(tg.p), cr.name), func(t *testing.T) {
				undo := cr.mutate(c, p)
				if undo == nil {
					t.Skip("not in this tree shape")
				}
				defer undo()
				field := cr.field
				if strings.Contains(field, "%s") { // the proof kind of trees R and C
					field = fmt.Sprintf(field, p.CommRLastProof.Kind)
				}
				k, i := -1, -1
				switch cr.at {
				case "p":
					k, i = tg.k, tg.i
				case "first":
					k, i = 0, 0
				}
				checks := map[string]func() error{"CheckAll": func() error { return c.CheckAll(ctx, testMiner, testSector) }}
				if cr.hashes {
					checks["CheckHashes"] = func() error { return c.CheckHashes(ctx) }
				}
				for name, check := range checks {
					err := check()
					var ce *porep.C1Error
					require.ErrorAs(t, err, &ce, name)
					assert.ErrorIs(t, err, porep.ErrBadC1, name)
					assert.Equal(t, field, ce.Field, "%s: %v", name, err)
					assert.Equal(t, [2]int{k, i}, [2]int{ce.Partition, ce.Challenge}, "%s: %v", name, err)
				}
			})
		}
		require.NoError(t, c.CheckAll(ctx, testMiner, testSector), "every corruption undone")
	}
}

func BenchmarkSyntheticC1(b *testing.B) {
	for _, p := range []abi.RegisteredSealProof{
		abi.RegisteredSealProof_StackedDrg2KiBV1_1,
		abi.RegisteredSealProof_StackedDrg512MiBV1_1,
		abi.RegisteredSealProof_StackedDrg32GiBV1_1,
		abi.RegisteredSealProof_StackedDrg2KiBV1_1_Feat_SyntheticPoRep, // every node labelled
		abi.RegisteredSealProof_StackedDrg8MiBV1_1_Feat_SyntheticPoRep,
	} {
		b.Run(porep.ProofName(p), func(b *testing.B) {
			for b.Loop() {
				if _, err := porep.SyntheticC1(context.Background(), p, testMiner, testSector, testSeed); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCheckAll checks synthetic C1s (Validate, replica_id,
// challenges, every hash); challenges/s counts challenge proofs.
func BenchmarkCheckAll(b *testing.B) {
	for _, p := range []abi.RegisteredSealProof{
		abi.RegisteredSealProof_StackedDrg2KiBV1_1,
		abi.RegisteredSealProof_StackedDrg512MiBV1_1,
		abi.RegisteredSealProof_StackedDrg32GiBV1_1,
	} {
		b.Run(porep.ProofName(p), func(b *testing.B) {
			c := synthetic(b, p)
			n := len(c.VanillaProofs) * len(c.VanillaProofs[0])
			for b.Loop() {
				if err := c.CheckAll(context.Background(), testMiner, testSector); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "challenges/s")
		})
	}
}

// A synthetic 2 KiB sector (test data, not a real sector): it passes every
// check, and a single wrong value is named.
func ExampleSyntheticC1() {
	ctx := context.Background()
	c, err := porep.SyntheticC1(ctx, abi.RegisteredSealProof_StackedDrg2KiBV1_1, 1000, 1, [32]byte{1})
	if err != nil {
		panic(err)
	}
	fmt.Println(porep.ProofName(c.RegisteredProof), len(c.VanillaProofs), "partition,", len(c.VanillaProofs[0]), "challenges")
	fmt.Println("CheckAll:", c.CheckAll(ctx, 1000, 1))
	var commR [32]byte
	fr.LittleEndian.PutElement(&commR, c.CommR)
	fmt.Printf("comm_r %x…\n", commR[:8]) // pins the generator's output

	c.VanillaProofs[0][1].CommRLastProof.Base[0].Hashes[3].SetUint64(7)
	fmt.Println(c.CheckAll(ctx, 1000, 1))
	// Output:
	// StackedDrg2KiBV1_1 1 partition, 2 challenges
	// CheckAll: <nil>
	// comm_r 06114fd21b0fb6c7…
	// porep: bad C1: partition 0 challenge 1: comm_r_last_proof: path does not lead to comm_r_last
}
