package cuda

import (
	"context"
	"fmt"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/msm"
	"github.com/gpuc2/gpuc2/native"
)

// Engine computes multi-scalar multiplications and fixed-base batches on
// one GPU through the native library (package native). Density masks are
// applied on the GPU.
//
// G1 and G2 take host slices: each call uploads its bases and scalars and
// waits for the result. G1Device and G2Device take descriptors of data
// already in device memory (a resident key, an uploaded witness) and run in
// the order of the caller's stream. Either way ctx is checked before each
// native call (a running kernel is not interrupted). Without the library
// every call returns an error wrapping native.ErrNotAvailable.
type Engine struct {
	// Device is the CUDA device ordinal.
	Device int
	// Options tune the native MSMs (native.WithWindow, WithTrace,
	// WithoutSplit): for experiments and benchmarks; provers leave it empty.
	Options []native.MSMOption
}

var (
	_ msm.Engine          = Engine{}
	_ msm.FixedBaseEngine = Engine{}
)

// G1 implements msm.Engine.
func (e Engine) G1(ctx context.Context, bases []bls12381.G1Affine, scalars []fr.Element, density *msm.Density) (bls12381.G1Jac, error) {
	return onGPU(ctx, e.Device, "G1", native.MSMG1, bases, scalars, density, e.Options)
}

// G2 implements msm.Engine.
func (e Engine) G2(ctx context.Context, bases []bls12381.G2Affine, scalars []fr.Element, density *msm.Density) (bls12381.G2Jac, error) {
	return onGPU(ctx, e.Device, "G2", native.MSMG2, bases, scalars, density, e.Options)
}

// G1Device returns the sum of the MSMs that parts describe over device
// buffers, run one after the other on st, a stream of e's device. A part's
// Density is a host bitmap, as for G1; with Canonical set its scalars are
// read as they are (converted from Montgomery form on the device before).
// No parts: the point at infinity.
func (e Engine) G1Device(ctx context.Context, st *native.Stream, parts ...native.DeviceMSM) (bls12381.G1Jac, error) {
	return onDevice(ctx, e.Device, st, "G1", (*native.Stream).MSMG1, parts, e.Options)
}

// G2Device is G1Device over G2.
func (e Engine) G2Device(ctx context.Context, st *native.Stream, parts ...native.DeviceMSM) (bls12381.G2Jac, error) {
	return onDevice(ctx, e.Device, st, "G2", (*native.Stream).MSMG2, parts, e.Options)
}

// FixedBaseG1 implements msm.FixedBaseEngine: scalars[i]·base for every i,
// computed on the GPU in batches of fixedBaseChunk scalars, ctx checked
// before each.
func (e Engine) FixedBaseG1(ctx context.Context, base *bls12381.G1Affine, scalars []fr.Element) ([]bls12381.G1Affine, error) {
	return fixedBase(ctx, e.Device, "G1", native.FixedBaseG1, base, scalars)
}

// FixedBaseG2 is FixedBaseG1 over G2.
func (e Engine) FixedBaseG2(ctx context.Context, base *bls12381.G2Affine, scalars []fr.Element) ([]bls12381.G2Affine, error) {
	return fixedBase(ctx, e.Device, "G2", native.FixedBaseG2, base, scalars)
}

// fixedBaseChunk is the number of scalars of one native fixed-base call,
// so that a cancelled setup stops within one call's time.
const fixedBaseChunk = 1 << 25

// fixedBase runs fb over scalars in chunks of fixedBaseChunk.
func fixedBase[P any](ctx context.Context, device int, group string,
	fb func(int, *P, []fr.Element, []P) error, base *P, scalars []fr.Element) ([]P, error) {
	out := make([]P, len(scalars))
	for lo := 0; lo < len(scalars); lo += fixedBaseChunk {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hi := min(lo+fixedBaseChunk, len(scalars))
		if err := fb(device, base, scalars[lo:hi], out[lo:hi]); err != nil {
			return nil, fmt.Errorf("msm: fixed-base %s on GPU %d: %w", group, device, err)
		}
	}
	return out, nil
}

// onGPU checks the inputs as the CPU engine does and runs one native MSM.
// The zero value of J is the point at infinity.
func onGPU[P, J any](ctx context.Context, device int, group string,
	call func(int, []P, []fr.Element, []uint64, ...native.MSMOption) (J, error),
	bases []P, scalars []fr.Element, density *msm.Density, opts []native.MSMOption) (J, error) {
	var zero J
	words, err := density.Check(len(bases), len(scalars))
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
	res, err := call(device, bases, scalars, words, opts...)
	if err != nil {
		return zero, fmt.Errorf("msm: %s on GPU %d: %w", group, device, err)
	}
	return res, ctx.Err()
}

// jacobian is a group's Jacobian point type (bls12381.G1Jac, G2Jac) whose
// zero value is the point at infinity.
type jacobian[J any] interface {
	*J
	AddAssign(*J) *J
}

// onDevice runs call on st for each part and sums the results.
func onDevice[J any, PJ jacobian[J]](ctx context.Context, device int, st *native.Stream, group string,
	call func(*native.Stream, native.DeviceMSM, ...native.MSMOption) (J, error), parts []native.DeviceMSM, opts []native.MSMOption) (J, error) {
	var sum J
	if st == nil || st.Device() != device {
		return sum, fmt.Errorf("msm: %s on GPU %d: %w: the stream is not one of this device", group, device, native.ErrInvalidArgument)
	}
	for _, part := range parts {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		r, err := call(st, part, opts...)
		if err != nil {
			return sum, fmt.Errorf("msm: %s on GPU %d: %w", group, device, err)
		}
		PJ(&sum).AddAssign(&r)
	}
	return sum, nil
}
