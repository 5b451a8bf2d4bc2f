package merkle

import (
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/synth/internal/codec"
)

// Caps on the lists of a decoded Proof, far above any tree's needs (a
// 64 GiB tree R has 11 levels; arities are at most 16), checked before
// allocation so that hostile input cannot make a decoder allocate much
// more than its own size.
const (
	MaxPathLen = 64 // levels of one part (base, sub or top)
	MaxHashes  = 16 // hashes of one level
)

// ErrBadProof is wrapped by every error of DecodeProofBincode.
var ErrBadProof = errors.New("merkle: bad proof")

// The bincode form (bincode 1 of storage-proofs-core's MerkleProof):
//
//	u32 variant tag (0 Single, 1 Sub, 2 Top), then
//	Single: root, leaf, path
//	Sub:    base_proof, sub_proof, root, leaf
//	Top:    base_proof, sub_proof, top_proof, root, leaf
//
// where a path is a u64 count of levels, each a u64 count of hashes, the
// hashes (32 bytes each) and a u64 index; values are 32 little-endian
// bytes. The JSON form (serde_json) only C1 carries: synth/porep reads it.

// DecodeProofBincode decodes the bincode Proof at the start of b and
// returns it with the number of bytes it took. T is fr.Element for Poseidon
// trees (values must be canonical) or [32]byte for SHA-256 trees (taken as
// they are: CheckShape checks them). Errors wrap ErrBadProof and name the
// field ("data.Single.path.path[3].hashes") and the offset in b.
func DecodeProofBincode[T Domain](b []byte) (Proof[T], int, error) {
	r := codec.NewReader(b)
	var m Proof[T]
	if err := ReadProofBincode(r, &m); err != nil {
		return Proof[T]{}, r.Offset(), fmt.Errorf("%w: %w", ErrBadProof, err)
	}
	return m, r.Offset(), nil
}

// ReadProofBincode decodes a bincode Proof into m at r's position, for the
// decoders of the formats that embed Merkle proofs (the circuit packages
// under synth). Its lists come from r's slabs; its errors are r's
// (*codec.Error), naming fields below r's path.
func ReadProofBincode[T Domain](r *codec.Reader, m *Proof[T]) error {
	r.Push("data", -1)
	defer r.Pop()
	tag, err := r.U32()
	if err != nil {
		return err
	}
	if tag > uint32(ProofTop) {
		return r.Errf("unknown proof variant tag %d", tag)
	}
	m.Kind = ProofKind(tag)
	r.Push(m.Kind.String(), -1)
	defer r.Pop()
	value := func(name string, v *T) error {
		r.Push(name, -1)
		defer r.Pop()
		return readValue(r, v)
	}
	path := func(name string, p *[]ProofElement[T]) (err error) {
		r.Push(name, -1)
		defer r.Pop()
		*p, err = readPath[T](r)
		return err
	}
	if m.Kind == ProofSingle {
		if err := value("root", &m.Root); err != nil {
			return err
		}
		if err := value("leaf", &m.Leaf); err != nil {
			return err
		}
		return path("path", &m.Base)
	}
	if err := path("base_proof", &m.Base); err != nil {
		return err
	}
	if err := path("sub_proof", &m.Sub); err != nil {
		return err
	}
	if m.Kind == ProofTop {
		if err := path("top_proof", &m.Top); err != nil {
			return err
		}
	}
	if err := value("root", &m.Root); err != nil {
		return err
	}
	return value("leaf", &m.Leaf)
}

func readValue[T Domain](r *codec.Reader, v *T) error {
	if p, ok := any(v).(*fr.Element); ok {
		return r.Felt(p)
	}
	return r.Raw32(any(v).(*[32]byte))
}

func readValues[T Domain](r *codec.Reader) (out []T, err error) {
	switch p := any(&out).(type) {
	case *[]fr.Element:
		*p, err = r.Felts(MaxHashes, "hashes")
	case *[][32]byte:
		*p, err = r.Raw32s(MaxHashes, "hashes")
	}
	return out, err
}

// {path: [{hashes, index}, …]}
func readPath[T Domain](r *codec.Reader) ([]ProofElement[T], error) {
	// each element: u64 hashes length + u64 index at least
	n, err := r.Len(MaxPathLen, 16, "path elements")
	if err != nil || n == 0 {
		return nil, err
	}
	out := make([]ProofElement[T], n)
	r.Push("path", -1)
	defer r.Pop()
	for k := range out {
		r.Push("", k)
		r.Push("hashes", -1)
		out[k].Hashes, err = readValues[T](r)
		r.Pop()
		if err == nil {
			r.Push("index", -1)
			out[k].Index, err = r.U64()
			r.Pop()
		}
		r.Pop()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// AppendProofBincode appends m's bincode form to b.
func AppendProofBincode[T Domain](b []byte, m *Proof[T]) []byte {
	w := &codec.Writer{B: b}
	w.U32(uint32(m.Kind))
	if m.Kind == ProofSingle {
		writeValue(w, &m.Root)
		writeValue(w, &m.Leaf)
		writePath(w, m.Base)
		return w.B
	}
	writePath(w, m.Base)
	writePath(w, m.Sub)
	if m.Kind == ProofTop {
		writePath(w, m.Top)
	}
	writeValue(w, &m.Root)
	writeValue(w, &m.Leaf)
	return w.B
}

func writeValue[T Domain](w *codec.Writer, v *T) {
	if p, ok := any(v).(*fr.Element); ok {
		w.Felt(p)
		return
	}
	w.Raw(any(v).(*[32]byte)[:])
}

func writePath[T Domain](w *codec.Writer, p []ProofElement[T]) {
	w.U64(uint64(len(p)))
	for k := range p {
		w.U64(uint64(len(p[k].Hashes)))
		for h := range p[k].Hashes {
			writeValue(w, &p[k].Hashes[h])
		}
		w.U64(p[k].Index)
	}
}
