package prover

import (
	"context"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// yieldingSections records the sections run and the yields between them.
type yieldingSections struct{ calls []string }

func (s *yieldingSections) ComputeH(context.Context) error {
	s.calls = append(s.calls, "H")
	return nil
}
func (s *yieldingSections) g1(name string) (bls12381.G1Jac, error) {
	s.calls = append(s.calls, name)
	return bls12381.G1Jac{}, nil
}
func (s *yieldingSections) MSMH(context.Context) (bls12381.G1Jac, error)   { return s.g1("h") }
func (s *yieldingSections) MSML(context.Context) (bls12381.G1Jac, error)   { return s.g1("l") }
func (s *yieldingSections) MSMA(context.Context) (bls12381.G1Jac, error)   { return s.g1("a") }
func (s *yieldingSections) MSMBG1(context.Context) (bls12381.G1Jac, error) { return s.g1("b1") }
func (s *yieldingSections) MSMBG2(context.Context) (bls12381.G2Jac, error) {
	s.calls = append(s.calls, "b2")
	return bls12381.G2Jac{}, nil
}
func (s *yieldingSections) Yield(context.Context) error {
	s.calls = append(s.calls, "yield")
	return nil
}

// Sections that can yield do so between every two sections, not before
// the first or after the last.
func TestRunSectionsYields(t *testing.T) {
	s := &yieldingSections{}
	cfg := Settings{Timings: new(Timings)}
	_, err := runSections(context.Background(), &cfg, Counts{}, s, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"H", "yield", "h", "yield", "l", "yield", "a", "yield", "b1", "yield", "b2"}, s.calls)
}
