// Package cuda is package msm's engine on an NVIDIA GPU, through the native
// library (package native): Engine runs the MSMs of msm.Engine over host
// slices, MSMs over device buffers on a caller's stream (G1Device,
// G2Device: the CUDA prover's resident key and uploaded witness), and the
// fixed-base batches of msm.FixedBaseEngine (a trusted setup's points).
//
//	acc, err := cuda.Engine{Device: 0}.G1(ctx, bases, scalars, nil)
//	acc, err = cuda.Engine{Device: 0}.G1Device(ctx, stream, native.DeviceMSM{Bases: b, NBases: n, Scalars: s, NScalars: n})
//	pts, err := cuda.Engine{Device: 0}.FixedBaseG1(ctx, &g1, scalars)
//
// It is apart from msm so that msm, and the packages that need only its CPU
// engine (groth16), do not depend on native. Its results equal msm.CPU's.
// Calls are safe for concurrent use, except device calls sharing one
// stream, which its owner orders. Without the library every call returns
// an error wrapping native.ErrNotAvailable; the package builds without
// cgo.
package cuda
