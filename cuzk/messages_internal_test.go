package cuzk

import (
	"bytes"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	pb "github.com/gpuc2/gpuc2/cuzk/cuzkv1"
)

// A queued proof's log names its proof type in one form, go-state-types'
// name, for PoRep as for SnapDeals (not 5 beside StackedDrg2KiBV1).
func TestProofTypeLoggedByName(t *testing.T) {
	attr := func(attrs []any, key string) any {
		for i := 0; i+1 < len(attrs); i += 2 {
			if attrs[i] == key {
				return attrs[i+1]
			}
		}
		return nil
	}
	s := &Server{}
	seal, err := s.spec(&pb.SubmitProofRequest{ProofKind: pb.ProofKind_POREP_SEAL_COMMIT,
		RegisteredProof: uint64(abi.RegisteredSealProof_StackedDrg2KiBV1_1), VanillaProof: []byte("{}"), SectorNumber: 7, MinerId: 1000})
	require.NoError(t, err)
	assert.Equal(t, "StackedDrg2KiBV1_1", attr(seal.attrs, "proof"))
	assert.Equal(t, "StackedDrg2KiBV1_1 sector 7 of miner 1000", seal.what)

	comm := bytes.Repeat([]byte{1}, 32)
	update, err := s.spec(&pb.SubmitProofRequest{ProofKind: pb.ProofKind_SNAP_DEALS_UPDATE,
		RegisteredProof: uint64(abi.RegisteredUpdateProof_StackedDrg2KiBV1), VanillaProofs: [][]byte{{1}},
		CommROld: comm, CommRNew: comm, CommDNew: comm})
	require.NoError(t, err)
	assert.Equal(t, "StackedDrg2KiBV1", attr(update.attrs, "proof"))
}
