// Package msm computes multi-scalar multiplications Σ sᵢ·Pᵢ over BLS12-381
// G1 and G2, and fixed-base batch multiplications k·P for trusted setups.
//
// Engine is the interface the Groth16 provers call; CPU implements it with
// gnark-crypto, and a CUDA engine sits behind the same calls when the native
// library is loaded. A Density mask selects the scalars that take part, with
// one base per selected scalar: the layout of bellperson's a and b queries.
//
//	acc, err := msm.CPU{}.G1(ctx, bases, scalars, nil)
//
// Scalars are gnark-crypto fr.Elements (Montgomery form). Calls are safe for
// concurrent use. CPU splits an MSM into gnark-crypto calls of about 100 ms
// each, sized from the speed it measures, and checks ctx between them: a
// cancelled MSM returns within about that on any machine.
package msm
