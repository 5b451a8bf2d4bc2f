package prover

import (
	"context"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/pce"
)

// ABCSource says where a proof's a, b, c come from.
type ABCSource int

const (
	// ABCHost takes the assignment's A, B, C (a full synthesis), evaluating
	// them on the host from the matrices for a witness-only one.
	ABCHost ABCSource = iota
	// ABCDevice leaves a witness-only assignment's A, B, C to be evaluated
	// on the device from the matrices.
	ABCDevice
)

// CheckWitness checks that a witness-only w (its input rows appended) can
// be proved with ms; a misfit wraps ErrInvalidInput.
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

// ProofAssignment is w (its input rows appended) as a prover's sections
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
