package codec

import (
	"encoding/binary"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Writer appends bincode as Reader reads it. The zero value writes into a
// new slice; B holds what was written.
type Writer struct{ B []byte }

// U64 appends a u64 (also a list's length).
func (w *Writer) U64(v uint64) { w.B = binary.LittleEndian.AppendUint64(w.B, v) }

// U32 appends a u32 (also an enum's variant tag).
func (w *Writer) U32(v uint32) { w.B = binary.LittleEndian.AppendUint32(w.B, v) }

// Raw appends bytes as they are.
func (w *Writer) Raw(x []byte) { w.B = append(w.B, x...) }

// Felt appends a field element's 32 little-endian bytes.
func (w *Writer) Felt(v *fr.Element) {
	var b [32]byte
	fr.LittleEndian.PutElement(&b, *v)
	w.B = append(w.B, b[:]...)
}

// Felts appends a list of field elements: u64 length, then each.
func (w *Writer) Felts(vs []fr.Element) {
	w.U64(uint64(len(vs)))
	for k := range vs {
		w.Felt(&vs[k])
	}
}
