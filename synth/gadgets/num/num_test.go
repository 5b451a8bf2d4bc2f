package num_test

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/gadgets/boolean"
	"github.com/gpuc2/gpuc2/synth/gadgets/num"
	"github.com/gpuc2/gpuc2/synth/internal/testcs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func randFr(t testing.TB) fr.Element {
	var x fr.Element
	_, err := x.SetRandom()
	require.NoError(t, err)
	return x
}

// Setups H4, H5, H6 of CIRCUIT-SPEC-BELLPERSON.md §7.2.
func TestDigests(t *testing.T) {
	tests := []struct {
		name              string
		build             func(g *boolean.Builder)
		inputs, aux, rows int
		digest            string
	}{
		{"H4 to_bits_le", func(g *boolean.Builder) { num.ToBitsLE(g, num.Alloc(g, randFr(t))) },
			1, 256, 256, "3ee48e5d8aae79e0905a860ce038f3f14cc2fb7cb6e708bcef309729e7b4aa90"},
		{"H5 to_bits_le_strict", func(g *boolean.Builder) { num.ToBitsLEStrict(g, num.Alloc(g, randFr(t))) },
			1, 388, 388, "b11dbfcce08631cc67dbf322f133d256126d3557f353882652c491a05585cea7"},
		{"H6 uint64 pack_into_input", func(g *boolean.Builder) {
			u := num.AllocUInt64(g, 0x0123456789abcdef)
			u.PackIntoInput(g)
		}, 2, 64, 65, "447c77929841f0ed80cdb74a7c98d09691bff32acba0ca03b427c6d0a21dd0d7"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := synth.NewRecorder()
			tc.build(boolean.NewBuilder(r))
			assert.Equal(t, tc.inputs, len(r.Inputs))
			assert.Equal(t, tc.aux, len(r.Aux))
			assert.Equal(t, tc.rows, r.NumRows())
			assert.Equal(t, tc.digest, testcs.Digest(r))

			ch := synth.NewChecker()
			tc.build(boolean.NewBuilder(ch))
			require.NoError(t, ch.Err())
			for n := 0; n < tc.aux; n += 37 {
				bad := synth.NewChecker()
				tc.build(boolean.NewBuilder(&testcs.Corrupt{ConstraintSystem: bad, N: n}))
				assert.Error(t, bad.Err(), "aux %d corrupted", n)
			}
		})
	}
}

func TestToBitsValues(t *testing.T) {
	for i := 0; i < 20; i++ {
		ch := synth.NewChecker()
		g := boolean.NewBuilder(ch)
		x := num.Alloc(g, randFr(t))
		bits := num.ToBitsLE(g, x)
		strict := num.ToBitsLEStrict(g, x)
		require.Len(t, bits, 255)
		require.Len(t, strict, 255)
		var acc fr.Element
		for k, b := range bits {
			assert.Equal(t, b.Value, strict[k].Value)
			v := ch.Value(b.Var)
			assert.Equal(t, b.Value, v.IsOne())
			if b.Value {
				acc.Add(&acc, &num.Pow2[k])
			}
		}
		assert.Equal(t, x.Value, acc)
		packed := num.PackBits(g, bits)
		b := x.Value.Bits()
		b[3] &= 1<<62 - 1 // pack_bits keeps 254 bits
		assert.Equal(t, b, packed.Value.Bits())
		require.NoError(t, ch.Err())
	}
}

func TestConditionallyReverse(t *testing.T) {
	for _, c := range []bool{false, true} {
		ch := synth.NewChecker()
		g := boolean.NewBuilder(ch)
		a, b := num.Alloc(g, randFr(t)), num.Alloc(g, randFr(t))
		cond := g.AllocBit(c)
		x, y := num.ConditionallyReverse(g, a, b, cond)
		if c {
			assert.Equal(t, b.Value, x.Value)
			assert.Equal(t, a.Value, y.Value)
		} else {
			assert.Equal(t, a.Value, x.Value)
			assert.Equal(t, b.Value, y.Value)
		}
		require.NoError(t, ch.Err())
	}
}

func TestMultipacking(t *testing.T) {
	bits := make([]bool, 300)
	for i := range bits {
		bits[i] = i%3 == 0
	}
	ch := synth.NewChecker()
	g := boolean.NewBuilder(ch)
	bs := make([]boolean.Boolean, len(bits))
	for i, b := range bits {
		bs[i] = g.AllocBit(b)
	}
	ins := num.PackIntoInputs(g, bs)
	want := num.ComputeMultipacking(bits)
	require.Len(t, ins, 2)
	for i := range ins {
		assert.Equal(t, want[i], ch.Value(ins[i].Var))
	}
	require.NoError(t, ch.Err())
}
