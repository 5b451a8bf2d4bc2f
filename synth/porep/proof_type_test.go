package porep_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/synth/porep"
)

func TestRegisteredSealProofParams(t *testing.T) {
	tests := []struct {
		p          porep.RegisteredSealProof
		name       string
		size       uint64
		layers     int
		partitions int
		challenges int
		shape      string
		depth      int
		api        porep.APIVersion
		kind       porep.ChallengeKind
	}{
		{porep.RegisteredSealProof_StackedDrg2KiBV1, "StackedDrg2KiBV1", 2 << 10, 2, 1, 2, "8-0-0", 6, porep.APIVersion1_0_0, porep.ChallengesInteractive},
		{porep.RegisteredSealProof_StackedDrg8MiBV1_1, "StackedDrg8MiBV1_1", 8 << 20, 2, 1, 2, "8-0-0", 18, porep.APIVersion1_1_0, porep.ChallengesInteractive},
		{porep.RegisteredSealProof_StackedDrg512MiBV1_1_Feat_SyntheticPoRep, "StackedDrg512MiBV1_1_Feat_SyntheticPoRep", 512 << 20, 2, 1, 2, "8-0-0", 24, porep.APIVersion1_2_0, porep.ChallengesSynthetic},
		{porep.RegisteredSealProof_StackedDrg32GiBV1, "StackedDrg32GiBV1", 32 << 30, 11, 10, 18, "8-8-0", 30, porep.APIVersion1_0_0, porep.ChallengesInteractive},
		{porep.RegisteredSealProof_StackedDrg32GiBV1_1, "StackedDrg32GiBV1_1", 32 << 30, 11, 10, 18, "8-8-0", 30, porep.APIVersion1_1_0, porep.ChallengesInteractive},
		{porep.RegisteredSealProof_StackedDrg64GiBV1_1, "StackedDrg64GiBV1_1", 64 << 30, 11, 10, 18, "8-8-2", 31, porep.APIVersion1_1_0, porep.ChallengesInteractive},
		{porep.RegisteredSealProof_StackedDrg2KiBV1_2_Feat_NiPoRep, "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", 2 << 10, 2, 13, 2, "8-0-0", 6, porep.APIVersion1_2_0, porep.ChallengesNonInteractive},
		{porep.RegisteredSealProof_StackedDrg64GiBV1_2_Feat_NiPoRep, "StackedDrg64GiBV1_2_Feat_NonInteractivePoRep", 64 << 30, 11, 126, 18, "8-8-2", 31, porep.APIVersion1_2_0, porep.ChallengesNonInteractive},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.name, tt.p.String())
			back, err := porep.ParseRegisteredSealProof(tt.name)
			require.NoError(t, err)
			assert.Equal(t, tt.p, back)
			sp, err := tt.p.Params()
			require.NoError(t, err)
			assert.Equal(t, tt.size, sp.SectorSize)
			assert.Equal(t, tt.size/32, sp.Nodes)
			assert.Equal(t, tt.layers, sp.Layers)
			assert.Equal(t, tt.partitions, sp.Partitions)
			assert.Equal(t, tt.challenges, sp.ChallengesPerPartition)
			assert.Equal(t, tt.shape, sp.Shape.String())
			assert.Equal(t, tt.depth, sp.TreeDDepth)
			assert.Equal(t, tt.api, sp.APIVersion)
			assert.Equal(t, tt.kind, sp.Challenges)
			id, err := tt.p.PoRepID()
			require.NoError(t, err)
			assert.Equal(t, byte(tt.p), id[0])
			assert.Equal(t, [31]byte{}, [31]byte(id[1:]))
		})
	}
}

func TestRegisteredSealProofUnknown(t *testing.T) {
	for _, p := range []porep.RegisteredSealProof{-1, 20, 1 << 40} {
		_, err := p.Params()
		assert.ErrorIs(t, err, porep.ErrUnknownProof)
		_, err = p.SectorSize()
		assert.Error(t, err)
		_, err = p.Partitions()
		assert.Error(t, err)
		_, err = porep.NewGraph(p)
		assert.Error(t, err)
		assert.Contains(t, p.String(), "RegisteredSealProof(")
	}
	_, err := porep.ParseRegisteredSealProof("StackedDrg1GiBV1")
	assert.ErrorIs(t, err, porep.ErrUnknownProof)
}

func TestGraphStructure(t *testing.T) {
	for _, p := range []porep.RegisteredSealProof{
		porep.RegisteredSealProof_StackedDrg2KiBV1, porep.RegisteredSealProof_StackedDrg2KiBV1_1,
		porep.RegisteredSealProof_StackedDrg32GiBV1, porep.RegisteredSealProof_StackedDrg64GiBV1_1,
	} {
		g, err := porep.NewGraph(p)
		require.NoError(t, err)
		api, _ := p.APIVersion()
		for _, n := range []uint64{0, 1, 2, 3, 17, g.Nodes() / 2, g.Nodes() - 1} {
			drg, exp, err := g.Parents(n)
			require.NoError(t, err)
			if n < 2 {
				assert.Equal(t, [6]uint32{}, drg)
			} else {
				pred := drg[0]
				if api == porep.APIVersion1_0_0 {
					pred = drg[5]
				}
				assert.Equal(t, uint32(n-1), pred, "node %d: immediate predecessor", n)
				for _, q := range drg {
					assert.Less(t, uint64(q), n, "node %d: DRG parent after the node", n)
				}
			}
			for _, q := range exp {
				assert.Less(t, uint64(q), g.Nodes())
			}
		}
		_, _, err = g.Parents(g.Nodes())
		assert.Error(t, err)
	}
}

func TestProofForSectorSize(t *testing.T) {
	for size, want := range map[string]porep.RegisteredSealProof{
		"2KiB": porep.RegisteredSealProof_StackedDrg2KiBV1_1, "32GiB": porep.RegisteredSealProof_StackedDrg32GiBV1_1,
		"64GiB": porep.RegisteredSealProof_StackedDrg64GiBV1_1,
	} {
		got, err := porep.ProofForSectorSize(size)
		if err != nil || got != want {
			t.Fatalf("%s: %v, %v", size, got, err)
		}
	}
	for _, bad := range []string{"", "2KB", "1GiB", "32GiBV1_1", "2KiBV1"} {
		if _, err := porep.ProofForSectorSize(bad); err == nil {
			t.Fatalf("%q accepted", bad)
		}
	}
	// SectorSizeName is the inverse, for every variant of a size.
	for p := porep.RegisteredSealProof(0); p < 20; p++ {
		name, err := p.SectorSizeName()
		if err != nil {
			t.Fatal(err)
		}
		if got, err := porep.ProofForSectorSize(name); err != nil || mustSize(t, got) != mustSize(t, p) {
			t.Fatalf("%v: name %q reads back as %v, %v", p, name, got, err)
		}
	}
	if _, err := porep.RegisteredSealProof(20).SectorSizeName(); err == nil {
		t.Fatal("an unknown proof has a size name")
	}
}

func mustSize(t *testing.T, p porep.RegisteredSealProof) uint64 {
	t.Helper()
	n, err := p.SectorSize()
	if err != nil {
		t.Fatal(err)
	}
	return n
}
