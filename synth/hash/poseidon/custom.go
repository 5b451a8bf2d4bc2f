package poseidon

import (
	"fmt"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// CustomConstants returns the constants of neptune's
// HashType::Custom(CType::Arbitrary(id)) for an arity: the same round
// constants and matrices as the Merkle-tree hash of that arity (neptune
// derives them from the width and strength alone), with the domain tag
// id·2^40 instead of 2^arity − 1. storage-proofs-update hashes its
// randomness (phi, rho, challenge digests) with id 1 at arity 2.
func CustomConstants(arity int, id uint64) (*Constants, error) {
	if id == 0 {
		return nil, fmt.Errorf("poseidon: custom domain tag id 0 (neptune requires id > 0)")
	}
	base, err := ConstantsFor(arity)
	if err != nil {
		return nil, err
	}
	key := customKey{arity, id}
	customMu.Lock()
	defer customMu.Unlock()
	if c, ok := custom[key]; ok {
		return c, nil
	}
	c := *base // the slices are shared and never written
	c.DomainTag.SetUint64(id)
	c.DomainTag.Mul(&c.DomainTag, &pow40)
	custom[key] = &c
	return &c, nil
}

type customKey struct {
	arity int
	id    uint64
}

var (
	customMu sync.Mutex
	custom   = map[customKey]*Constants{}
	pow40    = func() (p fr.Element) { p.SetUint64(1 << 40); return p }()
)
