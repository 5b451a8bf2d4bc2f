package synth

import (
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

func popcount(w uint64) int { return bits.OnesCount64(w) }

// assignment holds the values of both spaces. A forked assignment (see
// ProvingAssignment.Fork) holds only its own variables, numbered from
// auxBase and inputBase on, and reads lower indices from its parent.
type assignment struct {
	Inputs []fr.Element
	Aux    []fr.Element

	parent             *assignment
	auxBase, inputBase int
}

func (z *assignment) value(v Variable) *fr.Element {
	i := v.Index()
	if v.IsAux() {
		if i < z.auxBase {
			return z.parent.value(v)
		}
		return &z.Aux[i-z.auxBase]
	}
	if i < z.inputBase {
		return z.parent.value(v)
	}
	return &z.Inputs[i-z.inputBase]
}

// Value implements ConstraintSystem.
func (z *assignment) Value(v Variable) fr.Element { return *z.value(v) }

func (z *assignment) alloc(value fr.Element) Variable {
	if len(z.Aux) >= MaxVariables {
		panic(ErrTooManyVariables) // a circuit bug, not bad input: 2^31 variables
	}
	z.Aux = append(z.Aux, value)
	return Aux(z.auxBase + len(z.Aux) - 1)
}

func (z *assignment) allocInput(value fr.Element) Variable {
	if len(z.Inputs) >= MaxVariables {
		panic(ErrTooManyVariables)
	}
	z.Inputs = append(z.Inputs, value)
	return Input(z.inputBase + len(z.Inputs) - 1)
}

// eval returns ⟨lc, z⟩. Most values in Filecoin circuits are bits and most
// coefficients ±1 or powers of two, so zero and one values and ±1
// coefficients skip the multiplication.
func (z *assignment) eval(lc LinearCombination) fr.Element {
	var acc, t fr.Element
	for i := range lc {
		term := &lc[i]
		v := z.value(term.Var)
		switch {
		case v.IsZero():
		case isOne(v):
			acc.Add(&acc, &term.Coeff)
		case isOne(&term.Coeff):
			acc.Add(&acc, v)
		case term.Coeff == CoeffMinusOne:
			acc.Sub(&acc, v)
		default:
			t.Mul(&term.Coeff, v)
			acc.Add(&acc, &t)
		}
	}
	return acc
}

func isOne(x *fr.Element) bool { return *x == CoeffOne }
