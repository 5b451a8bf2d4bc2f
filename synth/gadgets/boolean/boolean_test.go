package boolean_test

import (
	"fmt"
	"testing"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/gadgets/boolean"
	"github.com/gpuc2/gpuc2/synth/internal/testcs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// H0 of CIRCUIT-SPEC-BELLPERSON.md §7.2: alloc x, alloc y, AllocatedBit::xor(x, y).
func TestH0Digest(t *testing.T) {
	r := synth.NewRecorder()
	g := boolean.NewBuilder(r)
	x := g.AllocBit(true)
	y := g.AllocBit(false)
	g.Xor(x, y)
	assert.Equal(t, 3, r.NumRows())
	assert.Equal(t, "7a0feed4d4ca947b5f9bfdcfdda67248a628b4e4da79d534f0413f78b88fe96f", testcs.Digest(r))
}

// operand builds a Boolean of the given kind with the given value.
func operand(g *boolean.Builder, k boolean.Kind, v bool) boolean.Boolean {
	switch k {
	case boolean.Const:
		return boolean.Constant(v)
	case boolean.Is:
		return g.AllocBit(v)
	}
	return g.AllocBit(!v).Not()
}

var kinds = []boolean.Kind{boolean.Const, boolean.Is, boolean.Not}

func kindName(k boolean.Kind) string { return [...]string{"const", "is", "not"}[k] }

// rows returns the rows an operation added, given the allocation rows of its operands.
func TestOperations(t *testing.T) {
	type op struct {
		name  string
		arity int
		want  func(a, b, c bool) bool
		run   func(g *boolean.Builder, x []boolean.Boolean) boolean.Boolean
		rows  func(k []boolean.Kind, v []bool) int
	}
	nonConst := func(k []boolean.Kind) int {
		n := 0
		for _, x := range k {
			if x != boolean.Const {
				n++
			}
		}
		return n
	}
	ops := []op{
		{"xor", 2, func(a, b, _ bool) bool { return a != b },
			func(g *boolean.Builder, x []boolean.Boolean) boolean.Boolean { return g.Xor(x[0], x[1]) },
			func(k []boolean.Kind, _ []bool) int { return map[bool]int{true: 1}[nonConst(k) == 2] }},
		{"and", 2, func(a, b, _ bool) bool { return a && b },
			func(g *boolean.Builder, x []boolean.Boolean) boolean.Boolean { return g.And(x[0], x[1]) },
			func(k []boolean.Kind, _ []bool) int { return map[bool]int{true: 1}[nonConst(k) == 2] }},
		{"ch", 3, func(a, b, c bool) bool { return (a && b) != (!a && c) },
			func(g *boolean.Builder, x []boolean.Boolean) boolean.Boolean { return g.Ch(x[0], x[1], x[2]) }, nil},
		{"maj", 3, func(a, b, c bool) bool { return (a && b) != (a && c) != (b && c) },
			func(g *boolean.Builder, x []boolean.Boolean) boolean.Boolean { return g.Maj(x[0], x[1], x[2]) }, nil},
	}
	for _, o := range ops {
		n := 1
		for i := 0; i < o.arity; i++ {
			n *= 3 * 2
		}
		for c := 0; c < n; c++ {
			ks := make([]boolean.Kind, o.arity)
			vs := make([]bool, 3)
			name := o.name
			x := c
			for i := range ks {
				ks[i] = kinds[x%3]
				x /= 3
				vs[i] = x%2 == 1
				x /= 2
				name += fmt.Sprintf("/%s=%v", kindName(ks[i]), vs[i])
			}
			t.Run(name, func(t *testing.T) {
				ch := synth.NewChecker()
				g := boolean.NewBuilder(ch)
				xs := make([]boolean.Boolean, o.arity)
				for i := range xs {
					xs[i] = operand(g, ks[i], vs[i])
				}
				before := ch.Stats().Constraints
				r := o.run(g, xs)
				require.NoError(t, ch.Err())
				assert.Equal(t, o.want(vs[0], vs[1], vs[2]), r.Value)
				if r.Kind != boolean.Const {
					v := ch.Value(r.Var)
					assert.Equal(t, r.Value, v.IsOne() != (r.Kind == boolean.Not))
				}
				if o.rows != nil {
					assert.Equal(t, o.rows(ks, vs), ch.Stats().Constraints-before)
				}
			})
		}
	}
}

func TestMajRowsGeneral(t *testing.T) {
	ch := synth.NewChecker()
	g := boolean.NewBuilder(ch)
	a, b, c := g.AllocBit(true), g.AllocBit(false).Not(), g.AllocBit(true)
	before := ch.Stats()
	g.Maj(a, b, c)
	after := ch.Stats()
	assert.Equal(t, 2, after.Constraints-before.Constraints)
	assert.Equal(t, 2, after.Aux-before.Aux)
	require.NoError(t, ch.Err())
}

func TestEnforceEqual(t *testing.T) {
	for _, ka := range kinds {
		for _, kb := range kinds {
			for _, va := range []bool{false, true} {
				for _, vb := range []bool{false, true} {
					t.Run(fmt.Sprintf("%s=%v/%s=%v", kindName(ka), va, kindName(kb), vb), func(t *testing.T) {
						ch := synth.NewChecker()
						g := boolean.NewBuilder(ch)
						a, b := operand(g, ka, va), operand(g, kb, vb)
						err := g.EnforceEqual(a, b)
						if ka == boolean.Const && kb == boolean.Const {
							assert.Equal(t, va != vb, err != nil)
							return
						}
						require.NoError(t, err)
						assert.Equal(t, va != vb, ch.Err() != nil)
					})
				}
			}
		}
	}
}

func TestCorruptBitFails(t *testing.T) {
	for n := 0; n < 3; n++ {
		ch := synth.NewChecker()
		g := boolean.NewBuilder(&testcs.Corrupt{ConstraintSystem: ch, N: n})
		x := g.AllocBit(true)
		y := g.AllocBit(false)
		g.Xor(x, y)
		assert.Error(t, ch.Err(), "corrupted aux %d", n)
	}
}
