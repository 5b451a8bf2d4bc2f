package sha256_test

import (
	stdsha "crypto/sha256"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/gadgets/boolean"
	"github.com/gpuc2/gpuc2/synth/gadgets/num"
	"github.com/gpuc2/gpuc2/synth/gadgets/sha256"
	"github.com/gpuc2/gpuc2/synth/internal/testcs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// allocBytes allocates the message bits, most significant first per byte.
func allocBytes(g *boolean.Builder, msg []byte) []boolean.Boolean {
	bits := make([]boolean.Boolean, 0, 8*len(msg))
	for _, b := range msg {
		for i := 7; i >= 0; i-- {
			bits = append(bits, g.AllocBit(b>>uint(i)&1 == 1))
		}
	}
	return bits
}

// readBytes reads digest bits back from the system's values.
func readBytes(cs synth.ConstraintSystem, bits []boolean.Boolean) []byte {
	out := make([]byte, len(bits)/8)
	for i, b := range bits {
		v := b.Value
		if b.Kind != boolean.Const {
			x := cs.Value(b.Var)
			v = x.IsOne() != (b.Kind == boolean.Not)
		}
		if v {
			out[i/8] |= 1 << uint(7-i%8)
		}
	}
	return out
}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestHashMatchesStdlib(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	lengths := []int{0, 1, 31, 55, 56, 63, 64, 65, 119, 128, 200}
	if testing.Short() {
		lengths = lengths[:5]
	}
	for _, n := range lengths {
		msg := randBytes(r, n)
		ch := synth.NewChecker()
		g := sha256.New(ch)
		bits := allocBytes(g.B, msg)
		digest, err := g.Hash(bits)
		require.NoError(t, err)
		want := stdsha.Sum256(msg)
		assert.Equal(t, want[:], readBytes(ch, digest), "len %d", n)
		require.NoError(t, ch.Err(), "len %d", n)
	}
}

func TestCompressionMatchesStdlib(t *testing.T) {
	// One block with no padding: compare with the stdlib's internal state
	// through a message whose padding block we compress ourselves.
	r := rand.New(rand.NewPCG(3, 4))
	msg := randBytes(r, 64)
	ch := synth.NewChecker()
	g := sha256.New(ch)
	s := sha256.IVState()
	s1, err := g.Compress(allocBytes(g.B, msg), &s)
	require.NoError(t, err)
	pad := make([]byte, 64)
	pad[0] = 0x80
	pad[62] = 0x02 // 512 bits
	var padBits []boolean.Boolean
	for _, b := range pad {
		for i := 7; i >= 0; i-- {
			padBits = append(padBits, boolean.Constant(b>>uint(i)&1 == 1))
		}
	}
	s2, err := g.Compress(padBits, &s1)
	require.NoError(t, err)
	var out []boolean.Boolean
	for i := range s2 {
		out = s2[i].AppendBitsBE(out)
	}
	want := stdsha.Sum256(msg)
	assert.Equal(t, want[:], readBytes(ch, out))
	require.NoError(t, ch.Err())
}

func TestBadInput(t *testing.T) {
	g := sha256.New(synth.NewChecker())
	_, err := g.Hash(make([]boolean.Boolean, 7))
	assert.ErrorIs(t, err, sha256.ErrBitLength)
	s := sha256.IVState()
	_, err = g.Compress(make([]boolean.Boolean, 511), &s)
	assert.ErrorIs(t, err, sha256.ErrBlockSize)
}

func randFr(r *rand.Rand) fr.Element {
	var b [32]byte
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	b[0] &= 0x3f
	var x fr.Element
	x.SetBytes(b[:])
	return x
}

// Setups H1, H2, H3 of CIRCUIT-SPEC-BELLPERSON.md §7.2, and the pinned
// bellperson counts 25,840 and 44,874.
func TestShapes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	tests := []struct {
		name             string
		build            func(g *sha256.Gadget)
		aux, rows        int
		nnzA, nnzB, nnzC int
		aAux, bAux, bIn  int
		digest           string
		gadgetRows       int
	}{
		{"H1 compression", func(g *sha256.Gadget) {
			_, err := g.BlockNoPadding(allocBytes(g.B, randBytes(r, 64)))
			require.NoError(t, err)
		}, 26326, 26352, 60480, 26384, 56886, 26326, 6822, 1,
			"a4d697b35ac7340e12f4084254235340bddf35f510e50a12142a1d97992eac4f", 25840},
		{"H2 full hash", func(g *sha256.Gadget) {
			_, err := g.Hash(allocBytes(g.B, randBytes(r, 64)))
			require.NoError(t, err)
		}, 45340, 45386, 103935, 45418, 96380, 45340, 11500, 1,
			"9a0fc214ecf78963986959369f521b6e8b07a268dfb28ad6f019183adaf8defa", 44874},
		{"H3 hash2", func(g *sha256.Gadget) {
			a, b := num.Alloc(g.B, randFr(r)), num.Alloc(g.B, randFr(r))
			_, err := g.HashLeaves(a, b)
			require.NoError(t, err)
		}, 45333, 45379, 104170, 45409, 96869, 45330, 11498, 1,
			"69682e511c1b07920152580010f7e59873bb3b8660f79e68fcdf52c61b5f6632", 45379},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ch := synth.NewChecker()
			tc.build(sha256.New(ch))
			require.NoError(t, ch.Err())
			st := ch.Stats()
			assert.Equal(t, synth.Stats{Constraints: tc.rows, Inputs: 1, Aux: tc.aux,
				NNZA: tc.nnzA, NNZB: tc.nnzB, NNZC: tc.nnzC,
				AAuxDensity: tc.aAux, BInputDensity: tc.bIn, BAuxDensity: tc.bAux}, st)
			inputBits := tc.rows - tc.gadgetRows
			if tc.name == "H3 hash2" {
				inputBits = 0
			}
			assert.Equal(t, tc.gadgetRows, st.Constraints-inputBits)

			rec := synth.NewRecorder()
			tc.build(sha256.New(rec))
			assert.Equal(t, tc.digest, testcs.Digest(rec))
		})
	}
}

func TestCorruptedWitnessFails(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	msg := randBytes(r, 64)
	n := 26326
	step := 97
	if testing.Short() {
		step = 1013
	}
	for k := 0; k < n; k += step {
		ch := synth.NewChecker()
		g := sha256.New(&testcs.Corrupt{ConstraintSystem: ch, N: k})
		_, err := g.BlockNoPadding(allocBytes(g.B, msg))
		require.NoError(t, err)
		assert.Error(t, ch.Err(), "aux %d corrupted", k)
	}
}
