package msm

import (
	"context"
	"fmt"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/native"
)

// CUDA computes multi-scalar multiplications on one GPU through the native
// library (package native). Density masks are applied on the GPU. Calls are
// synchronous; ctx is checked before and after the native call (a running
// kernel is not interrupted). Without the library every call returns an
// error wrapping native.ErrNotAvailable.
type CUDA struct {
	// Device is the CUDA device ordinal.
	Device int
}

var _ Engine = CUDA{}

// G1 implements Engine.
func (e CUDA) G1(ctx context.Context, bases []bls12381.G1Affine, scalars []fr.Element, density *Density) (bls12381.G1Jac, error) {
	var res bls12381.G1Jac
	words, err := checkDensity(len(bases), scalars, density)
	if err != nil {
		return res, err
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	if len(bases) == 0 {
		return res, nil
	}
	if density != nil && words == nil {
		words = []uint64{}
	}
	res, err = native.MSMG1(e.Device, bases, scalars, words)
	if err != nil {
		return bls12381.G1Jac{}, fmt.Errorf("msm: G1 on GPU %d: %w", e.Device, err)
	}
	return res, ctx.Err()
}

// G2 implements Engine.
func (e CUDA) G2(ctx context.Context, bases []bls12381.G2Affine, scalars []fr.Element, density *Density) (bls12381.G2Jac, error) {
	var res bls12381.G2Jac
	words, err := checkDensity(len(bases), scalars, density)
	if err != nil {
		return res, err
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	if len(bases) == 0 {
		return res, nil
	}
	if density != nil && words == nil {
		words = []uint64{}
	}
	res, err = native.MSMG2(e.Device, bases, scalars, words)
	if err != nil {
		return bls12381.G2Jac{}, fmt.Errorf("msm: G2 on GPU %d: %w", e.Device, err)
	}
	return res, ctx.Err()
}
