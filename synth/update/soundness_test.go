package update_test

import (
	"context"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/update"
)

func synthetic(t testing.TB, size, seed uint64) *update.Synthetic {
	t.Helper()
	s, err := update.NewSynthetic(params(t, size), seed)
	require.NoError(t, err)
	return s
}

// A witness whose public commitment is flipped, or that carries another
// sector's proof, leaves the circuit unsatisfied, and Check names the
// problem.
func TestCircuitRejects(t *testing.T) {
	ctx := context.Background()
	s := synthetic(t, 2<<10, 1)
	other := synthetic(t, 2<<10, 2)
	one := fr.One()
	flip := func(v fr.Element) fr.Element { var x fr.Element; x.Add(&v, &one); return x }

	for _, tc := range []struct {
		name  string
		edit  func(w *update.Partition)
		check func() error
	}{
		{"comm_r_old flipped", func(w *update.Partition) { w.CommROld = flip(w.CommROld) },
			func() error {
				return update.Check(ctx, s.Params, s.Proofs, s.H, flip(s.CommROld), s.CommDNew, s.CommRNew)
			}},
		{"comm_d_new flipped", func(w *update.Partition) { w.CommDNew = flip(w.CommDNew) },
			func() error {
				return update.Check(ctx, s.Params, s.Proofs, s.H, s.CommROld, flip(s.CommDNew), s.CommRNew)
			}},
		{"comm_r_new flipped", func(w *update.Partition) { w.CommRNew = flip(w.CommRNew) },
			func() error {
				return update.Check(ctx, s.Params, s.Proofs, s.H, s.CommROld, s.CommDNew, flip(s.CommRNew))
			}},
		{"another sector's proof", func(w *update.Partition) {
			o, err := update.WitnessFor(other.Params, 0, other.H, other.Proofs[0], s.CommROld, s.CommDNew, s.CommRNew)
			require.NoError(t, err)
			*w = *o
		}, func() error {
			return update.Check(ctx, s.Params, other.Proofs, s.H, s.CommROld, s.CommDNew, s.CommRNew)
		}},
		{"old replica node changed", func(w *update.Partition) { w.Challenges[3].LeafROld = flip(w.Challenges[3].LeafROld) },
			func() error {
				c := *s.Proofs[0]
				c.Challenges = append([]update.ChallengeProof(nil), c.Challenges...)
				c.Challenges[3].ROld.Leaf = flip(c.Challenges[3].ROld.Leaf)
				return update.Check(ctx, s.Params, []*update.PartitionProof{&c}, s.H, s.CommROld, s.CommDNew, s.CommRNew)
			}},
		{"apex leaf changed", func(w *update.Partition) { w.ApexLeaves[5] = flip(w.ApexLeaves[5]) },
			func() error {
				c := *s.Proofs[0]
				c.ApexLeaves = append([][32]byte(nil), c.ApexLeaves...)
				c.ApexLeaves[5][0] ^= 1
				return update.Check(ctx, s.Params, []*update.PartitionProof{&c}, s.H, s.CommROld, s.CommDNew, s.CommRNew)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := s.Witness(0)
			require.NoError(t, err)
			tc.edit(w)
			ch := synthesize(t, &update.Circuit{Params: s.Params, Witness: w})
			assert.ErrorIs(t, ch.Err(), synth.ErrUnsatisfied)
			err = tc.check()
			assert.ErrorIs(t, err, update.ErrBadVanillaProof)
			t.Log(err)
		})
	}
}

// At 8 MiB (4 partitions of 10 challenges) a synthetic update checks, one
// partition satisfies the circuit and a flipped comm_r_new does not.
func TestCircuit8MiB(t *testing.T) {
	if testing.Short() {
		t.Skip("8 MiB synthetic trees take seconds")
	}
	s := synthetic(t, 8<<20, 1)
	require.NoError(t, update.Check(context.Background(), s.Params, s.Proofs, s.H, s.CommROld, s.CommDNew, s.CommRNew))
	w, err := s.Witness(2)
	require.NoError(t, err)
	ch := synthesize(t, &update.Circuit{Params: s.Params, Witness: w})
	require.NoError(t, ch.Err())
	blank := synthesize(t, &update.Circuit{Params: s.Params}).Stats()
	assert.Equal(t, blank, ch.Stats())
	t.Logf("8 MiB partition: %v", blank)
	in, err := s.PublicInputs(2)
	require.NoError(t, err)
	assert.Equal(t, append([]fr.Element{fr.One()}, in...), ch.Inputs)

	var x fr.Element
	one := fr.One()
	x.Add(&w.CommRNew, &one)
	w.CommRNew = x
	assert.ErrorIs(t, synthesize(t, &update.Circuit{Params: s.Params, Witness: w}).Err(), synth.ErrUnsatisfied)
}

// Structured synthetic updates (the form of the large sizes) check and
// satisfy the circuit at 32 KiB (2 partitions, a sub and a top level) and
// 8 MiB, and their trees equal full trees over the same nodes (2 KiB).
func TestSyntheticStructured(t *testing.T) {
	sizes := []uint64{2 << 10, 32 << 10, 8 << 20}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, size := range sizes {
		p := params(t, size)
		s, err := update.NewSyntheticStructured(p, 9)
		require.NoError(t, err)
		require.NoError(t, update.Check(context.Background(), p, s.Proofs, s.H, s.CommROld, s.CommDNew, s.CommRNew), "%d bytes", size)
		w, err := s.Witness(p.Partitions - 1)
		require.NoError(t, err)
		require.NoError(t, synthesize(t, &update.Circuit{Params: p, Witness: w}).Err(), "%d bytes", size)
	}
	// at 2 KiB (64 nodes, one period) the structured sector is the random one
	full, err := update.NewSynthetic(params(t, 2<<10), 9)
	require.NoError(t, err)
	structured, err := update.NewSyntheticStructured(params(t, 2<<10), 9)
	require.NoError(t, err)
	assert.Equal(t, full, structured)
}

// A 32 GiB synthetic update (structured) and its vanilla proofs: Check
// passes, and Curio's JSON form round-trips.
func TestSynthetic32GiB(t *testing.T) {
	if testing.Short() {
		t.Skip("32 GiB synthetic update: seconds")
	}
	p := params(t, 32<<30)
	s, err := update.NewSynthetic(p, 1)
	require.NoError(t, err)
	require.Len(t, s.Proofs, 16)
	require.NoError(t, update.Check(context.Background(), p, s.Proofs, s.H, s.CommROld, s.CommDNew, s.CommRNew))
	data, err := update.EncodeVanillaProofsJSON(s.Proofs)
	require.NoError(t, err)
	t.Logf("32 GiB vanilla proofs: %d bytes of JSON", len(data))
	raw, err := update.ParseVanillaProofsJSON(data)
	require.NoError(t, err)
	back, err := update.DecodeVanillaProofs(p, raw)
	require.NoError(t, err)
	assert.Equal(t, s.Proofs, back)
	w, err := s.Witness(15)
	require.NoError(t, err)
	assert.Len(t, w.Challenges, 86)
}
