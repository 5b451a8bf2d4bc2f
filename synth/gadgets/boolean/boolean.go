package boolean

import (
	"errors"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/gpuc2/gpuc2/synth"
)

// Kind says what a Boolean is.
type Kind uint8

const (
	// Const is a compile-time constant; it is never allocated.
	Const Kind = iota
	// Is is the bit held by a variable.
	Is
	// Not is one minus the bit held by a variable.
	Not
)

// Boolean is bellpepper-core's Boolean: Constant(b), Is(v) or Not(v), with
// its value (the value of the Boolean itself, negation applied).
type Boolean struct {
	Var   synth.Variable
	Kind  Kind
	Value bool
}

// Constant returns the constant Boolean b.
func Constant(b bool) Boolean { return Boolean{Kind: Const, Value: b} }

// FromVar returns Is(v) for a variable already known to hold the bit val.
func FromVar(v synth.Variable, val bool) Boolean { return Boolean{Var: v, Kind: Is, Value: val} }

// IsConstant reports whether b is a constant.
func (b Boolean) IsConstant() bool { return b.Kind == Const }

// Not returns ¬b; it allocates nothing.
func (b Boolean) Not() Boolean {
	switch b.Kind {
	case Is:
		b.Kind = Not
	case Not:
		b.Kind = Is
	}
	b.Value = !b.Value
	return b
}

// AppendLC appends k·⟦b⟧ to lc: k·ONE for true, nothing for false, k·v for
// Is(v), k·ONE − k·v for Not(v).
func (b Boolean) AppendLC(lc synth.LinearCombination, k *fr.Element) synth.LinearCombination {
	switch b.Kind {
	case Const:
		if b.Value {
			lc = append(lc, synth.Term{Coeff: *k, Var: synth.One})
		}
	case Is:
		lc = append(lc, synth.Term{Coeff: *k, Var: b.Var})
	case Not:
		lc = append(lc, synth.Term{Coeff: *k, Var: synth.One})
		var m fr.Element
		m.Neg(k)
		lc = append(lc, synth.Term{Coeff: m, Var: b.Var})
	}
	return lc
}

// appendOne appends 1·⟦b⟧ without a multiplication.
func (b Boolean) appendOne(lc synth.LinearCombination) synth.LinearCombination {
	switch b.Kind {
	case Const:
		if b.Value {
			lc = append(lc, synth.Term{Coeff: synth.CoeffOne, Var: synth.One})
		}
	case Is:
		lc = append(lc, synth.Term{Coeff: synth.CoeffOne, Var: b.Var})
	case Not:
		lc = append(lc,
			synth.Term{Coeff: synth.CoeffOne, Var: synth.One},
			synth.Term{Coeff: synth.CoeffMinusOne, Var: b.Var})
	}
	return lc
}

// appendMinusOne appends −1·⟦b⟧.
func (b Boolean) appendMinusOne(lc synth.LinearCombination) synth.LinearCombination {
	switch b.Kind {
	case Const:
		if b.Value {
			lc = append(lc, synth.Term{Coeff: synth.CoeffMinusOne, Var: synth.One})
		}
	case Is:
		lc = append(lc, synth.Term{Coeff: synth.CoeffMinusOne, Var: b.Var})
	case Not:
		lc = append(lc,
			synth.Term{Coeff: synth.CoeffMinusOne, Var: synth.One},
			synth.Term{Coeff: synth.CoeffOne, Var: b.Var})
	}
	return lc
}

// Field returns the value of b as 0 or 1 in Fr.
func Field(v bool) fr.Element {
	if v {
		return synth.CoeffOne
	}
	return fr.Element{}
}

// ErrUnequalConstants is returned by EnforceEqual for two different constants.
var ErrUnequalConstants = errors.New("boolean: constants are not equal")

// Builder emits Boolean gadgets into a constraint system, reusing its
// scratch linear combinations between rows.
type Builder struct {
	CS synth.ConstraintSystem
	// A, B, C are scratch buffers for rows built by this package and by
	// other gadget packages; their contents are undefined between calls.
	A, B, C synth.LinearCombination

	// fast is CS when it takes pre-evaluated bit rows (the witness-only
	// system): then the hot bit rows skip building linear combinations.
	fast synth.SmallRowEnforcer
	row  synth.SmallRow
}

// NewBuilder returns a Builder over cs.
func NewBuilder(cs synth.ConstraintSystem) *Builder {
	fast, _ := cs.(synth.SmallRowEnforcer)
	return &Builder{
		CS:   cs,
		A:    make(synth.LinearCombination, 0, 8),
		B:    make(synth.LinearCombination, 0, 8),
		C:    make(synth.LinearCombination, 0, 8),
		fast: fast,
	}
}

func b2i(v bool) int64 {
	if v {
		return 1
	}
	return 0
}

// smallRow hands a bit row to the fast path: A, B, C values and the
// variables with non-zero coefficients in A and B (up to two each).
func (g *Builder) smallRow(a, b, c int64, aVar synth.Variable, bVars ...synth.Variable) {
	g.row.A, g.row.B, g.row.C = a, b, c
	g.row.AVars[0], g.row.NA = aVar, 1
	g.row.NB = copy(g.row.BVars[:], bVars)
	g.fast.EnforceSmall(&g.row)
}

func (g *Builder) alloc(v bool) synth.Variable { return g.CS.Alloc(Field(v)) }

func one(v synth.Variable) synth.Term  { return synth.Term{Coeff: synth.CoeffOne, Var: v} }
func mone(v synth.Variable) synth.Term { return synth.Term{Coeff: synth.CoeffMinusOne, Var: v} }

// AllocBit is AllocatedBit::alloc: variable r, row (ONE − r)·r = 0.
func (g *Builder) AllocBit(v bool) Boolean {
	r := g.alloc(v)
	if g.fast != nil {
		g.smallRow(1-b2i(v), b2i(v), 0, r, r)
		return FromVar(r, v)
	}
	g.A = append(g.A[:0], one(synth.One), mone(r))
	g.B = append(g.B[:0], one(r))
	g.CS.Enforce(g.A, g.B, g.C[:0])
	return FromVar(r, v)
}

// AllocConditionally is AllocatedBit::alloc_conditionally: variable r, row
// (ONE − m − r)·r = 0, so r must be 0 when the bit m is 1.
func (g *Builder) AllocConditionally(v bool, m Boolean) Boolean {
	r := g.alloc(v)
	g.A = Canon(append(g.A[:0], one(synth.One), mone(m.Var), mone(r)))
	g.B = append(g.B[:0], one(r))
	g.CS.Enforce(g.A, g.B, g.C[:0])
	return FromVar(r, v)
}

// xorBits is AllocatedBit::xor(x, y): r = x ⊕ y, row 2x·y = x + y − r.
func (g *Builder) xorBits(x, y synth.Variable, xv, yv bool) synth.Variable {
	r := g.alloc(xv != yv)
	if g.fast != nil {
		g.smallRow(2*b2i(xv), b2i(yv), b2i(xv)+b2i(yv)-b2i(xv != yv), x, y)
		return r
	}
	g.A = append(g.A[:0], synth.Term{Coeff: synth.CoeffTwo, Var: x})
	g.B = append(g.B[:0], one(y))
	// C = x + y − r in variable order (r is the newest), merged if x = y.
	switch {
	case x < y:
		g.C = append(g.C[:0], one(x), one(y), mone(r))
	case x > y:
		g.C = append(g.C[:0], one(y), one(x), mone(r))
	default:
		g.C = append(g.C[:0], synth.Term{Coeff: synth.CoeffTwo, Var: x}, mone(r))
	}
	g.CS.Enforce(g.A, g.B, g.C)
	return r
}

// AndBits is AllocatedBit::and on the variables under x and y (their
// kinds are ignored): r = x ∧ y, row x·y = r.
func (g *Builder) AndBits(x, y Boolean) Boolean {
	v := varValue(x) && varValue(y)
	r := g.alloc(v)
	if g.fast != nil {
		g.smallRow(b2i(varValue(x)), b2i(varValue(y)), b2i(v), x.Var, y.Var)
		return FromVar(r, v)
	}
	g.A = append(g.A[:0], one(x.Var))
	g.B = append(g.B[:0], one(y.Var))
	g.C = append(g.C[:0], one(r))
	g.CS.Enforce(g.A, g.B, g.C)
	return FromVar(r, v)
}

// andNotBits is AllocatedBit::and_not(x, y) with xv, yv the variables'
// values: r = x ∧ ¬y, row x·(ONE − y) = r.
func (g *Builder) andNotBits(x, y synth.Variable, xv, yv bool) synth.Variable {
	r := g.alloc(xv && !yv)
	if g.fast != nil {
		g.smallRow(b2i(xv), 1-b2i(yv), b2i(xv && !yv), x, synth.One, y)
		return r
	}
	g.A = append(g.A[:0], one(x))
	g.B = append(g.B[:0], one(synth.One), mone(y))
	g.C = append(g.C[:0], one(r))
	g.CS.Enforce(g.A, g.B, g.C)
	return r
}

// NorBits is AllocatedBit::nor on the variables under x and y: r = ¬x ∧ ¬y,
// row (ONE − x)·(ONE − y) = r.
func (g *Builder) NorBits(x, y Boolean) Boolean {
	v := !varValue(x) && !varValue(y)
	r := g.alloc(v)
	if g.fast != nil {
		g.smallRow(1-b2i(varValue(x)), 1-b2i(varValue(y)), b2i(v), x.Var, synth.One, y.Var)
		return FromVar(r, v)
	}
	g.A = append(g.A[:0], one(synth.One), mone(x.Var))
	g.B = append(g.B[:0], one(synth.One), mone(y.Var))
	g.C = append(g.C[:0], one(r))
	g.CS.Enforce(g.A, g.B, g.C)
	return FromVar(r, v)
}

// varValue is the value of the variable under a Boolean (before negation).
func varValue(b Boolean) bool {
	if b.Kind == Not {
		return !b.Value
	}
	return b.Value
}

// Xor is Boolean::xor.
func (g *Builder) Xor(a, b Boolean) Boolean {
	switch {
	case a.Kind == Const && !a.Value:
		return b
	case b.Kind == Const && !b.Value:
		return a
	case a.Kind == Const:
		return b.Not()
	case b.Kind == Const:
		return a.Not()
	}
	v := a.Value != b.Value
	switch {
	case a.Kind == Is && b.Kind == Not:
		// The Is operand goes to A.
		return Boolean{Var: g.xorBits(a.Var, b.Var, varValue(a), varValue(b)), Kind: Not, Value: v}
	case a.Kind == Not && b.Kind == Is:
		return Boolean{Var: g.xorBits(b.Var, a.Var, varValue(b), varValue(a)), Kind: Not, Value: v}
	}
	return Boolean{Var: g.xorBits(a.Var, b.Var, varValue(a), varValue(b)), Kind: Is, Value: v}
}

// And is Boolean::and.
func (g *Builder) And(a, b Boolean) Boolean {
	switch {
	case a.Kind == Const && !a.Value, b.Kind == Const && !b.Value:
		return Constant(false)
	case a.Kind == Const:
		return b
	case b.Kind == Const:
		return a
	}
	v := a.Value && b.Value
	switch {
	case a.Kind == Is && b.Kind == Not:
		return FromVar(g.andNotBits(a.Var, b.Var, varValue(a), varValue(b)), v)
	case a.Kind == Not && b.Kind == Is:
		return FromVar(g.andNotBits(b.Var, a.Var, varValue(b), varValue(a)), v)
	case a.Kind == Not && b.Kind == Not:
		return g.NorBits(a, b)
	}
	return g.AndBits(a, b)
}

// Ch is Boolean::sha256_ch: (a ∧ b) ⊕ (¬a ∧ c).
func (g *Builder) Ch(a, b, c Boolean) Boolean {
	v := (a.Value && b.Value) != (!a.Value && c.Value)
	switch {
	case a.Kind == Const && b.Kind == Const && c.Kind == Const:
		return Constant(v)
	case a.Kind == Const && !a.Value:
		return c
	case b.Kind == Const && !b.Value:
		return g.And(a.Not(), c)
	case c.Kind == Const && !c.Value:
		return g.And(a, b)
	case c.Kind == Const:
		return g.And(a, b.Not()).Not()
	case b.Kind == Const:
		return g.And(a.Not(), c.Not()).Not()
	}
	// General path (also for a = true): ch·… row (⟦b⟧ − ⟦c⟧)·⟦a⟧ = ch − ⟦c⟧.
	ch := g.alloc(v)
	g.A = Canon(c.appendMinusOne(b.appendOne(g.A[:0])))
	g.B = a.appendOne(g.B[:0])
	g.C = Canon(c.appendMinusOne(append(g.C[:0], one(ch))))
	g.CS.Enforce(g.A, g.B, g.C)
	return FromVar(ch, v)
}

// Maj is Boolean::sha256_maj: (a ∧ b) ⊕ (a ∧ c) ⊕ (b ∧ c).
func (g *Builder) Maj(a, b, c Boolean) Boolean {
	v := (a.Value && b.Value) != (a.Value && c.Value) != (b.Value && c.Value)
	switch {
	case a.Kind == Const && b.Kind == Const && c.Kind == Const:
		return Constant(v)
	case a.Kind == Const && !a.Value:
		return g.And(b, c)
	case b.Kind == Const && !b.Value:
		return g.And(a, c)
	case c.Kind == Const && !c.Value:
		return g.And(a, b)
	case c.Kind == Const:
		return g.And(a.Not(), b.Not()).Not()
	case b.Kind == Const:
		return g.And(a.Not(), c.Not()).Not()
	case a.Kind == Const:
		return g.And(b.Not(), c.Not()).Not()
	}
	// maj is allocated first, then bc with its row, then the maj row
	// (2·bc − ⟦b⟧ − ⟦c⟧)·⟦a⟧ = bc − maj.
	maj := g.alloc(v)
	bc := g.And(b, c)
	g.A = append(g.A[:0], synth.Term{Coeff: synth.CoeffTwo, Var: bc.Var})
	g.A = Canon(c.appendMinusOne(b.appendMinusOne(g.A)))
	g.B = a.appendOne(g.B[:0])
	g.C = append(g.C[:0], mone(maj), one(bc.Var))
	g.CS.Enforce(g.A, g.B, g.C)
	return FromVar(maj, v)
}

// EnforceEqual is Boolean::enforce_equal: one row 0·0 = ⟦a⟧ − ⟦b⟧ (with
// the constant cases of bellpepper-core), none for two constants.
func (g *Builder) EnforceEqual(a, b Boolean) error {
	switch {
	case a.Kind == Const && b.Kind == Const:
		if a.Value != b.Value {
			return ErrUnequalConstants
		}
		return nil
	case a.Kind == Const && a.Value:
		g.C = b.appendMinusOne(append(g.C[:0], one(synth.One)))
	case b.Kind == Const && b.Value:
		g.C = a.appendMinusOne(append(g.C[:0], one(synth.One)))
	case a.Kind == Const:
		g.C = b.appendOne(g.C[:0])
	case b.Kind == Const:
		g.C = a.appendOne(g.C[:0])
	default:
		g.C = b.appendMinusOne(a.appendOne(g.C[:0]))
	}
	g.CS.Enforce(g.A[:0], g.B[:0], Canon(g.C))
	return nil
}
