// Package msm computes multi-scalar multiplications Σ sᵢ·Pᵢ over BLS12-381
// G1 and G2, and fixed-base batch multiplications k·P for trusted setups.
//
// Engine is the interface the Groth16 provers call, and FixedBaseEngine
// the one a trusted setup calls; CPU implements both with gnark-crypto and
// this package's fixed-base tables, and package msm/cuda's Engine with the
// native library on a GPU (it also runs MSMs whose bases and scalars
// already live on its GPU). A Density mask selects the scalars that take
// part, with one base per selected scalar: the layout of bellperson's a and
// b queries.
//
//	acc, err := msm.CPU{}.G1(ctx, bases, scalars, nil)
//	pts, err := msm.FixedBaseG1(ctx, &g1, scalars)
//
// Scalars are gnark-crypto fr.Elements (Montgomery form). Calls are safe
// for concurrent use. CPU splits an MSM into gnark-crypto calls of about
// 100 ms each, sized from the speed it measures, and checks ctx between
// them: a cancelled MSM returns within about that on any machine. Under a
// context that can never be cancelled (ctx.Done() is nil) it makes fewer,
// larger calls instead, which is faster.
//
// The package is pure Go: the GPU engine lives in msm/cuda, so that what
// needs only the CPU engine (package groth16) does not depend on native.
package msm
