package stacked_test

import (
	"context"
	"fmt"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/merkle"
	"github.com/gpuc2/gpuc2/synth/stacked"
	"github.com/gpuc2/gpuc2/synth/stacked/stackedtest"
)

// The 8-0-0 circuit of rust-fil-proofs' tests/stacked_circuit.rs with a
// synthetic witness (from no real sector), checked and counted.
func ExampleCircuit() {
	p := stacked.TestCircuitParams(merkle.Shape{Base: 8})
	w, err := stackedtest.Partition(p, 1)
	if err != nil {
		panic(err)
	}
	ch := synth.NewChecker()
	if err := (&stacked.Circuit{Params: p, Witness: w}).Synthesize(context.Background(), ch); err != nil {
		panic(err)
	}
	st := ch.Stats()
	fmt.Println("satisfied:", ch.Err() == nil)
	fmt.Println("inputs:", st.Inputs, "constraints:", st.Constraints)
	// Output:
	// satisfied: true
	// inputs: 22 constraints: 1199620
}
