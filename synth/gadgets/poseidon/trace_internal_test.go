package poseidon

import (
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/gadgets/boolean"
	"github.com/gpuc2/gpuc2/synth/gadgets/num"
	native "github.com/gpuc2/gpuc2/synth/hash/poseidon"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// valuesCS keeps the allocated values and ignores rows.
type valuesCS struct{ vals []fr.Element }

func (s *valuesCS) Alloc(v fr.Element) synth.Variable {
	s.vals = append(s.vals, v)
	return synth.Aux(len(s.vals) - 1)
}
func (s *valuesCS) AllocInput(fr.Element) synth.Variable    { panic("unexpected input") }
func (s *valuesCS) Value(v synth.Variable) fr.Element       { return s.vals[v.Index()] }
func (s *valuesCS) Enforce(_, _, _ synth.LinearCombination) {}

// native.Trace is the sequence of values the gadget's walk (synthesize,
// which the templates are built from) allocates, at every arity, with the
// Merkle-tree and custom tags, for random and all-zero preimages.
func TestTraceIsTheWalk(t *testing.T) {
	var consts []*native.Constants
	for _, arity := range []int{2, 4, 8, 11} {
		c, err := native.ConstantsFor(arity)
		require.NoError(t, err)
		custom, err := native.CustomConstants(arity, uint64(arity))
		require.NoError(t, err)
		consts = append(consts, c, custom)
	}
	for _, c := range consts {
		t.Run(fmt.Sprintf("arity %d tag %s", c.Arity, c.DomainTag.String()), func(t *testing.T) {
			for k := range 4 {
				in := make([]fr.Element, c.Arity)
				for i := range in {
					if k > 0 {
						_, err := in[i].SetRandom()
						require.NoError(t, err)
					}
				}
				cs := &valuesCS{}
				b := boolean.NewBuilder(cs)
				pre := make([]num.Num, len(in))
				for i := range in {
					pre[i] = num.Alloc(b, in[i])
				}
				out := New(b).synthesize(c, pre)
				walk := cs.vals[len(in):]

				got := make([]fr.Element, c.TraceLen())
				require.NoError(t, c.Trace(got, in))
				require.Equal(t, walk, got)
				assert.Equal(t, out.Value, got[len(got)-1])
			}
		})
	}
}
