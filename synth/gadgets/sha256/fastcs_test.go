package sha256_test

import (
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/gadgets/boolean"
	"github.com/gpuc2/gpuc2/synth/gadgets/sha256"
)

// fastWitness is a prototype of a leaner witness-only system, to measure
// what the gadgets reach when Enforce trusts canonical LCs (no
// normalization check), keeps density as plain bitmaps and evaluates with
// the 0/1-value and ±1-coefficient fast paths. It is not used by the
// gadgets; it backs the core proposal in the report.
type fastWitness struct {
	inputs, aux []fr.Element
	a, b, c     []fr.Element
	aAux, bAux  []uint64
	bIn         []uint64
}

func (f *fastWitness) Alloc(v fr.Element) synth.Variable {
	n := len(f.aux)
	if n&63 == 0 {
		f.aAux = append(f.aAux, 0)
		f.bAux = append(f.bAux, 0)
	}
	f.aux = append(f.aux, v)
	return synth.Aux(n)
}

func (f *fastWitness) AllocInput(v fr.Element) synth.Variable {
	n := len(f.inputs)
	if n&63 == 0 {
		f.bIn = append(f.bIn, 0)
	}
	f.inputs = append(f.inputs, v)
	return synth.Input(n)
}

func (f *fastWitness) Value(v synth.Variable) fr.Element {
	if v.IsAux() {
		return f.aux[v.Index()]
	}
	return f.inputs[v.Index()]
}

var one = fr.One()

func (f *fastWitness) eval(lc synth.LinearCombination) (acc fr.Element) {
	for i := range lc {
		t := &lc[i]
		var x *fr.Element
		if t.Var.IsAux() {
			x = &f.aux[t.Var.Index()]
		} else {
			x = &f.inputs[t.Var.Index()]
		}
		switch {
		case x[0]|x[1]|x[2]|x[3] == 0:
		case *x == one:
			acc.Add(&acc, &t.Coeff)
		case t.Coeff == one:
			acc.Add(&acc, x)
		default:
			var p fr.Element
			p.Mul(&t.Coeff, x)
			acc.Add(&acc, &p)
		}
	}
	return
}

func (f *fastWitness) Enforce(a, b, c synth.LinearCombination) {
	for i := range a {
		if v := a[i].Var; v.IsAux() {
			k := v.Index()
			f.aAux[k>>6] |= 1 << (uint(k) & 63)
		}
	}
	for i := range b {
		k := b[i].Var.Index()
		if b[i].Var.IsAux() {
			f.bAux[k>>6] |= 1 << (uint(k) & 63)
		} else {
			f.bIn[k>>6] |= 1 << (uint(k) & 63)
		}
	}
	f.a = append(f.a, f.eval(a))
	f.b = append(f.b, f.eval(b))
	f.c = append(f.c, f.eval(c))
}

func BenchmarkCompressionWitnessPrototypeCS(b *testing.B) {
	const perSystem = 8
	r := rand.New(rand.NewPCG(1, 1))
	msg := randBytes(r, 64)
	newCS := func() *fastWitness {
		f := &fastWitness{
			aux: make([]fr.Element, 0, perSystem*26326),
			a:   make([]fr.Element, 0, perSystem*26352),
			b:   make([]fr.Element, 0, perSystem*26352),
			c:   make([]fr.Element, 0, perSystem*26352),
		}
		f.AllocInput(one)
		return f
	}
	cs := newCS()
	g := sha256.New(cs)
	block := make([]boolean.Boolean, 512)
	rows := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%perSystem == 0 && i > 0 {
			rows += len(cs.a)
			b.StopTimer()
			cs = newCS()
			g = sha256.New(cs)
			b.StartTimer()
		}
		for k := range block {
			block[k] = g.B.AllocBit(msg[k/8]>>uint(7-k%8)&1 == 1)
		}
		if _, err := g.BlockNoPadding(block); err != nil {
			b.Fatal(err)
		}
	}
	rows += len(cs.a)
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "constraints/s")
}
