package update_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/synth/update"
)

// The first five challenges of partitions, for comm_r_new drawn from
// TEST_SEED: challenges.rs test_challenges_against_hardcoded.
func TestChallengesAgainstRust(t *testing.T) {
	commRNew := newXorShift(testSeed).fr()
	for _, tc := range []struct {
		size uint64
		k    int
		want [5]uint32
	}{
		{1 << 10, 0, [5]uint32{21, 7, 3, 31, 0}},
		{2 << 10, 0, [5]uint32{53, 51, 56, 3, 0}},
		{4 << 10, 0, [5]uint32{117, 25, 62, 0, 72}},
		{8 << 10, 0, [5]uint32{245, 140, 15, 128, 28}},
		{16 << 10, 0, [5]uint32{245, 140, 15, 128, 28}},
		{16 << 10, 1, [5]uint32{286, 308, 493, 510, 508}},
		{32 << 10, 0, [5]uint32{245, 454, 3, 400, 193}},
		{32 << 10, 1, [5]uint32{542, 666, 955, 927, 911}},
		{8 << 20, 0, [5]uint32{36085, 32783, 44060, 10950, 3731}},
		{8 << 20, 1, [5]uint32{78878, 130797, 112892, 93994, 78379}},
		{16 << 20, 0, [5]uint32{101621, 16391, 109319, 25944, 41193}},
		{16 << 20, 1, [5]uint32{209950, 163702, 175679, 224741, 197410}},
		{512 << 20, 0, [5]uint32{1019125, 116736, 706220, 59698, 799498}},
		{512 << 20, 1, [5]uint32{2092548, 1213276, 1185483, 1164598, 1095197}},
		{512 << 20, 14, [5]uint32{15212432, 15665918, 15015423, 15012912, 15495223}},
		{512 << 20, 15, [5]uint32{16388544, 15794686, 16637142, 16319148, 16328348}},
		{32 << 30, 0, [5]uint32{1019125, 27985696, 15282860, 11586600, 44651330}},
		{32 << 30, 1, [5]uint32{109168525, 127316247, 80331041, 97065716, 72310052}},
		{32 << 30, 14, [5]uint32{990420169, 955146989, 968005601, 976863263, 944650706}},
		{32 << 30, 15, [5]uint32{1038629497, 1053983614, 1030421316, 1027373887, 1068685433}},
		{64 << 30, 0, [5]uint32{1019125, 13992848, 3820715, 18225541, 57316660}},
		{64 << 30, 1, [5]uint32{243386253, 197875851, 204632136, 171516766, 247789010}},
		{64 << 30, 14, [5]uint32{1997053129, 1920414070, 2003609080, 1900492803, 1963254685}},
		{64 << 30, 15, [5]uint32{2045262457, 2036941247, 2136653521, 2091356007, 2147167623}},
	} {
		p, err := update.ParamsForSectorSize(tc.size)
		require.NoError(t, err)
		got, err := update.Challenges(p, commRNew, tc.k)
		require.NoError(t, err)
		require.Len(t, got, p.Challenges)
		assert.Equal(t, tc.want[:], got[:5], "size %d partition %d", tc.size, tc.k)
	}
}
