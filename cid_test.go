package gpuc2_test

import (
	"encoding/hex"
	"testing"

	"github.com/ipfs/go-cid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2"
)

// The unsealed CID of an empty 32 GiB sector (go-fil-commcid's "empty32GiB"
// fixture) holds the zero-piece commitment of 2^35 bytes (lotus zerocomm,
// PieceComms[28]).
func TestDataCommitmentCIDKnownAnswer(t *testing.T) {
	const s = "baga6ea4seaqao7s73y24kcutaosvacpdjgfe5pw76ooefnyqw4ynr3d2y6x2mpq"
	raw, err := hex.DecodeString("077e5fde35c50a9303a55009e3498a4ebedff39c42b710b730d8ec7ac7afa63e")
	require.NoError(t, err)
	var comm [32]byte
	copy(comm[:], raw)
	assert.Equal(t, s, gpuc2.DataCommitmentToCID(comm).String())
	got, err := gpuc2.CIDToDataCommitment(cid.MustParse(s))
	require.NoError(t, err)
	assert.Equal(t, comm, got)
}

func TestCommitmentCIDs(t *testing.T) {
	var comm [32]byte
	for i := range comm {
		comm[i] = byte(i * 7)
	}
	r := gpuc2.ReplicaCommitmentToCID(comm)
	d := gpuc2.DataCommitmentToCID(comm)
	assert.Regexp(t, "^bagboea4b5abc", r.String(), "sealed CIDs start like the chain's")
	assert.Regexp(t, "^baga6ea4sea", d.String())

	// Round trips, through the string form too.
	got, err := gpuc2.CIDToReplicaCommitment(cid.MustParse(r.String()))
	require.NoError(t, err)
	assert.Equal(t, comm, got)
	got, err = gpuc2.CIDToDataCommitment(d)
	require.NoError(t, err)
	assert.Equal(t, comm, got)

	// Each kind refuses the other, an undefined CID and an ordinary CID.
	_, err = gpuc2.CIDToReplicaCommitment(d)
	assert.ErrorIs(t, err, gpuc2.ErrBadInput)
	_, err = gpuc2.CIDToDataCommitment(r)
	assert.ErrorIs(t, err, gpuc2.ErrBadInput)
	_, err = gpuc2.CIDToDataCommitment(cid.Undef)
	assert.ErrorIs(t, err, gpuc2.ErrBadInput)
	_, err = gpuc2.CIDToReplicaCommitment(cid.MustParse("bafkreih25dih6ug3xtj73vswccw423b56ilrwmnos4cbwhrceudopdp5sq"))
	assert.ErrorIs(t, err, gpuc2.ErrBadInput)
}
