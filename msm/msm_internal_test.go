package msm

import (
	"context"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sliced covers the scalars (all, or those a mask selects) with consecutive
// calls that get them in order, the first call sized by cpuFirstBudget in
// scalar weights, none more than four times the weight of the one before;
// under a context that can never be cancelled, in calls of cpuMaxChunk.
func TestSlicedCoversInOrder(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := make([]fr.Element, 300_000)
	for i := range s {
		switch i % 3 {
		case 1:
			s[i].SetOne()
		case 2:
			s[i].SetUint64(uint64(i))
		}
	}
	mask := make([]uint64, (len(s)+63)/64)
	var sel []fr.Element
	for i := range s {
		if i%5 != 0 && i%7 != 0 {
			mask[i/64] |= 1 << (i % 64)
			sel = append(sel, s[i])
		}
	}
	for _, tc := range []struct {
		name  string
		words []uint64
		want  []fr.Element
	}{{"all", nil, s}, {"mask", mask, sel}} {
		t.Run(tc.name, func(t *testing.T) {
			var got []fr.Element
			var calls [][2]int
			require.NoError(t, sliced(ctx, len(tc.want), s, tc.words, func(lo, hi int, x []fr.Element) error {
				require.Len(t, x, hi-lo)
				calls = append(calls, [2]int{lo, hi})
				got = append(got, x...)
				return nil
			}))
			require.Equal(t, tc.want, got)
			require.Greater(t, len(calls), 2)
			next, prev := 0, 0
			for i, c := range calls {
				require.Equal(t, next, c[0], "call %d starts where the previous ended", i)
				w := 0
				for j := c[0]; j < c[1]; j++ {
					w += weight(&tc.want[j])
				}
				last := weight(&tc.want[c[1]-1])
				if i == 0 {
					assert.Less(t, w-last, cpuFirstBudget, "first call")
				} else if c[1] < len(tc.want) {
					assert.LessOrEqual(t, w-last, 4*prev, "call %d grows at most fourfold", i)
				}
				next, prev = c[1], w
			}

			// Uncancellable: calls of cpuMaxChunk points, the last the rest.
			got, calls = nil, nil
			all := slices.Repeat(s, 12) // more than cpuMaxChunk, masked too
			whole, words := all, []uint64(nil)
			if tc.words != nil {
				whole, words = nil, make([]uint64, (len(all)+63)/64)
				for i := range all {
					if i%5 != 0 && i%7 != 0 {
						words[i/64] |= 1 << (i % 64)
						whole = append(whole, all[i])
					}
				}
			}
			require.Greater(t, len(whole), cpuMaxChunk)
			require.NoError(t, sliced(context.Background(), len(whole), all, words, func(lo, hi int, x []fr.Element) error {
				calls = append(calls, [2]int{lo, hi})
				got = append(got, x...)
				return nil
			}))
			require.Equal(t, whole, got)
			require.Len(t, calls, (len(whole)+cpuMaxChunk-1)/cpuMaxChunk)
			for i, c := range calls {
				assert.Equal(t, i*cpuMaxChunk, c[0], "call %d", i)
				assert.Equal(t, min((i+1)*cpuMaxChunk, len(whole)), c[1], "call %d", i)
			}
		})
	}
}

// A cancelled context stops sliced before its next call.
func TestSlicedStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s := make([]fr.Element, 1<<20) // zeros: many calls
	n := 0
	err := sliced(ctx, len(s), s, nil, func(_, _ int, _ []fr.Element) error {
		n++
		cancel()
		return nil
	})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 1, n)
}

func TestWeight(t *testing.T) {
	var zero, one, two, minusOne fr.Element
	one.SetOne()
	two.SetUint64(2)
	minusOne.Neg(&one)
	assert.Equal(t, []int{weightZero, weightOne, weightWide, weightWide},
		[]int{weight(&zero), weight(&one), weight(&two), weight(&minusOne)})
}
