package main

import (
	"bytes"
	"context"
	"testing"

	commcid "github.com/filecoin-project/go-fil-commcid"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/ipfs/go-cid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	pb "github.com/gpuc2/gpuc2/cuzk/cuzkv1"
	"github.com/gpuc2/gpuc2/examples/internal/cli"
	"github.com/gpuc2/gpuc2/synth/update"
)

// -kind snap makes SNAP_DEALS_UPDATE submits as Curio's ProveUpdateCuzk
// does: the partition proofs one a field, the commitments raw or as CIDs
// of the right kind, one synthetic update per sector number.
func TestSnapRequests(t *testing.T) {
	for _, form := range []string{"raw", "cid"} {
		t.Run(form, func(t *testing.T) {
			o := &options{kind: "snap", commitments: form, sectorSize: "2KiB", count: 2, sector: 5, miner: 1000}
			reqs, err := snapRequests(context.Background(), o, pb.Priority_HIGH)
			require.NoError(t, err)
			require.Len(t, reqs, 2)
			p, err := update.ParamsFor(abi.RegisteredUpdateProof_StackedDrg2KiBV1)
			require.NoError(t, err)
			for i, r := range reqs {
				assert.Equal(t, pb.ProofKind_SNAP_DEALS_UPDATE, r.GetProofKind())
				assert.Equal(t, uint64(abi.RegisteredUpdateProof_StackedDrg2KiBV1), r.GetRegisteredProof())
				assert.Equal(t, uint64(2048), r.GetSectorSize())
				assert.Equal(t, uint64(5+i), r.GetSectorNumber())
				assert.Equal(t, pb.Priority_HIGH, r.GetPriority())
				assert.Empty(t, r.GetVanillaProof())
				_, err := update.DecodeVanillaProofs(p, r.GetVanillaProofs())
				require.NoError(t, err)
				for _, f := range []struct {
					b    []byte
					data bool
				}{{r.GetCommROld(), false}, {r.GetCommRNew(), false}, {r.GetCommDNew(), true}} {
					if form == "raw" {
						assert.Len(t, f.b, 32)
						continue
					}
					c, err := cid.Cast(f.b)
					require.NoError(t, err)
					if f.data {
						_, err = commcid.CIDToDataCommitmentV1(c)
					} else {
						_, err = commcid.CIDToReplicaCommitmentV1(c)
					}
					assert.NoError(t, err)
				}
			}
			assert.NotEqual(t, reqs[0].GetCommRNew(), reqs[1].GetCommRNew(), "two sectors, two updates")
		})
	}
}

func TestFlags(t *testing.T) {
	for _, args := range [][]string{{"-kind", "winning"}, {"-kind", "snap", "-commitments", "hex"}, {"-kind", "snap", "-c1", "c1.json"}} {
		var stderr bytes.Buffer
		err := run(context.Background(), args, &stderr, &stderr)
		assert.Equal(t, 2, cli.Code(err), "%v: %v", args, err)
	}
}
