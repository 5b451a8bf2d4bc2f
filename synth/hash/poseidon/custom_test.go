package poseidon

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A custom tag changes only the domain tag (id·2^40, neptune hash_type.rs
// CType::domain_tag); the optimized hash still equals the plain one, and
// differs from the Merkle-tree hash. (synth/update's challenge vectors,
// from rust-fil-proofs, check the values end to end.)
func TestCustomConstants(t *testing.T) {
	c, err := CustomConstants(2, 1)
	require.NoError(t, err)
	again, err := CustomConstants(2, 1)
	require.NoError(t, err)
	assert.Same(t, c, again, "cached")
	var want fr.Element
	want.SetString("1099511627776") // 2^40
	assert.Equal(t, want, c.DomainTag)

	m, err := ConstantsFor(2)
	require.NoError(t, err)
	assert.Equal(t, m.Compressed, c.Compressed)
	var three fr.Element
	three.SetUint64(3)
	assert.Equal(t, three, m.DomainTag, "the Merkle-tree constants keep their tag")

	in := []fr.Element{fr.One(), fr.One()}
	in[1].Double(&in[1])
	got, err := c.Hash(in)
	require.NoError(t, err)
	assert.Equal(t, c.hashPlain(in), got)
	other, err := m.Hash(in)
	require.NoError(t, err)
	assert.NotEqual(t, other, got)

	c7, err := CustomConstants(2, 7)
	require.NoError(t, err)
	want.SetString("7696581394432") // 7·2^40
	assert.Equal(t, want, c7.DomainTag)

	_, err = CustomConstants(2, 0)
	assert.Error(t, err)
	_, err = CustomConstants(3, 1)
	assert.ErrorIs(t, err, ErrArity)
}
