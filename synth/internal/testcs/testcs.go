package testcs

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/gpuc2/gpuc2/synth"
)

// Digest is the fingerprint of CIRCUIT-SPEC-BELLPERSON.md §7.2: SHA-256 of
// u32le(inputs) ‖ u32le(aux) ‖ u32le(rows) ‖ for each row and each of A, B,
// C: u32le(n) ‖ n × [kind u8 ‖ u32le index ‖ coefficient 32-byte LE].
// The Recorder's rows are merged, sorted and free of zero coefficients.
func Digest(r *synth.Recorder) string {
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

// Corrupt wraps a system and adds one to the value of the n-th aux
// variable allocated (counting from zero) as it is allocated.
type Corrupt struct {
	synth.ConstraintSystem
	N     int
	count int
}

// Alloc implements synth.ConstraintSystem.
func (c *Corrupt) Alloc(v fr.Element) synth.Variable {
	if c.count == c.N {
		var one fr.Element
		one.SetOne()
		v.Add(&v, &one)
	}
	c.count++
	return c.ConstraintSystem.Alloc(v)
}
