package post

import (
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/synth/internal/codec"
	"github.com/gpuc2/gpuc2/synth/merkle"
)

// SectorProof is one sector's vanilla proof (filecoin-proofs
// FallbackPoStSectorProof), as filecoin-ffi's GenerateSingleVanillaProof
// returns it in bincode.
type SectorProof struct {
	SectorID uint64
	CommR    fr.Element
	// Openings is vanilla_proof.sectors: one for a proof of
	// GenerateSingleVanillaProof.
	Openings []Opening
}

// Opening is storage-proofs-post's SectorProof: the challenged leaves'
// inclusion proofs in tree R, comm_c and comm_r_last.
type Opening struct {
	Inclusions       []merkle.Proof[fr.Element]
	CommC, CommRLast fr.Element
}

// Caps on counts read from input, checked before allocation.
const (
	maxOpenings   = 16
	maxInclusions = 1024
)

// SectorError locates a problem in one sector's vanilla proof. Challenge is
// −1 where it does not apply. It wraps ErrVanillaProof.
type SectorError struct {
	Sector    uint64 // the sector number, where it was read
	Index     int    // the proof's position in the request
	Challenge int
	Field     string // e.g. "vanilla_proof.sectors[0].inclusion_proofs[3].data.Sub.root"
	Msg       string
	Err       error // optional cause
}

func (e *SectorError) Error() string {
	prefix := fmt.Sprintf("post: bad vanilla proof of sector %d (vanilla proof %d): ", e.Sector, e.Index)
	if e.Challenge >= 0 {
		prefix += fmt.Sprintf("challenge %d: ", e.Challenge)
	}
	return codec.ErrorText(prefix, -1, -1, e.Field, e.Msg, e.Err)
}

// Unwrap returns ErrVanillaProof and the cause, if any.
func (e *SectorError) Unwrap() []error { return codec.Unwrap(ErrVanillaProof, e.Err) }

// DecodeSectorProof decodes one bincode FallbackPoStSectorProof: sector_id
// (u64), comm_r (32 bytes), vanilla_proof.sectors (u64 count, each:
// inclusion_proofs (u64 count of Merkle proofs in merkle's bincode), comm_c,
// comm_r_last). Values must be canonical field elements; the whole input
// must be used. index is the proof's position, for errors.
func DecodeSectorProof(b []byte, index int) (*SectorProof, error) {
	r := codec.NewReader(b)
	sp := &SectorProof{}
	chal := -1
	err := decodeSectorProof(r, sp, &chal)
	if err == nil {
		err = r.End()
	}
	if err != nil {
		se := &SectorError{Sector: sp.SectorID, Index: index, Challenge: chal, Msg: err.Error()}
		var ce *codec.Error
		if errors.As(err, &ce) {
			se.Field, se.Msg = ce.Field, ce.Detail()
		}
		return nil, se
	}
	return sp, nil
}

func decodeSectorProof(r *codec.Reader, sp *SectorProof, chal *int) error {
	var err error
	r.Push("sector_id", -1)
	sp.SectorID, err = r.U64()
	r.Pop()
	if err != nil {
		return err
	}
	r.Push("comm_r", -1)
	err = r.Felt(&sp.CommR)
	r.Pop()
	if err != nil {
		return err
	}
	r.Push("vanilla_proof", -1)
	defer r.Pop()
	r.Push("sectors", -1)
	// an opening takes at least its two counts' and two values' 80 bytes
	n, err := r.Len(maxOpenings, 80, "sector openings")
	r.Pop()
	if err != nil {
		return err
	}
	sp.Openings = make([]Opening, n)
	for s := range sp.Openings {
		o := &sp.Openings[s]
		r.Push("sectors", s)
		r.Push("inclusion_proofs", -1)
		// a Single proof takes at least 4 + 64 + 8 bytes
		m, err := r.Len(maxInclusions, 76, "inclusion proofs")
		r.Pop()
		if err != nil {
			return err
		}
		o.Inclusions = make([]merkle.Proof[fr.Element], m)
		for i := range o.Inclusions {
			*chal = i
			r.Push("inclusion_proofs", i)
			err := merkle.ReadProofBincode(r, &o.Inclusions[i])
			r.Pop()
			if err != nil {
				return err
			}
		}
		*chal = -1
		for _, f := range []struct {
			name string
			v    *fr.Element
		}{{"comm_c", &o.CommC}, {"comm_r_last", &o.CommRLast}} {
			r.Push(f.name, -1)
			err := r.Felt(f.v)
			r.Pop()
			if err != nil {
				return err
			}
		}
		r.Pop()
	}
	return nil
}

// AppendBincode appends sp's bincode form (the inverse of
// DecodeSectorProof) to b.
func (sp *SectorProof) AppendBincode(b []byte) []byte {
	w := codec.Writer{B: b}
	w.U64(sp.SectorID)
	w.Felt(&sp.CommR)
	w.U64(uint64(len(sp.Openings)))
	for s := range sp.Openings {
		o := &sp.Openings[s]
		w.U64(uint64(len(o.Inclusions)))
		for i := range o.Inclusions {
			w.B = merkle.AppendProofBincode(w.B, &o.Inclusions[i])
		}
		w.Felt(&o.CommC)
		w.Felt(&o.CommRLast)
	}
	return w.B
}

// EncodeSectorProofs is each proof in bincode, as GenerateSingleVanillaProof
// returns them.
func EncodeSectorProofs(proofs []*SectorProof) [][]byte {
	out := make([][]byte, len(proofs))
	for i, sp := range proofs {
		out[i] = sp.AppendBincode(nil)
	}
	return out
}
