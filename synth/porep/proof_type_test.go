package porep_test

import (
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/synth/porep"
)

func TestRegisteredSealProofParams(t *testing.T) {
	tests := []struct {
		p          abi.RegisteredSealProof
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
		{abi.RegisteredSealProof_StackedDrg2KiBV1, "StackedDrg2KiBV1", 2 << 10, 2, 1, 2, "8-0-0", 6, porep.APIVersion1_0_0, porep.ChallengesInteractive},
		{abi.RegisteredSealProof_StackedDrg8MiBV1_1, "StackedDrg8MiBV1_1", 8 << 20, 2, 1, 2, "8-0-0", 18, porep.APIVersion1_1_0, porep.ChallengesInteractive},
		{abi.RegisteredSealProof_StackedDrg512MiBV1_1_Feat_SyntheticPoRep, "StackedDrg512MiBV1_1_Feat_SyntheticPoRep", 512 << 20, 2, 1, 2, "8-0-0", 24, porep.APIVersion1_2_0, porep.ChallengesSynthetic},
		{abi.RegisteredSealProof_StackedDrg32GiBV1, "StackedDrg32GiBV1", 32 << 30, 11, 10, 18, "8-8-0", 30, porep.APIVersion1_0_0, porep.ChallengesInteractive},
		{abi.RegisteredSealProof_StackedDrg32GiBV1_1, "StackedDrg32GiBV1_1", 32 << 30, 11, 10, 18, "8-8-0", 30, porep.APIVersion1_1_0, porep.ChallengesInteractive},
		{abi.RegisteredSealProof_StackedDrg64GiBV1_1, "StackedDrg64GiBV1_1", 64 << 30, 11, 10, 18, "8-8-2", 31, porep.APIVersion1_1_0, porep.ChallengesInteractive},
		{abi.RegisteredSealProof_StackedDrg2KiBV1_2_Feat_NiPoRep, "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", 2 << 10, 2, 13, 2, "8-0-0", 6, porep.APIVersion1_2_0, porep.ChallengesNonInteractive},
		{abi.RegisteredSealProof_StackedDrg64GiBV1_2_Feat_NiPoRep, "StackedDrg64GiBV1_2_Feat_NonInteractivePoRep", 64 << 30, 11, 126, 18, "8-8-2", 31, porep.APIVersion1_2_0, porep.ChallengesNonInteractive},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.name, porep.ProofName(tt.p))
			back, err := porep.ParseProofName(tt.name)
			require.NoError(t, err)
			assert.Equal(t, tt.p, back)
			sp, err := porep.ParamsFor(tt.p)
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
			assert.Equal(t, byte(tt.p), sp.PoRepID[0])
			assert.Equal(t, [31]byte{}, [31]byte(sp.PoRepID[1:]))
		})
	}
}

// NI-PoRep's challenges per partition are its minimum challenge count
// spread over its partitions, rounded up (filecoin-proofs parameters.rs
// select_challenges; the minimums, ceil(12.8 × the interactive ones), from
// constants.rs get_porep_non_interactive_minimum_challenges).
func TestNonInteractiveChallengeCounts(t *testing.T) {
	minimum := map[uint64]int{2 << 10: 26, 8 << 20: 26, 512 << 20: 26, 32 << 30: 2253, 64 << 30: 2253}
	for p := abi.RegisteredSealProof_StackedDrg2KiBV1_2_Feat_NiPoRep; p <= abi.RegisteredSealProof_StackedDrg64GiBV1_2_Feat_NiPoRep; p++ {
		sp, err := porep.ParamsFor(p)
		require.NoError(t, err)
		m := minimum[sp.SectorSize]
		require.NotZero(t, m, porep.ProofName(p))
		assert.Equal(t, (m+sp.Partitions-1)/sp.Partitions, sp.ChallengesPerPartition, porep.ProofName(p))
	}
}

func TestRegisteredSealProofUnknown(t *testing.T) {
	for _, p := range []abi.RegisteredSealProof{-1, 20, 1 << 40} {
		_, err := porep.ParamsFor(p)
		assert.ErrorIs(t, err, porep.ErrUnknownProof)
		_, err = porep.SectorSizeName(p)
		assert.ErrorIs(t, err, porep.ErrUnknownProof)
		_, err = porep.NewGraph(p)
		assert.Error(t, err)
		assert.Contains(t, porep.ProofName(p), "RegisteredSealProof(")
	}
	_, err := porep.ParseProofName("StackedDrg1GiBV1")
	assert.ErrorIs(t, err, porep.ErrUnknownProof)
}

// TestParamsAgreeWithABI holds gpuc2's table to go-state-types' abi for every
// proof type it knows: sector size, porep_id, features, and the names of the
// constants (abi's Go names end _NiPoRep where the Rust names end
// _NonInteractivePoRep).
func TestParamsAgreeWithABI(t *testing.T) {
	for p := abi.RegisteredSealProof(0); p <= 19; p++ {
		sp, err := porep.ParamsFor(p)
		require.NoError(t, err, p)
		size, err := p.SectorSize()
		require.NoError(t, err)
		assert.Equal(t, uint64(size), sp.SectorSize, porep.ProofName(p))
		assert.Equal(t, p.IsSynthetic(), sp.Challenges == porep.ChallengesSynthetic, porep.ProofName(p))
		assert.Equal(t, p.IsNonInteractive(), sp.NonInteractive(), porep.ProofName(p))
		if id, err := p.PoRepID(); err == nil {
			assert.Equal(t, id, sp.PoRepID, porep.ProofName(p))
		} else {
			assert.True(t, p.IsNonInteractive(), "abi has no porep_id for %s", porep.ProofName(p))
		}
		// abi's ProofSize is the bytes of ffi's C2 output: 192 per partition,
		// or a SnarkPack aggregate for NI-PoRep, which gpuc2 does not make.
		n, err := p.ProofSize()
		require.NoError(t, err)
		if !sp.NonInteractive() {
			assert.Equal(t, uint64(192*sp.Partitions), n, porep.ProofName(p))
		}
	}
}

func TestGraphStructure(t *testing.T) {
	for _, p := range []abi.RegisteredSealProof{
		abi.RegisteredSealProof_StackedDrg2KiBV1, abi.RegisteredSealProof_StackedDrg2KiBV1_1,
		abi.RegisteredSealProof_StackedDrg32GiBV1, abi.RegisteredSealProof_StackedDrg64GiBV1_1,
	} {
		g, err := porep.NewGraph(p)
		require.NoError(t, err)
		sp, _ := porep.ParamsFor(p)
		api := sp.APIVersion
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
	for size, want := range map[string]abi.RegisteredSealProof{
		"2KiB": abi.RegisteredSealProof_StackedDrg2KiBV1_1, "32GiB": abi.RegisteredSealProof_StackedDrg32GiBV1_1,
		"64GiB": abi.RegisteredSealProof_StackedDrg64GiBV1_1,
	} {
		got, err := porep.ProofForSectorSize(size)
		if err != nil || got != want {
			t.Fatalf("%s: %v, %v", size, porep.ProofName(got), err)
		}
	}
	for _, bad := range []string{"", "2KB", "1GiB", "32GiBV1_1", "2KiBV1"} {
		if _, err := porep.ProofForSectorSize(bad); err == nil {
			t.Fatalf("%q accepted", bad)
		}
	}
	// SectorSizeName is the inverse, for every variant of a size.
	for p := abi.RegisteredSealProof(0); p < 20; p++ {
		name, err := porep.SectorSizeName(p)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := porep.ProofForSectorSize(name); err != nil || mustSize(t, got) != mustSize(t, p) {
			t.Fatalf("%v: name %q reads back as %v, %v", porep.ProofName(p), name, porep.ProofName(got), err)
		}
	}
	if _, err := porep.SectorSizeName(20); err == nil {
		t.Fatal("an unknown proof has a size name")
	}
}

func mustSize(t *testing.T, p abi.RegisteredSealProof) uint64 {
	t.Helper()
	n, err := p.SectorSize()
	if err != nil {
		t.Fatal(err)
	}
	return uint64(n)
}
