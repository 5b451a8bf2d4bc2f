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
	// Options tune the native MSMs (native.WithWindow, WithTrace,
	// WithoutSplit): for experiments and benchmarks; provers leave it empty.
	Options []native.MSMOption
}

var _ Engine = CUDA{}

// G1 implements Engine.
func (e CUDA) G1(ctx context.Context, bases []bls12381.G1Affine, scalars []fr.Element, density *Density) (bls12381.G1Jac, error) {
	return onGPU(ctx, e.Device, "G1", native.MSMG1, bases, scalars, density, e.Options)
}

// G2 implements Engine.
func (e CUDA) G2(ctx context.Context, bases []bls12381.G2Affine, scalars []fr.Element, density *Density) (bls12381.G2Jac, error) {
	return onGPU(ctx, e.Device, "G2", native.MSMG2, bases, scalars, density, e.Options)
}

// onGPU checks the inputs as the CPU engine does and runs one native MSM.
// The zero value of J is the point at infinity.
func onGPU[P, J any](ctx context.Context, device int, group string,
	msm func(int, []P, []fr.Element, []uint64, ...native.MSMOption) (J, error),
	bases []P, scalars []fr.Element, density *Density, opts []native.MSMOption) (J, error) {
	var zero J
	words, err := checkDensity(len(bases), scalars, density)
	if err != nil {
		return zero, err
	}
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	if len(bases) == 0 {
		return zero, nil
	}
	if density != nil && words == nil {
		words = []uint64{} // a mask, even an empty one, is not "no mask"
	}
	res, err := msm(device, bases, scalars, words, opts...)
	if err != nil {
		return zero, fmt.Errorf("msm: %s on GPU %d: %w", group, device, err)
	}
	return res, ctx.Err()
}
