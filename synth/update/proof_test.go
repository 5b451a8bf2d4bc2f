package update_test

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/synth/update"
)

// envTestProof opts in to a CPU Groth16 setup and proof of the 2 KiB update
// circuit (minutes on 2 cores).
const envTestProof = "GPUC2_TEST_UPDATE_PROOF"

// A CPU proof of a synthetic 2 KiB update's partition, under a TEST-ONLY
// setup, verifies against the natively computed public inputs, and not
// against a flipped commitment, another partition's inputs or another
// sector's:
//
//	GPUC2_TEST_UPDATE_PROOF=1 go test -run TestProve2KiB -v ./synth/update
func TestProve2KiB(t *testing.T) {
	if testing.Short() || os.Getenv(envTestProof) == "" {
		t.Skipf("set %s=1 for a 2 KiB update setup and CPU proof (minutes on 2 cores)", envTestProof)
	}
	ctx := context.Background()
	p := params(t, 2<<10)
	pk, err := groth16.Setup(ctx, &update.Circuit{Params: p}, rand.NewChaCha8([32]byte{47}))
	require.NoError(t, err)
	s := synthetic(t, 2<<10, 1)
	w, err := s.Witness(0)
	require.NoError(t, err)
	proof, err := groth16.Prove(ctx, &groth16.CPUProver{}, pk, &update.Circuit{Params: p, Witness: w})
	require.NoError(t, err)

	public, err := s.PublicInputs(0)
	require.NoError(t, err)
	ok, err := groth16.Verify(pk.VerifyingKey(), proof, public)
	require.NoError(t, err)
	assert.True(t, ok, "the proof verifies")

	one := fr.One()
	for i, name := range []string{"k_and_h_select", "comm_r_old", "comm_d_new", "comm_r_new"} {
		bad := append([]fr.Element(nil), public...)
		bad[i].Add(&bad[i], &one)
		ok, err := groth16.Verify(pk.VerifyingKey(), proof, bad)
		require.NoError(t, err)
		assert.False(t, ok, "verifies with %s flipped", name)
	}
	other := synthetic(t, 2<<10, 2)
	otherPublic, err := other.PublicInputs(0)
	require.NoError(t, err)
	ok, err = groth16.Verify(pk.VerifyingKey(), proof, otherPublic)
	require.NoError(t, err)
	assert.False(t, ok, "verifies for another sector")
}
