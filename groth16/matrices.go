package groth16

import (
	"context"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/synth"
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
	return func(c *Settings) { c.matrices = ms }
}

// ABCSource says where a proof's a, b, c come from.
type ABCSource int

const (
	ABCHost   ABCSource = iota // the assignment's A, B, C (a full synthesis, or evaluated on the host)
	ABCDevice                  // evaluated on the device from the matrices
)

// checkWitness checks that a witness-only w (its input rows appended) can
// be proved with ms.
func CheckWitness(w *synth.ProvingAssignment, ms *pce.Matrices) error {
	switch {
	case ms == nil:
		return fmt.Errorf("%w: a witness-only assignment has no a, b, c or densities: prove it WithMatrices", ErrInvalidInput)
	case ms.Inputs() != len(w.Inputs) || ms.Aux() != len(w.Aux) || ms.Rows() != w.NumRows():
		return fmt.Errorf("%w: matrices of %d inputs, %d aux and %d rows for a witness of %d, %d and %d",
			ErrInvalidInput, ms.Inputs(), ms.Aux(), ms.Rows(), len(w.Inputs), len(w.Aux), w.NumRows())
	}
	return nil
}

// proofAssignment is w (its input rows appended) as a prover's sections
// read it. A full synthesis is w itself. A witness-only one needs ms: it
// becomes a copy of w with ms's densities, and with a, b, c evaluated on
// the host unless src is ABCDevice (then A, B, C stay nil).
func ProofAssignment(ctx context.Context, w *synth.ProvingAssignment, ms *pce.Matrices, src ABCSource) (*synth.ProvingAssignment, error) {
	if !w.WitnessOnly() {
		return w, nil
	}
	if err := CheckWitness(w, ms); err != nil {
		return nil, err
	}
	wc := *w
	wc.AAux, wc.BAux, wc.BInput = ms.Densities()
	if src == ABCDevice {
		return &wc, nil
	}
	n := ms.Rows()
	m := synth.DomainSize(n) // room for the quotient to work in place
	wc.A, wc.B, wc.C = make([]fr.Element, n, m), make([]fr.Element, n, m), make([]fr.Element, n, m)
	if err := ms.Eval(ctx, w.Inputs, w.Aux, wc.A, wc.B, wc.C); err != nil {
		return nil, fmt.Errorf("groth16: constraint evaluation: %w", err)
	}
	return &wc, nil
}
