package gpuc2

import (
	"fmt"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/circuits"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/pce"
)

// shape is what the facade needs to know of a proof type's partition
// circuit: to admit a proof, size it, and check a key against it.
type shape struct {
	sizes        synth.Sizes // inputs (with ONE), aux, rows without the input rows
	hint         synth.Sizes // capacity of a proving assignment: rows padded to the domain
	witness      synth.Sizes // capacity of a witness-only assignment (its rows are only counted)
	domain       int64       // the evaluation domain: rows with one per input, to a power of two
	bytes        int64       // host bytes of one partition's working set
	witnessBytes int64       // ... when the GPUs evaluate a, b, c: its witness alone
	partitions   int
	matrices     pce.Profile // sizes the circuit's matrices and their recording
}

// newShape is k's shape, from the circuit's formulas (cheap).
func newShape(k circuits.Type) (*shape, error) {
	sizes, partitions, err := k.CircuitSizes()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	s := &shape{sizes: sizes, partitions: partitions, matrices: k.Kind().Matrices}
	s.domain = int64(s.sizes.Domain())
	s.hint = s.sizes
	s.hint.Rows = int(s.domain)
	s.witness = s.sizes
	s.witness.Rows = 0
	s.bytes = groth16.PartitionHostBytes(s.sizes)
	s.witnessBytes = groth16.WitnessHostBytes(s.sizes)
	return s, nil
}

// checkKeyShape checks the section counts a key must have for k's circuit,
// so a key of another circuit is refused before any synthesis.
func checkKeyShape(pk *groth16.ProvingKey, k circuits.Type) error {
	s, err := newShape(k)
	if err != nil {
		return err
	}
	c := pk.Counts()
	ic := len(pk.VerifyingKey().IC)
	switch {
	case ic != s.sizes.Inputs:
		return fmt.Errorf("%w: the key has %d public inputs, the %v circuit %d", ErrParamsCorrupt, ic, k, s.sizes.Inputs)
	case int64(c.H) != s.domain-1:
		return fmt.Errorf("%w: the key has %d h points, the %v circuit needs %d", ErrParamsCorrupt, c.H, k, s.domain-1)
	case c.L != s.sizes.Aux:
		return fmt.Errorf("%w: the key has %d l points, the %v circuit has %d aux variables", ErrParamsCorrupt, c.L, k, s.sizes.Aux)
	case c.A > s.sizes.Inputs+s.sizes.Aux || c.B > s.sizes.Inputs+s.sizes.Aux:
		return fmt.Errorf("%w: the key's a (%d) or b (%d) section is larger than the %v circuit", ErrParamsCorrupt, c.A, c.B, k)
	}
	return nil
}

// estimatedKeyShape is k's key section counts, public inputs and .params
// size from its circuit: the counts the table of circuit kinds knows (the
// 32 GiB circuits'), upper bounds on the a and b sections for the others.
func estimatedKeyShape(k circuits.Type, sh *shape) (c groth16.SectionCounts, ic int, size int64) {
	ic = sh.sizes.Inputs
	vars := sh.sizes.Inputs + sh.sizes.Aux
	c = groth16.SectionCounts{H: int(sh.domain - 1), L: sh.sizes.Aux, A: vars, B: vars}
	if known, ok := k.KnownCounts(); ok && known.L == sh.sizes.Aux {
		c = known
	}
	return c, ic, groth16.ParamsFileBytes(c, ic)
}
