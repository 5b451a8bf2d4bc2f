package synth

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Stats describes the shape of a synthesized system.
type Stats struct {
	Constraints int // rows enforced (input rows included only if they were appended)
	Inputs      int // ONE included
	Aux         int
	// Non-zeros per matrix: terms with a non-zero coefficient after merging duplicates.
	NNZA, NNZB, NNZC int
	// Density counts as bellperson tracks them.
	AAuxDensity, BInputDensity, BAuxDensity int
}

func (s Stats) String() string {
	return fmt.Sprintf("constraints=%d inputs=%d aux=%d nnz_a=%d nnz_b=%d nnz_c=%d a_aux_density=%d b_aux_density=%d b_input_density=%d",
		s.Constraints, s.Inputs, s.Aux, s.NNZA, s.NNZB, s.NNZC, s.AAuxDensity, s.BAuxDensity, s.BInputDensity)
}

// Checker evaluates every row as it is enforced, remembers the first one
// that does not hold, and counts the system's shape.
type Checker struct {
	assignment
	densities
	rows             int
	nnzA, nnzB, nnzC int
	firstBad         int
	scratch          LinearCombination
}

var _ ConstraintSystem = (*Checker)(nil)

// NewChecker returns a checker with ONE allocated.
func NewChecker() *Checker {
	c := &Checker{firstBad: -1}
	c.AllocInput(CoeffOne)
	return c
}

// Alloc implements ConstraintSystem.
func (c *Checker) Alloc(value fr.Element) Variable {
	c.growAux()
	return c.alloc(value)
}

// AllocInput implements ConstraintSystem.
func (c *Checker) AllocInput(value fr.Element) Variable {
	c.growInput()
	return c.assignment.allocInput(value)
}

// Enforce implements ConstraintSystem.
func (c *Checker) Enforce(a, b, cc LinearCombination) {
	c.track(a, b)
	c.nnzA += countNonZero(normalize(a, &c.scratch))
	c.nnzB += countNonZero(normalize(b, &c.scratch))
	c.nnzC += countNonZero(normalize(cc, &c.scratch))
	if c.firstBad < 0 {
		av, bv, cv := c.eval(a), c.eval(b), c.eval(cc)
		av.Mul(&av, &bv)
		if av != cv {
			c.firstBad = c.rows
		}
	}
	c.rows++
}

func countNonZero(lc LinearCombination) int {
	n := 0
	for i := range lc {
		if !lc[i].Coeff.IsZero() {
			n++
		}
	}
	return n
}

// FirstUnsatisfied returns the index of the first row that does not hold, or −1.
func (c *Checker) FirstUnsatisfied() int { return c.firstBad }

// Err returns nil if every row holds, else ErrUnsatisfied naming the first bad row.
func (c *Checker) Err() error {
	if c.firstBad < 0 {
		return nil
	}
	return fmt.Errorf("%w: row %d of %d", ErrUnsatisfied, c.firstBad, c.rows)
}

// Stats returns the shape counted so far.
func (c *Checker) Stats() Stats {
	return Stats{
		Constraints: c.rows, Inputs: len(c.Inputs), Aux: len(c.Aux),
		NNZA: c.nnzA, NNZB: c.nnzB, NNZC: c.nnzC,
		AAuxDensity: c.AAux.Count(), BInputDensity: c.BInput.Count(), BAuxDensity: c.BAux.Count(),
	}
}
