// Package msm computes multi-scalar multiplications Σ sᵢ·Pᵢ over BLS12-381
// G1 and G2, and fixed-base batch multiplications k·P for trusted setups.
//
// Engine is the interface the Groth16 provers call; CPU implements it with
// gnark-crypto, and CUDA with the native library (package native) when it is
// loaded. CUDA also runs MSMs whose bases and scalars already live on its
// GPU (G1Device, G2Device: the CUDA prover's resident key and uploaded
// witness), on the caller's stream. A Density mask selects the scalars that
// take part, with one base per selected scalar: the layout of bellperson's
// a and b queries.
//
//	acc, err := msm.CPU{}.G1(ctx, bases, scalars, nil)
//	acc, err = msm.CUDA{Device: 0}.G1Device(ctx, stream, native.DeviceMSM{Bases: b, NBases: n, Scalars: s, NScalars: n})
//
// Scalars are gnark-crypto fr.Elements (Montgomery form; device scalars may
// be canonical, see native.DeviceMSM). Calls are safe for concurrent use,
// except device calls sharing one stream, which its owner orders. CPU splits an MSM into gnark-crypto calls of about 100 ms
// each, sized from the speed it measures, and checks ctx between them: a
// cancelled MSM returns within about that on any machine.
package msm
