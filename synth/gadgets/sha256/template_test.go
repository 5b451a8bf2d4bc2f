package sha256_test

import (
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/gadgets/boolean"
	"github.com/gpuc2/gpuc2/synth/gadgets/num"
	"github.com/gpuc2/gpuc2/synth/gadgets/sha256"
	"github.com/gpuc2/gpuc2/synth/internal/testcs"
)

// Compressions replayed from their recorded templates give exactly the
// values, rows and densities of the gadget: shapes with constant, negated,
// repeated and input-space bits, constant and variable states, each shape
// several times with fresh values (the first run records, the others
// replay), inside a forked system too.
func TestTemplateEqualsGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	// build synthesizes the same sequence of compressions, driven by seed,
	// into cs, returning the digest bits' values.
	build := func(cs synth.ConstraintSystem, seed uint64) []bool {
		r := rand.New(rand.NewPCG(seed, 1))
		g := sha256.New(cs)
		var out []bool
		emit := func(bits []boolean.Boolean) {
			for _, b := range bits {
				out = append(out, b.Value)
			}
		}
		for rep := 0; rep < 3; rep++ {
			// Plain: allocated bits from the IV, and a padded two-block hash.
			d, err := g.BlockNoPadding(allocBytes(g.B, randBytes(r, 64)))
			require.NoError(t, err)
			emit(d)
			d, err = g.Hash(allocBytes(g.B, randBytes(r, 40)))
			require.NoError(t, err)
			emit(d)
			// Mixed: constants, Not bits, a variable repeated in the same
			// bit position of different words as Is and as Not (their
			// MultiEq coefficients cancel), inputs, and aux variables no
			// row has used yet (no density bits).
			vars := allocBytes(g.B, randBytes(r, 16))
			in := make([]boolean.Boolean, 8)
			for i := range in {
				bit := r.IntN(2) == 1
				if i%2 == 0 {
					in[i] = boolean.FromVar(cs.AllocInput(boolean.Field(bit)), bit)
				} else {
					in[i] = boolean.FromVar(cs.Alloc(boolean.Field(bit)), bit)
				}
			}
			block := make([]boolean.Boolean, 512)
			for i := range block {
				switch i % 5 {
				case 0:
					block[i] = boolean.Constant(i%3 == 0)
				case 1:
					block[i] = vars[i%len(vars)].Not()
				case 2:
					block[i] = in[i%len(in)]
				default:
					block[i] = vars[(i*7)%len(vars)]
				}
			}
			// Word 9 is word 0 negated: w[16] = w[0] + σ0(w[1]) + w[9] + σ1(w[14]).
			for i := 0; i < 32; i++ {
				block[9*32+i] = block[i].Not()
			}
			d, err = g.BlockNoPadding(block)
			require.NoError(t, err)
			emit(d)
			// A variable state: compress the same block again from d.
			var st [8]sha256.UInt32
			for w := range st {
				st[w] = sha256.FromBitsBE(d[32*w : 32*w+32])
			}
			s2, err := g.Compress(block, &st)
			require.NoError(t, err)
			for w := range s2 {
				emit(s2[w].AppendBitsBE(nil))
			}
			// Tree-D node hashes.
			node, err := g.HashLeaves(num.Alloc(g.B, randFr(r)), num.Alloc(g.B, randFr(r)))
			require.NoError(t, err)
			out = append(out, node.Value.IsZero())
		}
		return out
	}
	for k := 0; k < 3; k++ {
		seed := r.Uint64()
		slow := synth.NewProvingAssignment(synth.Sizes{})
		wantBits := build(testcs.Generic{P: slow}, seed)
		fast := synth.NewProvingAssignment(synth.Sizes{})
		gotBits := build(fast, seed)
		assert.Equal(t, wantBits, gotBits)
		require.NoError(t, testcs.SameAssignment(slow, fast))

		// The same inside a child of a ForkN, reading the parent's bits.
		parent := synth.NewProvingAssignment(synth.Sizes{})
		parent.Alloc(fr.One())
		children := parent.ForkN([]synth.Sizes{{}})
		build(children[0], seed)
		require.NoError(t, parent.Join(children...))
		seq := synth.NewProvingAssignment(synth.Sizes{})
		seq.Alloc(fr.One())
		build(testcs.Generic{P: seq}, seed)
		require.NoError(t, testcs.SameAssignment(seq, parent))
	}
	replayed, bad := sha256.FastPathShapes()
	assert.Positive(t, replayed)
	assert.Zero(t, bad, "shapes whose record failed its check")
}
