package gpuc2

import (
	"encoding/hex"
	"testing"

	commcid "github.com/filecoin-project/go-fil-commcid"
	"github.com/ipfs/go-cid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The unsealed CID of an empty 32 GiB sector (go-fil-commcid's "empty32GiB"
// fixture) holds the zero-piece commitment of 2^35 bytes (lotus zerocomm,
// PieceComms[28]): commitmentCIDs and commitmentOf agree with it.
func TestCommitmentCIDs(t *testing.T) {
	const empty32GiB = "baga6ea4seaqao7s73y24kcutaosvacpdjgfe5pw76ooefnyqw4ynr3d2y6x2mpq"
	raw, err := hex.DecodeString("077e5fde35c50a9303a55009e3498a4ebedff39c42b710b730d8ec7ac7afa63e")
	require.NoError(t, err)
	var commD, commR [32]byte
	copy(commD[:], raw)
	for i := range commR {
		commR[i] = byte(i * 7)
	}
	sealed, unsealed, err := commitmentCIDs(commR, commD)
	require.NoError(t, err)
	assert.Equal(t, empty32GiB, unsealed.String())
	assert.Regexp(t, "^bagboea4b5abc", sealed.String(), "sealed CIDs start like the chain's")

	got, err := commitmentOf(cid.MustParse(sealed.String()), commcid.CIDToReplicaCommitmentV1, "SealedCID")
	require.NoError(t, err)
	assert.Equal(t, commR, got)
	got, err = commitmentOf(unsealed, commcid.CIDToDataCommitmentV1, "UnsealedCID")
	require.NoError(t, err)
	assert.Equal(t, commD, got)

	// Each kind refuses the other, an undefined CID and an ordinary CID, as bad input.
	for _, c := range []struct {
		c    cid.Cid
		read func(cid.Cid) ([]byte, error)
	}{
		{unsealed, commcid.CIDToReplicaCommitmentV1},
		{sealed, commcid.CIDToDataCommitmentV1},
		{cid.Undef, commcid.CIDToDataCommitmentV1},
		{cid.MustParse("bafkreih25dih6ug3xtj73vswccw423b56ilrwmnos4cbwhrceudopdp5sq"), commcid.CIDToReplicaCommitmentV1},
	} {
		_, err := commitmentOf(c.c, c.read, "CID")
		assert.ErrorIs(t, err, ErrBadInput, c.c.String())
	}
}
