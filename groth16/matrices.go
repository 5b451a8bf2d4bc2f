package groth16

import (
	"github.com/gpuc2/gpuc2/synth/pce"
)

// WithMatrices gives Prove the circuit's compiled constraint matrices
// (synth/pce), with which it proves a witness-only assignment
// (synth.NewWitnessAssignment): the densities come from ms, and a, b, c are
// evaluated from ms and the witness — by the CUDA prover on the device,
// where only the witness then crosses the bus, by the CPU prover on all
// cores. ms must be compiled from the same circuit with its input rows
// appended, as Prove appends them; sizes that differ fail with
// ErrInvalidInput. Matrices made WithoutArrays serve a CUDA prover that
// already holds their copy (PreloadMatrices, or an earlier proof: found by
// their ID); where their arrays would be needed, the proof fails with
// pce.ErrNoArrays. A fully synthesized assignment ignores ms.
func WithMatrices(ms *pce.Matrices) ProveOption {
	return func(c *settings) { c.Matrices = ms }
}
