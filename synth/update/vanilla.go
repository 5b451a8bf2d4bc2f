package update

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/synth/internal/codec"
	"github.com/gpuc2/gpuc2/synth/merkle"
)

// PartitionProof is one vanilla partition proof (vanilla.rs
// PartitionProof<TreeR>).
type PartitionProof struct {
	CommC      fr.Element
	ApexLeaves [][32]byte // tree D new nodes (SHA-254, little-endian)
	Challenges []ChallengeProof
}

// ChallengeProof opens one challenged node in tree R old, tree D new and
// tree R new (vanilla.rs ChallengeProof).
type ChallengeProof struct {
	ROld merkle.Proof[fr.Element]
	DNew merkle.Proof[[32]byte]
	RNew merkle.Proof[fr.Element]
}

// Caps on counts read from input, checked before allocation; the largest
// real proof (64 GiB) has 16 partitions, 128 apex leaves, 86 challenges.
const (
	maxPartitions = 64
	maxApexLeaves = 1024
	maxChallenges = 1024
)

// ParseVanillaProofsJSON reads the vanilla proofs as Curio stores them
// (the snap-vproof file ReadSnapVanillaProof returns): a JSON array of
// byte strings (base64, Go's encoding of [][]byte), one per partition, each
// the bincode PartitionProof filecoin-proofs-api's
// generate_partition_proofs returns (PartitionProofBytes). It does not
// decode the partitions: DecodeVanillaProofs does.
func ParseVanillaProofsJSON(data []byte) ([][]byte, error) {
	var out [][]byte
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&out); err != nil {
		return nil, &ProofError{Partition: -1, Challenge: -1, Msg: "not a JSON array of base64 byte strings", Err: err}
	}
	// Only whitespace may follow the array: a NUL or anything else is
	// refused, its offset and count said.
	if rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return nil, badProof(-1, -1, "", "JSON offset %d: %d trailing bytes after the array (the first %q)",
			len(data)-len(rest), len(rest), rest[0])
	}
	if len(out) > maxPartitions {
		return nil, badProof(-1, -1, "", "%d partitions, more than the cap of %d", len(out), maxPartitions)
	}
	return out, nil
}

// DecodeVanillaProofs decodes one bincode PartitionProof per partition and
// checks their shape against p (Validate). It does no hashing: Check does.
func DecodeVanillaProofs(p Params, proofs [][]byte) ([]*PartitionProof, error) {
	if len(proofs) != p.Partitions {
		return nil, badProof(-1, -1, "", "got %d partition proofs, want %d for %d-byte sectors", len(proofs), p.Partitions, p.SectorSize)
	}
	out := make([]*PartitionProof, len(proofs))
	for k, b := range proofs {
		pp, err := DecodePartitionProof(b)
		if err != nil {
			var pe *ProofError
			if errors.As(err, &pe) {
				pe.Partition = k
			}
			return nil, err
		}
		out[k] = pp
	}
	return out, Validate(p, out)
}

// DecodePartitionProof decodes one bincode PartitionProof: comm_c (32
// bytes), apex_leafs (u64 count, 32 bytes each), challenge_proofs (u64
// count, each three Merkle proofs in merkle's bincode: r_old, d_new,
// r_new). Values read as field elements must be canonical; the whole input
// must be used.
func DecodePartitionProof(b []byte) (*PartitionProof, error) {
	r := codec.NewReader(b)
	chal := -1
	pp, err := decodePartitionProof(r, &chal)
	if err != nil {
		var ce *codec.Error
		if errors.As(err, &ce) {
			return nil, &ProofError{Partition: -1, Challenge: chal, Field: ce.Field, Msg: ce.Detail()}
		}
		return nil, err
	}
	return pp, nil
}

// decodePartitionProof is DecodePartitionProof's reading; *chal is the
// challenge being read (−1 outside).
func decodePartitionProof(r *codec.Reader, chal *int) (*PartitionProof, error) {
	pp := &PartitionProof{}
	r.Push("comm_c", -1)
	err := r.Felt(&pp.CommC)
	r.Pop()
	if err != nil {
		return nil, err
	}
	r.Push("apex_leafs", -1)
	pp.ApexLeaves, err = r.Raw32s(maxApexLeaves, "apex leaves")
	r.Pop()
	if err != nil {
		return nil, err
	}
	r.Push("challenge_proofs", -1)
	// a challenge proof takes at least three Single proofs of 4 + 64 + 8 bytes
	n, err := r.Len(maxChallenges, 3*76, "challenge proofs")
	r.Pop()
	if err != nil {
		return nil, err
	}
	pp.Challenges = make([]ChallengeProof, n)
	for i := range pp.Challenges {
		*chal = i
		c := &pp.Challenges[i]
		err := readProof(r, "proof_r_old", &c.ROld)
		if err == nil {
			err = readProof(r, "proof_d_new", &c.DNew)
		}
		if err == nil {
			err = readProof(r, "proof_r_new", &c.RNew)
		}
		if err != nil {
			return nil, err
		}
	}
	*chal = -1
	return pp, r.End()
}

func readProof[T merkle.Domain](r *codec.Reader, field string, m *merkle.Proof[T]) error {
	r.Push(field, -1)
	defer r.Pop()
	return merkle.ReadProofBincode(r, m)
}

// AppendBincode appends pp's bincode form (the inverse of
// DecodePartitionProof) to b.
func (pp *PartitionProof) AppendBincode(b []byte) []byte {
	w := codec.Writer{B: b}
	w.Felt(&pp.CommC)
	w.U64(uint64(len(pp.ApexLeaves)))
	for j := range pp.ApexLeaves {
		w.Raw(pp.ApexLeaves[j][:])
	}
	w.U64(uint64(len(pp.Challenges)))
	for i := range pp.Challenges {
		c := &pp.Challenges[i]
		w.B = merkle.AppendProofBincode(w.B, &c.ROld)
		w.B = merkle.AppendProofBincode(w.B, &c.DNew)
		w.B = merkle.AppendProofBincode(w.B, &c.RNew)
	}
	return w.B
}

// EncodeVanillaProofsJSON writes partition proofs in Curio's form (the
// inverse of ParseVanillaProofsJSON and DecodeVanillaProofs).
func EncodeVanillaProofsJSON(proofs []*PartitionProof) ([]byte, error) {
	return json.Marshal(EncodeVanillaProofs(proofs))
}

// EncodeVanillaProofs is each partition proof in bincode, as filecoin-ffi's
// GenerateUpdateVanillaProofs returns them (the inverse of
// DecodeVanillaProofs).
func EncodeVanillaProofs(proofs []*PartitionProof) [][]byte {
	raw := make([][]byte, len(proofs))
	for k, pp := range proofs {
		raw[k] = pp.AppendBincode(nil)
	}
	return raw
}

// CommitmentBytes is a commitment's 32 little-endian bytes, as a CID's
// digest holds it (the inverse of CommitmentFromBytes).
func CommitmentBytes(e fr.Element) [32]byte { return leBytes(&e) }

func leBytes(v *fr.Element) [32]byte {
	var b [32]byte
	fr.LittleEndian.PutElement(&b, *v)
	return b
}
