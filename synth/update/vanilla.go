package update

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/synth/porep"
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
	ROld porep.MerkleProof[fr.Element]
	DNew porep.MerkleProof[[32]byte]
	RNew porep.MerkleProof[fr.Element]
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

// pdec reads the fields of a PartitionProof around the Merkle proofs,
// which porep decodes.
type pdec struct {
	b []byte
	i int
}

func (d *pdec) errf(field, format string, args ...any) *ProofError {
	return badProof(-1, -1, field, "bincode offset %d: "+format, append([]any{d.i}, args...)...)
}

func (d *pdec) length(field string, max, minSize int) (int, error) {
	if len(d.b)-d.i < 8 {
		return 0, d.errf(field, "unexpected end of input")
	}
	v := binary.LittleEndian.Uint64(d.b[d.i:])
	if v > uint64(max) {
		return 0, d.errf(field, "length %d, more than the cap of %d", v, max)
	}
	d.i += 8
	if uint64(len(d.b)-d.i) < v*uint64(minSize) {
		return 0, d.errf(field, "length %d does not fit the %d bytes left", v, len(d.b)-d.i)
	}
	return int(v), nil
}

func (d *pdec) raw32(field string, out *[32]byte) error {
	if len(d.b)-d.i < 32 {
		return d.errf(field, "unexpected end of input")
	}
	copy(out[:], d.b[d.i:])
	d.i += 32
	return nil
}

func merkleAt[T porep.Domain](d *pdec, field string, m *porep.MerkleProof[T]) error {
	v, n, err := porep.DecodeMerkleProofBincode[T](d.b[d.i:])
	if err != nil {
		pe := &ProofError{Partition: -1, Challenge: -1, Field: field, Msg: err.Error()}
		var ce *porep.C1Error
		if errors.As(err, &ce) {
			pe.Field, pe.Msg = field+"."+ce.Field, fmt.Sprintf("bincode offset %d: %s", d.i, ce.Msg)
		}
		return pe
	}
	*m = v
	d.i += n
	return nil
}

// DecodePartitionProof decodes one bincode PartitionProof: comm_c (32
// bytes), apex_leafs (u64 count, 32 bytes each), challenge_proofs (u64
// count, each three MerkleProofs: r_old, d_new, r_new). Values read as
// field elements must be canonical; the whole input must be used.
func DecodePartitionProof(b []byte) (*PartitionProof, error) {
	d := &pdec{b: b}
	pp := &PartitionProof{}
	var raw [32]byte
	if err := d.raw32("comm_c", &raw); err != nil {
		return nil, err
	}
	var err error
	if pp.CommC, err = fr.LittleEndian.Element(&raw); err != nil {
		return nil, badProof(-1, -1, "comm_c", "value is not a canonical field element (>= r)")
	}
	n, err := d.length("apex_leafs", maxApexLeaves, 32)
	if err != nil {
		return nil, err
	}
	pp.ApexLeaves = make([][32]byte, n)
	for j := range pp.ApexLeaves {
		if err := d.raw32(fmt.Sprintf("apex_leafs[%d]", j), &pp.ApexLeaves[j]); err != nil {
			return nil, err
		}
	}
	// a challenge proof takes at least three Single proofs of 4 + 64 + 8 bytes
	if n, err = d.length("challenge_proofs", maxChallenges, 3*76); err != nil {
		return nil, err
	}
	pp.Challenges = make([]ChallengeProof, n)
	for i := range pp.Challenges {
		c := &pp.Challenges[i]
		err := merkleAt(d, "proof_r_old", &c.ROld)
		if err == nil {
			err = merkleAt(d, "proof_d_new", &c.DNew)
		}
		if err == nil {
			err = merkleAt(d, "proof_r_new", &c.RNew)
		}
		if err != nil {
			err.(*ProofError).Challenge = i
			return nil, err
		}
	}
	if d.i != len(b) {
		return nil, d.errf("", "%d trailing bytes", len(b)-d.i)
	}
	return pp, nil
}

// AppendBincode appends pp's bincode form (the inverse of
// DecodePartitionProof) to b.
func (pp *PartitionProof) AppendBincode(b []byte) []byte {
	c := leBytes(&pp.CommC)
	b = append(b, c[:]...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(pp.ApexLeaves)))
	for j := range pp.ApexLeaves {
		b = append(b, pp.ApexLeaves[j][:]...)
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(len(pp.Challenges)))
	for i := range pp.Challenges {
		c := &pp.Challenges[i]
		b = porep.AppendMerkleProofBincode(b, &c.ROld)
		b = porep.AppendMerkleProofBincode(b, &c.DNew)
		b = porep.AppendMerkleProofBincode(b, &c.RNew)
	}
	return b
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
