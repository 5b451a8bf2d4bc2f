package realproofs

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// ReplicaID is the sector's replica_id, from the record's prover_id,
// sector_id, ticket, comm_d and porep_id.
func (r *Record) ReplicaID() [32]byte {
	return porep.ReplicaIDFromProverID(r.ProverID, r.SectorID, r.Ticket, r.CommD, r.PoRepID)
}

// PublicInputs are each partition's Groth16 public inputs (without ONE),
// computed as gpuc2's VerifySeal computes them, from the record's values
// alone: replica_id, comm_d, comm_r, and per challenge (from the seed, and
// comm_r for synthetic PoRep) the node and its parents.
func (r *Record) PublicInputs() ([][]fr.Element, error) {
	g := r.params.Graph()
	rid := r.ReplicaID()
	out := make([][]fr.Element, r.Partitions)
	for k := range out {
		var err error
		if out[k], err = r.params.PublicInputs(g, rid, r.CommD, r.CommR, r.Seed, k); err != nil {
			return nil, fmt.Errorf("%w: line %d: partition %d: %w", ErrBadRecord, r.Line, k, err)
		}
	}
	return out, nil
}

// Proofs decodes the record's proof: per partition, bellperson's
// compressed A (G1), B (G2), C (G1), each a point of the prime-order
// subgroup (groth16.UnmarshalProofs checks).
func (r *Record) Proofs() ([]groth16.Proof, error) {
	ps, err := groth16.UnmarshalProofs(r.Proof)
	if err != nil {
		return nil, fmt.Errorf("%w: line %d: %w", ErrBadRecord, r.Line, err)
	}
	return ps, nil
}

// Verify checks the record's proof against a verifying key, as
// rust-fil-proofs' verify_seal does: (false, nil) for a proof that does
// not verify; an error wrapping ErrBadRecord for one that does not decode.
func (r *Record) Verify(vk *groth16.PreparedVerifyingKey) (bool, error) {
	proofs, err := r.Proofs()
	if err != nil {
		return false, err
	}
	public, err := r.PublicInputs()
	if err != nil {
		return false, err
	}
	return vk.BatchVerify(proofs, public)
}

// Tampered is a copy of a record with one value changed, which no valid
// verifier accepts.
type Tampered struct {
	What   string // the change
	Record Record
}

// Tampered returns four copies of r, each with one change: a bit of the
// proof flipped (the low bit of C's x coordinate: the point falls off the
// curve or out of the subgroup, so the proof no longer decodes), a bit of
// comm_r, a bit of the seed, and the next sector number.
func (r *Record) Tampered() []Tampered {
	proof := append([]byte(nil), r.Proof...)
	proof[len(proof)-1] ^= 1
	commR, seed := r.CommR, r.Seed
	commR[0] ^= 1 // the low bit of a little-endian value: still a field element
	seed[0] ^= 1
	out := []Tampered{
		{"a bit of the proof flipped", *r}, {"a bit of comm_r flipped", *r},
		{"a bit of the seed flipped", *r}, {"the next sector number", *r},
	}
	out[0].Record.Proof = proof
	out[1].Record.CommR = commR
	out[2].Record.Seed = seed
	out[3].Record.SectorID++
	return out
}

// Result counts one kind of record's outcome (Check).
type Result struct {
	Kind     string // Record.Kind
	Records  int
	Verified int   // records whose proof verified
	Tampered int   // tampered copies (four per record)
	Rejected int   // tampered copies that did not verify
	Err      error // the first error of a genuine record, if any
}

// Check verifies every record against vk, and every record's tampered
// copies, counting per kind in the records' order of first appearance. A
// record's error is kept in Result.Err; a tampered copy's error counts as
// a rejection (the flipped proof bit fails its decoding).
func Check(vk *groth16.PreparedVerifyingKey, recs []Record) []Result {
	var out []Result
	index := map[string]int{}
	for i := range recs {
		r := &recs[i]
		k, ok := index[r.Kind()]
		if !ok {
			k = len(out)
			index[r.Kind()] = k
			out = append(out, Result{Kind: r.Kind()})
		}
		res := &out[k]
		res.Records++
		if ok, err := r.Verify(vk); ok {
			res.Verified++
		} else if err != nil && res.Err == nil {
			res.Err = err
		}
		for _, t := range r.Tampered() {
			res.Tampered++
			if ok, _ := t.Record.Verify(vk); !ok {
				res.Rejected++
			}
		}
	}
	return out
}

// OK reports whether every record verified and every tampered copy was
// rejected.
func (r Result) OK() bool {
	return r.Verified == r.Records && r.Rejected == r.Tampered
}
