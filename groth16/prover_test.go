package groth16_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/testcircuit"
	"github.com/gpuc2/gpuc2/internal/testprove"
	"github.com/gpuc2/gpuc2/synth"
)

// The fixtures this package's tests share with groth16/gpu's.
var (
	randomness = testprove.Randomness
	newSeeded  = testprove.NewSeeded
	setup      = testprove.Setup
	prove      = testprove.Prove
)

func TestRoundTripCubic(t *testing.T) {
	var x fr.Element
	x.SetUint64(3)
	c := &testcircuit.Cubic{X: x}
	pk := setup(t, c, 1)
	counts := pk.Counts()
	// 3 rows + 2 input rows = 5 → m = 8; a: 2 inputs + 3 aux; b: ONE + x.
	assert.Equal(t, groth16.SectionCounts{H: 7, L: 3, A: 5, B: 2}, counts)

	proof := prove(t, pk, c)
	out := c.Out()
	ok, err := groth16.Verify(pk.VerifyingKey(), proof, []fr.Element{out})
	require.NoError(t, err)
	assert.True(t, ok, "valid proof")

	var wrong fr.Element
	wrong.SetUint64(36)
	ok, err = groth16.Verify(pk.VerifyingKey(), proof, []fr.Element{wrong})
	require.NoError(t, err)
	assert.False(t, ok, "wrong public input")

	other := setup(t, c, 2)
	ok, err = groth16.Verify(other.VerifyingKey(), proof, []fr.Element{out})
	require.NoError(t, err)
	assert.False(t, ok, "proof for another key")

	tampered := *proof
	tampered.A, tampered.C = proof.C, proof.A
	ok, err = groth16.Verify(pk.VerifyingKey(), &tampered, []fr.Element{out})
	require.NoError(t, err)
	assert.False(t, ok, "tampered proof")
}

func TestRoundTripChain(t *testing.T) {
	for _, tc := range []struct {
		n, inputs int
	}{{1, 1}, {9, 2}, {100, 3}, {1000, 5}} {
		c := &testcircuit.Chain{N: tc.n, Seed: uint64(tc.n), Inputs: tc.inputs}
		pk := setup(t, c, byte(tc.n))
		proofs := make([]groth16.Proof, 3)
		pub := make([][]fr.Element, 3)
		for i := range proofs {
			proofs[i] = *prove(t, pk, c)
			pub[i] = c.PublicInputs()
			ok, err := groth16.Verify(pk.VerifyingKey(), &proofs[i], pub[i])
			require.NoError(t, err)
			require.True(t, ok, "n=%d proof %d", tc.n, i)
		}
		// Fresh r, s per proof: proofs of the same witness differ.
		assert.False(t, proofs[0].A.Equal(&proofs[1].A), "r must be fresh per proof")
		ok, err := groth16.BatchVerify(pk.VerifyingKey(), proofs, pub)
		require.NoError(t, err)
		assert.True(t, ok, "batch n=%d", tc.n)
	}
}

func TestProveWithFixedRandomnessIsReproducible(t *testing.T) {
	c := &testcircuit.Chain{N: 50, Seed: 7, Inputs: 2}
	pk := setup(t, c, 3)
	rs := randomness(11, 13)
	p1 := prove(t, pk, c, rs)
	p2 := prove(t, pk, c, rs)
	b1, err := p1.MarshalBinary()
	require.NoError(t, err)
	b2, err := p2.MarshalBinary()
	require.NoError(t, err)
	assert.Equal(t, b1, b2)
}

func TestProveRejectsMismatchedKey(t *testing.T) {
	small := &testcircuit.Chain{N: 10, Seed: 1, Inputs: 1}
	big := &testcircuit.Chain{N: 40, Seed: 1, Inputs: 1}
	pk := setup(t, small, 4)
	_, err := groth16.Prove(context.Background(), &groth16.CPUProver{}, pk, big)
	assert.ErrorIs(t, err, groth16.ErrKeyMismatch)
}

// A witness-only assignment (no a, b, c, no densities) is refused, not
// proved into a wrong proof.
func TestProveRefusesWitnessOnly(t *testing.T) {
	c := &testcircuit.Chain{N: 10, Seed: 1, Inputs: 1}
	pk := setup(t, c, 4)
	w := synth.NewWitnessAssignment(synth.Sizes{})
	require.NoError(t, c.Synthesize(context.Background(), w))
	_, err := (&groth16.CPUProver{}).Prove(context.Background(), pk, w)
	assert.ErrorIs(t, err, groth16.ErrInvalidInput)
}

func TestProveCancelled(t *testing.T) {
	c := &testcircuit.Chain{N: 100, Seed: 1, Inputs: 1}
	pk := setup(t, c, 5)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := groth16.Prove(ctx, &groth16.CPUProver{}, pk, c)
	assert.ErrorIs(t, err, context.Canceled)
}

// WithPhaseStart announces each section once, in order, before the
// section's end is reported (WithPhases); a section that never runs is
// never announced.
func TestPhaseStart(t *testing.T) {
	c := &testcircuit.Chain{N: 20, Seed: 2, Inputs: 1}
	pk := setup(t, c, 6)
	var log []string
	record := func(cancelAt string, cancel context.CancelFunc) []groth16.ProveOption {
		return []groth16.ProveOption{
			groth16.WithPhaseStart(func(name string) {
				log = append(log, "start "+name)
				if name == cancelAt {
					cancel()
				}
			}),
			groth16.WithPhases(func(name string, _, _ time.Time, _ ...any) { log = append(log, "end "+name) }),
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := groth16.Prove(ctx, &groth16.CPUProver{}, pk, c, record("", cancel)...)
	require.NoError(t, err)
	var want []string
	for _, name := range []string{"H", "msm_h", "msm_l", "msm_a", "msm_b_g1", "msm_b_g2"} {
		want = append(want, "start "+name, "end "+name)
	}
	assert.Equal(t, want, log)

	log = nil
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	_, err = groth16.Prove(ctx, &groth16.CPUProver{}, pk, c, record("msm_l", cancel)...)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, want[:6], log, "cancelled as msm_l starts: nothing after it")
}

// unconstrained allocates an aux variable no row uses.
type unconstrained struct{}

func (unconstrained) Synthesize(_ context.Context, cs synth.ConstraintSystem) error {
	x := cs.Alloc(synth.CoeffOne)
	cs.Alloc(synth.CoeffOne)
	cs.Enforce(synth.LC(x), synth.LC(synth.One), synth.LC(synth.One))
	return nil
}

func TestSetupRefusesUnconstrained(t *testing.T) {
	_, err := groth16.Setup(context.Background(), unconstrained{}, newSeeded(1))
	assert.ErrorIs(t, err, groth16.ErrUnconstrained)
}

func TestRoundTripLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("2^16-row circuit in -short mode")
	}
	c := &testcircuit.Chain{N: 1 << 16, Seed: 9, Inputs: 4}
	pk := setup(t, c, 6)
	proof := prove(t, pk, c)
	ok, err := groth16.Verify(pk.VerifyingKey(), proof, c.PublicInputs())
	require.NoError(t, err)
	assert.True(t, ok)
}

// A key written in bellperson's format and opened again (mmapped, lazily
// decoded, checked or not) proves and verifies like the in-memory one.
func TestProveFromParamsFile(t *testing.T) {
	c := &testcircuit.Chain{N: 300, Seed: 5, Inputs: 2}
	pk := setup(t, c, 8)
	dir := t.TempDir()
	params, vkPath := dir+"/test.params", dir+"/test.vk"
	require.NoError(t, groth16.WriteParams(params, pk))
	require.NoError(t, groth16.WriteVerifyingKeyFile(vkPath, pk.VerifyingKey()))
	for _, checked := range []bool{false, true} {
		opened, err := groth16.OpenProvingKey(params, groth16.WithChecked(checked))
		require.NoError(t, err)
		proof := prove(t, opened, c)
		require.NoError(t, opened.Close())

		f, err := os.Open(vkPath)
		require.NoError(t, err)
		vk, err := groth16.ReadVerifyingKey(f)
		f.Close()
		require.NoError(t, err)
		ok, err := groth16.Verify(vk, proof, c.PublicInputs())
		require.NoError(t, err)
		assert.True(t, ok, "checked=%v", checked)
	}
}

func TestTimingsAdd(t *testing.T) {
	var sum groth16.Timings
	one := groth16.Timings{Synthesis: 1, H: 2, MSMH: 3, MSML: 4, MSMA: 5, MSMBG1: 6, MSMBG2: 7, Total: 28}
	sum.Add(one)
	sum.Add(one)
	require.Equal(t, groth16.Timings{Synthesis: 2, H: 4, MSMH: 6, MSML: 8, MSMA: 10, MSMBG1: 12, MSMBG2: 14, Total: 56}, sum)
}
