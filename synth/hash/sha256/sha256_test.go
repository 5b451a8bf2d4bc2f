package sha256_test

import (
	stdsha "crypto/sha256"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/gpuc2/gpuc2/synth/hash/sha256"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSum254(t *testing.T) {
	for _, msg := range []string{"", "abc", "filecoin"} {
		want := stdsha.Sum256([]byte(msg))
		want[31] &= 0x3f
		assert.Equal(t, want, sha256.Sum254([]byte(msg)))
	}
}

func TestHashFr(t *testing.T) {
	var a, b fr.Element
	_, _ = a.SetRandom()
	_, _ = b.SetRandom()
	got := sha256.HashFr(&a, &b)
	ab, bb := sha256.FromFr(&a), sha256.FromFr(&b)
	want, err := sha256.ToFr(sha256.HashNodes(ab, bb))
	require.NoError(t, err)
	assert.Equal(t, want, got)
	back, err := sha256.ToFr(ab)
	require.NoError(t, err)
	assert.Equal(t, a, back)
}

func TestToFrRejectsNonCanonical(t *testing.T) {
	var b [32]byte
	for i := range b {
		b[i] = 0xff
	}
	_, err := sha256.ToFr(b)
	assert.ErrorIs(t, err, sha256.ErrNotCanonical)
}
