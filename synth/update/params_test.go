package update_test

import (
	"strings"
	"testing"

	commcid "github.com/filecoin-project/go-fil-commcid"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/synth/update"
)

// The registered types' parameters (constants.rs) and Filecoin's parameter
// files for them, with parameters.json's digests.
func TestParamsFor(t *testing.T) {
	for _, tc := range []struct {
		p                                      abi.RegisteredUpdateProof
		name                                   string
		partitions, challenges, apex, hDefault int
		shape                                  string
		file, paramsDigest, vkDigest           string
	}{
		{abi.RegisteredUpdateProof_StackedDrg2KiBV1, "StackedDrg2KiBV1", 1, 10, 8, 1, "8-0-0",
			"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194",
			"311f92a3e75036ced01b1c0025f1fa0c", "eadad9784969890d30f2749708c79771"},
		{abi.RegisteredUpdateProof_StackedDrg8MiBV1, "StackedDrg8MiBV1", 4, 10, 128, 10, "8-0-0",
			"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63",
			"5aedd2cf3e5c0a15623d56a1b43110ad", "abd80269054d391a734febdac0d2e687"},
		{abi.RegisteredUpdateProof_StackedDrg512MiBV1, "StackedDrg512MiBV1", 16, 86, 128, 10, "8-0-0",
			"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c",
			"c3ad7bb549470b82ad52ed070aebb4f4", "994c5b7d450ca9da348c910689f2dc7f"},
		{abi.RegisteredUpdateProof_StackedDrg32GiBV1, "StackedDrg32GiBV1", 16, 86, 128, 10, "8-8-0",
			"v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18",
			"1b3cfd761a961543f9eb273e435a06a2", "3a6941983754737fde880d29c7094905"},
		{abi.RegisteredUpdateProof_StackedDrg64GiBV1, "StackedDrg64GiBV1", 16, 86, 128, 10, "8-8-2",
			"v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7",
			"1a392e7b759fb18e036c7559b5ece816", "80e366df2f1011953c2d01c7b7c9ee8e"},
	} {
		p, err := update.ParamsFor(tc.p)
		require.NoError(t, err)
		assert.Equal(t, tc.name, update.ProofName(tc.p))
		assert.Equal(t, tc.partitions, p.Partitions, tc.name)
		assert.Equal(t, tc.challenges, p.Challenges, tc.name)
		assert.Equal(t, tc.apex, p.ApexLeaves, tc.name)
		assert.Equal(t, tc.hDefault, p.DefaultH(), tc.name)
		assert.Equal(t, tc.shape, shapeString(p), tc.name)

		bySize, err := update.ProofForSectorSize(strings.TrimSuffix(strings.TrimPrefix(tc.name, "StackedDrg"), "V1"))
		require.NoError(t, err)
		assert.Equal(t, tc.p, bySize)

		base, err := update.ParamsFileBase(tc.p)
		require.NoError(t, err)
		assert.Equal(t, tc.file, base)
		for suffix, digest := range map[string]string{".params": tc.paramsDigest, ".vk": tc.vkDigest} {
			got, ok := groth16.PublishedDigest(base + suffix)
			assert.True(t, ok, base+suffix)
			assert.Equal(t, digest, got, base+suffix)
			back, err := update.ProofForParamsFile("/var/tmp/filecoin-proof-parameters/" + base + suffix)
			require.NoError(t, err)
			assert.Equal(t, tc.p, back)
		}
	}
	_, err := update.ParamsFor(5)
	assert.ErrorIs(t, err, update.ErrParams)
	_, err = update.ProofForSectorSize("1GiB")
	assert.ErrorIs(t, err, update.ErrParams)
	assert.Equal(t, "RegisteredUpdateProof(5)", update.ProofName(5))
}

func shapeString(p update.Params) string {
	return string(rune('0'+p.TreeR.Base)) + "-" + string(rune('0'+p.TreeR.Sub)) + "-" + string(rune('0'+p.TreeR.Top))
}

// The Poseidon variant's files are refused by name, and its digests are
// not published to the key loader.
func TestPoseidonVariantRefused(t *testing.T) {
	for _, name := range []string{
		"v28-empty-sector-update-poseidon-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.params",
		"v28-empty-sector-update-poseidon-merkletree-poseidon_hasher-8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.vk",
	} {
		_, err := update.ProofForParamsFile(name)
		assert.ErrorIs(t, err, update.ErrPoseidonVariant, name)
		_, ok := groth16.PublishedDigest(name)
		assert.False(t, ok, name)
	}
	_, err := update.ProofForParamsFile("v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params")
	assert.ErrorIs(t, err, update.ErrParams)
}

// k_and_h_select packs k below h_select (circuit.rs PublicInputs::new).
func TestKAndHSelect(t *testing.T) {
	p := params(t, 32<<30)
	v, err := update.KAndHSelect(p, 3, 10)
	require.NoError(t, err)
	assert.Equal(t, uint64(3|(1<<3)<<4), v)
	_, err = update.KAndHSelect(p, 16, 10)
	assert.ErrorIs(t, err, update.ErrParams)
	_, err = update.KAndHSelect(p, 0, 6)
	assert.ErrorIs(t, err, update.ErrParams)
	small := params(t, 2<<10)
	v, err = update.KAndHSelect(small, 0, 1)
	require.NoError(t, err)
	assert.Equal(t, uint64(1), v, "hs are all 1 below 32 KiB: the first is selected")
}

// Every challenge of partition k lies in the k-th slice of the sector
// (challenges.rs test_challenge_bucketing).
func TestChallengeBucketing(t *testing.T) {
	r := newXorShift(testSeed)
	for _, size := range []uint64{1 << 10, 2 << 10, 4 << 10, 8 << 10, 16 << 10, 32 << 10, 8 << 20, 16 << 20, 512 << 20, 32 << 30, 64 << 30} {
		p := params(t, size)
		commRNew := r.fr()
		per := uint32(p.Nodes / p.Partitions)
		for k := range p.Partitions {
			cs, err := update.Challenges(p, commRNew, k)
			require.NoError(t, err)
			require.Len(t, cs, p.Challenges)
			for _, c := range cs {
				assert.Equal(t, uint32(k), c/per, "size %d partition %d challenge %d", size, k, c)
			}
		}
	}
}

// The gadgets' row counts of gadgets.rs' tests: gen_challenge_bits per
// allowed size, apex_por for the small sizes and for 16 KiB with 4 × 16
// and 8 × 8 apex leaves.
func TestGadgetRows(t *testing.T) {
	genWant := map[uint64]int{
		1 << 10: 568, 2 << 10: 568, 4 << 10: 568, 8 << 10: 568, 16 << 10: 568, 32 << 10: 568,
		8 << 20: 568, 16 << 20: 568, 512 << 20: 4544, 32 << 30: 5680, 64 << 30: 5680,
	}
	for size, want := range genWant {
		gen, err := update.GenChallengeBitsRows(params(t, size))
		require.NoError(t, err)
		assert.Equal(t, want, gen, "gen_challenge_bits, %d bytes", size)
	}
	for _, tc := range []struct {
		size             uint64
		partitions, apex int
		want             int
	}{
		{1 << 10, 1, 8, 317654}, {2 << 10, 1, 8, 317654}, {4 << 10, 1, 8, 317654}, {8 << 10, 1, 8, 317654},
		{16 << 10, 2, 128, 5808515}, {32 << 10, 2, 128, 5808515},
		{16 << 10, 4, 16, 771448}, {16 << 10, 8, 8, 453797},
	} {
		if testing.Short() && tc.want > 1e6 {
			continue
		}
		apex, err := update.ApexPoRRows(params(t, tc.size), tc.partitions, tc.apex)
		require.NoError(t, err)
		assert.Equal(t, tc.want, apex, "apex_por, %d bytes, %d partitions × %d apex leaves", tc.size, tc.partitions, tc.apex)
	}
}

func TestCommitmentFromBytes(t *testing.T) {
	var b [32]byte
	_, err := update.CommitmentFromBytes("comm_r_old", b)
	assert.ErrorIs(t, err, update.ErrBadCommitment)
	for i := range b {
		b[i] = 0xff
	}
	_, err = update.CommitmentFromBytes("comm_d_new", b)
	assert.ErrorIs(t, err, update.ErrBadCommitment)
	assert.ErrorContains(t, err, "comm_d_new")
	b = [32]byte{7}
	e, err := update.CommitmentFromBytes("comm_r_new", b)
	require.NoError(t, err)
	assert.Equal(t, uint64(7), e.Uint64())
	assert.Equal(t, b, update.CommitmentBytes(e), "CommitmentBytes is its inverse")
}

// A synthetic update's CIDs hold its commitments, each in the CID kind
// filecoin-ffi expects (comm_d_new a data CID, the others replica CIDs).
func TestSyntheticCIDs(t *testing.T) {
	p, err := update.ParamsFor(abi.RegisteredUpdateProof_StackedDrg2KiBV1)
	require.NoError(t, err)
	s, err := update.NewSynthetic(p, 5)
	require.NoError(t, err)
	oldSealed, newSealed, newUnsealed, err := s.CIDs()
	require.NoError(t, err)
	for _, c := range []struct {
		name string
		got  func() ([]byte, error)
		want [32]byte
	}{
		{"comm_r_old", func() ([]byte, error) { return commcid.CIDToReplicaCommitmentV1(oldSealed) }, update.CommitmentBytes(s.CommROld)},
		{"comm_r_new", func() ([]byte, error) { return commcid.CIDToReplicaCommitmentV1(newSealed) }, update.CommitmentBytes(s.CommRNew)},
		{"comm_d_new", func() ([]byte, error) { return commcid.CIDToDataCommitmentV1(newUnsealed) }, update.CommitmentBytes(s.CommDNew)},
	} {
		b, err := c.got()
		require.NoError(t, err, c.name)
		assert.Equal(t, c.want[:], b, c.name)
	}
	assert.NotEqual(t, oldSealed, newSealed, "distinct commitments")
}
