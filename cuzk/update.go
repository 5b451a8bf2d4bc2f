package cuzk

import (
	"context"
	"fmt"

	commcid "github.com/filecoin-project/go-fil-commcid"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/ipfs/go-cid"

	"github.com/gpuc2/gpuc2"
	pb "github.com/gpuc2/gpuc2/cuzk/cuzkv1"
	"github.com/gpuc2/gpuc2/internal/errtext"
)

// updateSpec is a SNAP_DEALS_UPDATE request: a known update proof type
// matching sector_size, the partition proofs, the three commitments.
func (s *Server) updateSpec(req *pb.SubmitProofRequest) (proofSpec, error) {
	ureq, err := updateRequest(req)
	if err != nil {
		return proofSpec{}, err
	}
	vanillaBytes := 0
	for _, v := range ureq.VanillaProofs {
		vanillaBytes += len(v)
	}
	name := gpuc2.UpdateProofName(ureq.ProofType)
	c, _ := circuitOf(gpuc2.UpdateProofCircuit(ureq.ProofType)) // updateRequest checked it
	return proofSpec{
		// The proof binds the commitments and the partition proofs; the
		// sector and miner do not enter it, but a request naming another
		// sector is another request.
		content: contentOf(uintField(fieldKind, uint64(req.GetProofKind())), uintField("registered_proof", uint64(ureq.ProofType)),
			uintField("sector_size", uint64(c.size)), uintField("sector_number", req.GetSectorNumber()),
			uintField("miner_id", req.GetMinerId()), bytesField("vanilla_proofs", ureq.VanillaProofs...),
			bytesField("comm_r_old", ureq.OldSealed.Bytes()), bytesField("comm_r_new", ureq.NewSealed.Bytes()),
			bytesField("comm_d_new", ureq.NewUnsealed.Bytes())),
		what: fmt.Sprintf("%s update %s → %s (data %s), sector %d of miner %d", name, ureq.OldSealed, ureq.NewSealed,
			ureq.NewUnsealed, req.GetSectorNumber(), req.GetMinerId()),
		priority: ureq.Priority,
		prove: func(label string) proveFunc {
			ureq.Label = label
			return func(ctx context.Context) ([]byte, gpuc2.ProofTimings, error) {
				res, err := s.prover.ProveUpdate(ctx, ureq)
				if err != nil {
					return nil, gpuc2.ProofTimings{}, err
				}
				return res.Proof, res.Timings, nil
			}
		},
		attrs: []any{"proof", name, "sector", req.GetSectorNumber(), "miner", req.GetMinerId(), "comm_r_new", ureq.NewSealed,
			"partitions", len(ureq.VanillaProofs), "vanilla_bytes", vanillaBytes},
	}, nil
}

// updateRequest is the facade's request for a SNAP_DEALS_UPDATE, as
// Curio's ProveUpdateCuzk fills it: registered_proof an
// abi.RegisteredUpdateProof, vanilla_proofs the partition proofs (bincode)
// of its stored JSON array, the commitments as 32 raw bytes or CIDs. The
// partition count is the facade's to check.
func updateRequest(req *pb.SubmitProofRequest) (gpuc2.UpdateRequest, error) {
	t := abi.RegisteredUpdateProof(req.GetRegisteredProof())
	c, ok := circuit{}, false
	if req.GetRegisteredProof() <= 1<<31 {
		c, ok = circuitOf(gpuc2.UpdateProofCircuit(t))
	}
	if !ok {
		return gpuc2.UpdateRequest{}, invalid("registered_proof %d is no RegisteredUpdateProof (StackedDrg2KiBV1 = 0 … StackedDrg64GiBV1 = 4)",
			req.GetRegisteredProof())
	}
	if req.GetSectorSize() != 0 && req.GetSectorSize() != uint64(c.size) {
		return gpuc2.UpdateRequest{}, invalid("sector_size %d does not match registered_proof %d, whose sectors are %d bytes",
			req.GetSectorSize(), req.GetRegisteredProof(), uint64(c.size))
	}
	proofs, err := vanillaProofs(req)
	if err != nil {
		return gpuc2.UpdateRequest{}, err
	}
	out := gpuc2.UpdateRequest{ProofType: t, VanillaProofs: proofs, Priority: priority(req.GetPriority())}
	for _, f := range []struct {
		name    string
		b       []byte
		replica bool
		to      *cid.Cid
	}{
		{"comm_r_old", req.GetCommROld(), true, &out.OldSealed},
		{"comm_r_new", req.GetCommRNew(), true, &out.NewSealed},
		{"comm_d_new", req.GetCommDNew(), false, &out.NewUnsealed},
	} {
		if *f.to, err = commitment(f.name, f.b, f.replica); err != nil {
			return gpuc2.UpdateRequest{}, err
		}
	}
	return out, nil
}

// vanillaProofs are req's partition proofs: vanilla_proofs, one per
// partition, or (a client that did not split it) Curio's stored JSON
// array in vanilla_proof.
func vanillaProofs(req *pb.SubmitProofRequest) ([][]byte, error) {
	proofs, joined := req.GetVanillaProofs(), req.GetVanillaProof()
	switch {
	case len(proofs) > 0 && len(joined) > 0:
		return nil, invalid("both vanilla_proofs and vanilla_proof are set: SNAP_DEALS_UPDATE takes its partition proofs in vanilla_proofs")
	case len(proofs) == 0 && len(joined) == 0:
		return nil, invalid("vanilla_proofs is empty: SNAP_DEALS_UPDATE takes one partition proof per partition there")
	case len(proofs) == 0:
		var err error
		if proofs, err = gpuc2.SplitUpdateVanillaProofsJSON(joined); err != nil {
			return nil, invalid("vanilla_proof (%d bytes) is no JSON array of partition proofs: %v", len(joined), err)
		}
	}
	for k, p := range proofs {
		if len(p) == 0 {
			return nil, invalid("vanilla_proofs[%d] is empty", k)
		}
	}
	return proofs, nil
}

// commitment reads a SnapDeals commitment field: 32 bytes are the raw
// commitment (little-endian, as a CID's digest holds it: the .proto's
// form), anything else a binary CID (cid.Bytes(), what Curio's cuzk
// client has sent), which must be of the field's kind: a replica
// (sealed) commitment for comm_r_*, a data (unsealed) one for comm_d_new.
func commitment(field string, b []byte, replica bool) (cid.Cid, error) {
	toCID, check, kind := commcid.DataCommitmentV1ToCID, commcid.CIDToDataCommitmentV1, "data (unsealed) commitment"
	if replica {
		toCID, check, kind = commcid.ReplicaCommitmentV1ToCID, commcid.CIDToReplicaCommitmentV1, "replica (sealed) commitment"
	}
	switch len(b) {
	case 0:
		return cid.Undef, invalid("%s is empty: SNAP_DEALS_UPDATE needs the %s (32 bytes, or its CID)", field, kind)
	case 32:
		c, err := toCID(b)
		if err != nil {
			return cid.Undef, invalid("%s: %v", field, err)
		}
		return c, nil
	}
	c, err := cid.Cast(b)
	if err != nil {
		return cid.Undef, invalid("%s (%d bytes) is neither a 32-byte commitment nor a CID: %v", field, len(b), err)
	}
	if _, err := check(c); err != nil {
		return cid.Undef, invalid("%s %s is no %s CID: %v", field, errtext.Quote(c.String()), kind, err)
	}
	return c, nil
}
