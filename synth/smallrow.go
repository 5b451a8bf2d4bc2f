package synth

import "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

// SmallRow is a row whose A, B and C evaluate to small integers, given
// with the variables that have non-zero coefficients in A and in B (the
// ones the densities track; C is not tracked). Bit gadgets know all this
// natively, so a system can take the row without building and evaluating
// linear combinations. It must describe exactly the row the gadget would
// enforce with linear combinations.
type SmallRow struct {
	A, B, C      int64
	AVars, BVars [2]Variable
	NA, NB       int
}

// SmallRowEnforcer is implemented by systems that accept SmallRows. The
// witness-only ProvingAssignment does; systems that record the matrices do
// not, so gadgets fall back to Enforce for them.
type SmallRowEnforcer interface {
	EnforceSmall(r *SmallRow)
}

var _ SmallRowEnforcer = (*ProvingAssignment)(nil)

// smallFr holds −8…8 in Fr.
var smallFr = func() (t [17]fr.Element) {
	for i := range t {
		t[i].SetInt64(int64(i - 8))
	}
	return t
}()

func small(v int64) fr.Element {
	if v >= -8 && v <= 8 {
		return smallFr[v+8]
	}
	var e fr.Element
	e.SetInt64(v)
	return e
}

// EnforceSmall implements SmallRowEnforcer.
func (p *ProvingAssignment) EnforceSmall(r *SmallRow) {
	if p.witnessOnly {
		p.rows++
		return
	}
	for _, v := range r.AVars[:r.NA] {
		if v.IsAux() {
			p.setBit(&p.AAux, &p.parentAAux, v.Index(), p.densities.auxBase)
		}
	}
	for _, v := range r.BVars[:r.NB] {
		if v.IsAux() {
			p.setBit(&p.BAux, &p.parentBAux, v.Index(), p.densities.auxBase)
		} else {
			p.setBit(&p.BInput, &p.parentBInput, v.Index(), p.densities.inputBase)
		}
	}
	p.A = append(p.A, small(r.A))
	p.B = append(p.B, small(r.B))
	p.C = append(p.C, small(r.C))
}
