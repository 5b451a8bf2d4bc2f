package cuzk

import (
	"bytes"
	"testing"

	commcid "github.com/filecoin-project/go-fil-commcid"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/ipfs/go-cid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/gpuc2/gpuc2"
	pb "github.com/gpuc2/gpuc2/cuzk/cuzkv1"
)

// The commitments as 32 raw bytes (the .proto's form) and as binary CIDs
// (cid.Bytes()) make the same facade request, whose CIDs hold the raw
// bytes as their digests.
func TestUpdateRequestCommitmentForms(t *testing.T) {
	rOld, rNew, dNew := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32), bytes.Repeat([]byte{3}, 32)
	raw := &pb.SubmitProofRequest{ProofKind: pb.ProofKind_SNAP_DEALS_UPDATE, RegisteredProof: uint64(abi.RegisteredUpdateProof_StackedDrg32GiBV1),
		SectorSize: 32 << 30, Priority: pb.Priority_HIGH, VanillaProofs: [][]byte{{1}, {2}}, CommROld: rOld, CommRNew: rNew, CommDNew: dNew}
	fromRaw, err := updateRequest(raw)
	require.NoError(t, err)
	assert.Equal(t, abi.RegisteredUpdateProof_StackedDrg32GiBV1, fromRaw.ProofType)
	assert.Equal(t, gpuc2.PriorityHigh, fromRaw.Priority)
	assert.Equal(t, [][]byte{{1}, {2}}, fromRaw.VanillaProofs)
	for name, c := range map[string]struct {
		got  cid.Cid
		want []byte
		data bool
	}{"comm_r_old": {fromRaw.OldSealed, rOld, false}, "comm_r_new": {fromRaw.NewSealed, rNew, false}, "comm_d_new": {fromRaw.NewUnsealed, dNew, true}} {
		var digest []byte
		if c.data {
			digest, err = commcid.CIDToDataCommitmentV1(c.got)
		} else {
			digest, err = commcid.CIDToReplicaCommitmentV1(c.got)
		}
		require.NoError(t, err, name)
		assert.Equal(t, c.want, digest, name)
	}

	asCIDs := proto.Clone(raw).(*pb.SubmitProofRequest)
	asCIDs.CommROld, asCIDs.CommRNew, asCIDs.CommDNew = fromRaw.OldSealed.Bytes(), fromRaw.NewSealed.Bytes(), fromRaw.NewUnsealed.Bytes()
	fromCIDs, err := updateRequest(asCIDs)
	require.NoError(t, err)
	assert.Equal(t, fromRaw, fromCIDs)

	sizeless := proto.Clone(raw).(*pb.SubmitProofRequest)
	sizeless.SectorSize = 0 // not set: registered_proof alone says it
	_, err = updateRequest(sizeless)
	assert.NoError(t, err)
}

// A CID of the wrong kind is refused by field, its text quoted and cut.
func TestCommitmentRefusals(t *testing.T) {
	// An identity multihash holds its data: a CID as long as one likes.
	huge, err := cid.Prefix{Version: 1, Codec: cid.FilCommitmentSealed, MhType: 0x00, MhLength: -1}.Sum(bytes.Repeat([]byte("x"), 500))
	require.NoError(t, err)
	_, err = commitment("comm_r_new", huge.Bytes(), true)
	require.Equal(t, codes.InvalidArgument, status.Code(err))
	assert.Contains(t, err.Error(), gpuc2.ErrBadInput.Error())
	assert.Contains(t, err.Error(), "comm_r_new \"")
	assert.Contains(t, err.Error(), "… (")
	assert.Less(t, len(err.Error()), 400)

	sealed, err := commcid.ReplicaCommitmentV1ToCID(bytes.Repeat([]byte{9}, 32))
	require.NoError(t, err)
	_, err = commitment("comm_d_new", sealed.Bytes(), false)
	assert.ErrorContains(t, err, "comm_d_new")
	assert.ErrorContains(t, err, "is no data (unsealed) commitment CID")
	c, err := commitment("comm_r_old", sealed.Bytes(), true)
	require.NoError(t, err)
	assert.Equal(t, sealed, c)
}

// FuzzCommitment: whatever bytes a client sends for a commitment, the
// decoder returns a CID of the field's kind with a 32-byte digest, or an
// InvalidArgument of bounded length; it never panics.
func FuzzCommitment(f *testing.F) {
	raw := make([]byte, 32)
	raw[0] = 1
	replica, err := commcid.ReplicaCommitmentV1ToCID(raw)
	require.NoError(f, err)
	data, err := commcid.DataCommitmentV1ToCID(raw)
	require.NoError(f, err)
	for _, seed := range [][]byte{nil, raw, replica.Bytes(), data.Bytes(), []byte("garbage"), make([]byte, 31)} {
		f.Add(seed, true)
		f.Add(seed, false)
	}
	f.Fuzz(func(t *testing.T, b []byte, isReplica bool) {
		c, err := commitment("comm_r_old", b, isReplica)
		if err != nil {
			assert.Equal(t, codes.InvalidArgument, status.Code(err))
			assert.Less(t, len(err.Error()), 512, "bounded error text")
			return
		}
		read := commcid.CIDToDataCommitmentV1
		if isReplica {
			read = commcid.CIDToReplicaCommitmentV1
		}
		d, err := read(c)
		require.NoError(t, err)
		assert.Len(t, d, 32)
	})
}
