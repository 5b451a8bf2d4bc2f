package synth

import (
	"fmt"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Variable names one entry of the assignment z = (inputs, aux). Inputs and aux
// have separate index spaces, as in bellperson; the top bit marks aux, so
// ordering Variables orders inputs before aux and each space by index, which
// is the order of bellperson's linear-combination maps.
type Variable uint32

const auxFlag Variable = 1 << 31

// MaxVariables is the largest number of inputs or of aux variables a system holds.
const MaxVariables = int(auxFlag)

// One is Input(0), the constant 1 allocated by the prover and the setup
// before a circuit is synthesized.
const One Variable = 0

// Input returns the variable of public input i.
func Input(i int) Variable { return Variable(i) }

// Aux returns the variable of private (aux) variable i.
func Aux(i int) Variable { return Variable(i) | auxFlag }

// IsAux reports whether v is an aux variable.
func (v Variable) IsAux() bool { return v&auxFlag != 0 }

// Index is v's index within its space (inputs or aux).
func (v Variable) Index() int { return int(v &^ auxFlag) }

func (v Variable) String() string {
	if v.IsAux() {
		return fmt.Sprintf("aux%d", v.Index())
	}
	return fmt.Sprintf("input%d", v.Index())
}

// Term is Coeff·Var.
type Term struct {
	Coeff fr.Element
	Var   Variable
}

// LinearCombination is Σ Coeffᵢ·Varᵢ. Terms may repeat a variable; like
// bellperson's map-based LC, duplicates are merged (and zero sums dropped)
// wherever the distinction matters (densities, non-zero counts, matrices).
// Building one is append-only, so a gadget can reuse a buffer with lc[:0].
type LinearCombination []Term

// Frequently used coefficients.
var (
	CoeffOne      = fr.One()
	CoeffMinusOne = func() fr.Element { var m fr.Element; m.Neg(&CoeffOne); return m }()
	CoeffTwo      = func() fr.Element { var t fr.Element; t.SetUint64(2); return t }()
)

// LC returns a linear combination of the variables, each with coefficient 1.
func LC(vars ...Variable) LinearCombination {
	lc := make(LinearCombination, len(vars))
	for i, v := range vars {
		lc[i] = Term{Coeff: CoeffOne, Var: v}
	}
	return lc
}

// Add appends 1·v.
func (lc LinearCombination) Add(v Variable) LinearCombination {
	return append(lc, Term{Coeff: CoeffOne, Var: v})
}

// Sub appends −1·v.
func (lc LinearCombination) Sub(v Variable) LinearCombination {
	return append(lc, Term{Coeff: CoeffMinusOne, Var: v})
}

// AddTerm appends c·v.
func (lc LinearCombination) AddTerm(c fr.Element, v Variable) LinearCombination {
	return append(lc, Term{Coeff: c, Var: v})
}

// SubTerm appends −c·v.
func (lc LinearCombination) SubTerm(c fr.Element, v Variable) LinearCombination {
	c.Neg(&c)
	return append(lc, Term{Coeff: c, Var: v})
}

// AddLC appends every term of o.
func (lc LinearCombination) AddLC(o LinearCombination) LinearCombination {
	return append(lc, o...)
}

// SubLC appends every term of o negated.
func (lc LinearCombination) SubLC(o LinearCombination) LinearCombination {
	for _, t := range o {
		t.Coeff.Neg(&t.Coeff)
		lc = append(lc, t)
	}
	return lc
}

// AddScaledLC appends k·o.
func (lc LinearCombination) AddScaledLC(k fr.Element, o LinearCombination) LinearCombination {
	for _, t := range o {
		t.Coeff.Mul(&t.Coeff, &k)
		lc = append(lc, t)
	}
	return lc
}

// isCanonical reports whether lc's variables are strictly increasing, which
// means it has no duplicates and needs no merging.
func (lc LinearCombination) isCanonical() bool {
	for i := 1; i < len(lc); i++ {
		if lc[i].Var <= lc[i-1].Var {
			return false
		}
	}
	return true
}

// normalize returns lc with its variables sorted and merged, as bellperson's
// map-based LC holds it. Terms whose merged coefficient is zero are kept with
// coefficient zero, as bellperson keeps them; callers skip zero coefficients.
// A canonical lc is returned as is; otherwise the result is built in buf.
func normalize(lc LinearCombination, buf *LinearCombination) LinearCombination {
	if lc.isCanonical() {
		return lc
	}
	out := append((*buf)[:0], lc...)
	slices.SortStableFunc(out, func(x, y Term) int {
		switch {
		case x.Var < y.Var:
			return -1
		case x.Var > y.Var:
			return 1
		}
		return 0
	})
	w := 0
	for i := 1; i < len(out); i++ {
		if out[i].Var == out[w].Var {
			out[w].Coeff.Add(&out[w].Coeff, &out[i].Coeff)
			continue
		}
		w++
		out[w] = out[i]
	}
	out = out[:w+1]
	*buf = out
	return out
}
