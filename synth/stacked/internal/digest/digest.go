// Package digest computes the R1CS fingerprint of CIRCUIT-SPEC-BELLPERSON.md
// §7.2 (the same algorithm as synth/gadgets/internal/testcs, which this
// package cannot import), to compare the circuit's exact rows with the
// specs' independent model.
package digest

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"

	"github.com/gpuc2/gpuc2/synth"
)

// Of returns SHA-256 of u32le(inputs) ‖ u32le(aux) ‖ u32le(rows) ‖ for each
// row and each of A, B, C: u32le(n) ‖ n × [kind u8 ‖ u32le index ‖
// coefficient 32-byte LE]. The Recorder's rows are merged, sorted and free
// of zero coefficients.
func Of(r *synth.Recorder) string {
	h := sha256.New()
	var u [4]byte
	put := func(x int) { binary.LittleEndian.PutUint32(u[:], uint32(x)); h.Write(u[:]) }
	put(len(r.Inputs))
	put(len(r.Aux))
	put(r.NumRows())
	var rec [1 + 4 + 32]byte
	for row := 0; row < r.NumRows(); row++ {
		for _, m := range []*synth.Matrix{&r.A, &r.B, &r.C} {
			lo, hi := m.RowStart[row], m.RowStart[row+1]
			put(int(hi - lo))
			for k := lo; k < hi; k++ {
				v := m.Cols[k]
				rec[0] = 0
				if v.IsAux() {
					rec[0] = 1
				}
				binary.LittleEndian.PutUint32(rec[1:5], uint32(v.Index()))
				be := r.Coeffs[m.CoeffIDs[k]].Bytes()
				for i := 0; i < 32; i++ {
					rec[5+i] = be[31-i]
				}
				h.Write(rec[:])
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
