package cuzk

import (
	"context"
	"fmt"
	"strings"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2"
	pb "github.com/gpuc2/gpuc2/cuzk/cuzkv1"
)

// postSpec is a WINDOW_POST_PARTITION or a WINNING_POST request: a PoSt
// proof type served for that kind, matching sector_size, the 32-byte
// randomness, the sectors' vanilla proofs, and for a WindowPoSt the
// partition index.
func (s *Server) postSpec(req *pb.SubmitProofRequest) (proofSpec, error) {
	preq, size, err := postRequest(req)
	if err != nil {
		return proofSpec{}, err
	}
	vanillaBytes := 0
	for _, v := range preq.VanillaProofs {
		vanillaBytes += len(v)
	}
	name := gpuc2.PoStProofName(preq.ProofType)
	what := fmt.Sprintf("%s of miner %d, %d sectors", name, preq.Miner, len(preq.VanillaProofs))
	if req.GetProofKind() == pb.ProofKind_WINDOW_POST_PARTITION {
		what = fmt.Sprintf("%s partition %d of miner %d, %d sectors", name, preq.Partition, preq.Miner, len(preq.VanillaProofs))
	}
	return proofSpec{
		// The proof binds the randomness and the vanilla proofs; the
		// partition index does not enter the live window types' challenges,
		// but a request naming another partition is another request.
		content: contentOf(uintField(fieldKind, uint64(req.GetProofKind())), uintField("registered_proof", uint64(preq.ProofType)),
			uintField("sector_size", uint64(size)), uintField("miner_id", req.GetMinerId()),
			bytesField("randomness", preq.Randomness), uintField("partition_index", uint64(req.GetPartitionIndex())),
			bytesField("vanilla_proofs", preq.VanillaProofs...)),
		what:     what,
		priority: preq.Priority,
		prove: func(label string) proveFunc {
			preq.Label = label
			return func(ctx context.Context) ([]byte, gpuc2.ProofTimings, error) {
				res, err := s.prover.ProvePoSt(ctx, preq)
				if err != nil {
					return nil, gpuc2.ProofTimings{}, err
				}
				return res.Proof.ProofBytes, res.Timings, nil
			}
		},
		attrs: []any{"proof", name, "miner", req.GetMinerId(), "partition", req.GetPartitionIndex(),
			"sectors", len(preq.VanillaProofs), "vanilla_bytes", vanillaBytes},
	}, nil
}

// postProofCircuit is gpuc2.PoStProofCircuit; a test may stand in for it
// while the facade's table lacks the PoSt circuits.
var postProofCircuit = gpuc2.PoStProofCircuit

// postRequest is the facade's request for a WINDOW_POST_PARTITION or a
// WINNING_POST, as Curio's WindowPoStCuzk and WinningPoStCuzk fill it:
// registered_proof an abi.RegisteredPoStProof of the request's kind,
// randomness 32 bytes, vanilla_proofs one bincode FallbackPoStSectorProof
// per sector (filecoin-ffi's GenerateSingleVanillaProof), partition_index
// a WindowPoSt's partition. The sector count and the proofs themselves
// are the facade's to check. size is the proof type's sector size.
func postRequest(req *pb.SubmitProofRequest) (_ gpuc2.PoStRequest, size abi.SectorSize, _ error) {
	kind := req.GetProofKind()
	t := abi.RegisteredPoStProof(req.GetRegisteredProof())
	c, ok := gpuc2.CircuitInfo{}, false
	if req.GetRegisteredProof() <= 1<<31 {
		c, ok = postProofCircuit(t)
	}
	typeKind := postKind(c)
	if !ok || typeKind == pb.ProofKind_PROOF_KIND_UNSPECIFIED {
		return gpuc2.PoStRequest{}, 0, invalid("registered_proof %d is no RegisteredPoStProof gpuc2d serves for %v "+
			"(WinningPoSt: StackedDrgWinning2KiBV1 = 0 … StackedDrgWinning64GiBV1 = 4; WindowPoSt: "+
			"StackedDrgWindow2KiBV1_1 = 10 … StackedDrgWindow64GiBV1_1 = 14)", req.GetRegisteredProof(), kind)
	}
	if typeKind != kind {
		return gpuc2.PoStRequest{}, 0, invalid("registered_proof %d (%s) is a %v proof type, sent as %v",
			req.GetRegisteredProof(), gpuc2.PoStProofName(t), typeKind, kind)
	}
	if req.GetSectorSize() != 0 && req.GetSectorSize() != uint64(c.SectorSize) {
		return gpuc2.PoStRequest{}, 0, invalid("sector_size %d does not match registered_proof %d, whose sectors are %d bytes (%v)",
			req.GetSectorSize(), req.GetRegisteredProof(), uint64(c.SectorSize), kind)
	}
	if n := len(req.GetRandomness()); n != 32 {
		return gpuc2.PoStRequest{}, 0, invalid("randomness is %d bytes: %v takes the 32-byte PoSt randomness", n, kind)
	}
	if n := len(req.GetVanillaProof()); n > 0 {
		return gpuc2.PoStRequest{}, 0, invalid("vanilla_proof is set (%d bytes): %v takes its sectors' vanilla proofs "+
			"in vanilla_proofs, one per sector", n, kind)
	}
	proofs := req.GetVanillaProofs()
	if len(proofs) == 0 {
		return gpuc2.PoStRequest{}, 0, invalid("vanilla_proofs is empty: %v takes one vanilla proof per sector there", kind)
	}
	for k, p := range proofs {
		if len(p) == 0 {
			return gpuc2.PoStRequest{}, 0, invalid("vanilla_proofs[%d] is empty (%v)", k, kind)
		}
	}
	if kind == pb.ProofKind_WINNING_POST && req.GetPartitionIndex() != 0 {
		return gpuc2.PoStRequest{}, 0, invalid("partition_index %d: WINNING_POST has no partitions (only WINDOW_POST_PARTITION takes one)",
			req.GetPartitionIndex())
	}
	if req.GetMinerId() > 1<<63-1 {
		return gpuc2.PoStRequest{}, 0, invalid("miner_id %d is out of range", req.GetMinerId())
	}
	return gpuc2.PoStRequest{ProofType: t, Miner: abi.ActorID(req.GetMinerId()), Randomness: abi.PoStRandomness(req.GetRandomness()),
		VanillaProofs: proofs, Partition: int(req.GetPartitionIndex()), Priority: priority(req.GetPriority())}, c.SectorSize, nil
}

// postKind is the proof kind whose requests PoSt circuit c proves: the
// facade's CircuitInfo.ProofKind, else (a table that leaves it empty) the
// id's prefix; unspecified for neither PoSt kind.
func postKind(c gpuc2.CircuitInfo) pb.ProofKind {
	k := pb.ProofKind_PROOF_KIND_UNSPECIFIED
	if v, ok := pb.ProofKind_value[c.ProofKind]; ok {
		k = pb.ProofKind(v)
	} else {
		switch {
		case strings.HasPrefix(c.ID, "wpost-"):
			k = pb.ProofKind_WINDOW_POST_PARTITION
		case strings.HasPrefix(c.ID, "winning-"):
			k = pb.ProofKind_WINNING_POST
		}
	}
	if k != pb.ProofKind_WINDOW_POST_PARTITION && k != pb.ProofKind_WINNING_POST {
		return pb.ProofKind_PROOF_KIND_UNSPECIFIED
	}
	return k
}
