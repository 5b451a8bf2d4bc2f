package codec

import (
	"encoding/binary"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Reader reads bincode as rust-fil-proofs writes it (bincode 1, default
// options): little-endian fixed-size integers, u64 lengths before lists,
// 32-byte values. Every error is an *Error naming the field on the Reader's
// path (Fields, embedded) and the offset.
type Reader struct {
	Fields
	b []byte
	i int
	// Frs and B32s back the lists Felts and Raw32s return.
	Frs  Slab[fr.Element]
	B32s Slab[[32]byte]
}

// NewReader reads b from its start.
func NewReader(b []byte) *Reader { return &Reader{b: b} }

// Offset is the number of bytes read.
func (r *Reader) Offset() int { return r.i }

// Left is the number of bytes not yet read.
func (r *Reader) Left() int { return len(r.b) - r.i }

// Errf is an error at the current field and offset.
func (r *Reader) Errf(format string, args ...any) *Error {
	return &Error{Field: r.String(), Offset: r.i, Msg: fmt.Sprintf(format, args...)}
}

func (r *Reader) need(n int) error {
	if n < 0 || r.Left() < n {
		return r.Errf("unexpected end of input (need %d bytes, have %d)", n, r.Left())
	}
	return nil
}

// U64 reads a u64.
func (r *Reader) U64() (uint64, error) {
	if err := r.need(8); err != nil {
		return 0, err
	}
	v := binary.LittleEndian.Uint64(r.b[r.i:])
	r.i += 8
	return v, nil
}

// U32 reads a u32 (also an enum's variant tag).
func (r *Reader) U32() (uint32, error) {
	if err := r.need(4); err != nil {
		return 0, err
	}
	v := binary.LittleEndian.Uint32(r.b[r.i:])
	r.i += 4
	return v, nil
}

// Len reads a list's u64 length: at most max, with at least minSize bytes
// per item still to read, so that what the caller then allocates is
// bounded by the input's size. what names the items in the error.
func (r *Reader) Len(max, minSize int, what string) (int, error) {
	v, err := r.U64()
	if err != nil {
		return 0, err
	}
	if v > uint64(max) {
		return 0, r.Errf("%d %s, more than the cap of %d", v, what, max)
	}
	if err := r.need(int(v) * minSize); err != nil {
		return 0, err
	}
	return int(v), nil
}

// Raw32 reads 32 bytes as they are.
func (r *Reader) Raw32(out *[32]byte) error {
	if err := r.need(32); err != nil {
		return err
	}
	copy(out[:], r.b[r.i:r.i+32])
	r.i += 32
	return nil
}

// Felt reads a field element: 32 little-endian bytes, below r.
func (r *Reader) Felt(out *fr.Element) error {
	var b [32]byte
	if err := r.Raw32(&b); err != nil {
		return err
	}
	e, err := fr.LittleEndian.Element(&b)
	if err != nil {
		r.i -= 32
		return r.Errf("value is not a canonical field element (>= r)")
	}
	*out = e
	return nil
}

// Felts reads a list of field elements (at most max; what names them),
// backed by Frs; nil if empty.
func (r *Reader) Felts(max int, what string) ([]fr.Element, error) {
	n, err := r.Len(max, 32, what)
	if err != nil || n == 0 {
		return nil, err
	}
	out := r.Frs.Alloc(n)
	for k := range out {
		r.Push("", k)
		err := r.Felt(&out[k])
		r.Pop()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Raw32s reads a list of 32-byte values taken as they are (at most max;
// what names them), backed by B32s; nil if empty.
func (r *Reader) Raw32s(max int, what string) ([][32]byte, error) {
	n, err := r.Len(max, 32, what)
	if err != nil || n == 0 {
		return nil, err
	}
	out := r.B32s.Alloc(n)
	for k := range out {
		copy(out[k][:], r.b[r.i:r.i+32])
		r.i += 32
	}
	return out, nil
}

// End fails if bytes are left: a format is read whole.
func (r *Reader) End() error {
	if r.i != len(r.b) {
		return r.Errf("%d trailing bytes", len(r.b)-r.i)
	}
	return nil
}
