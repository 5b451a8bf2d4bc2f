package groth16_test

import (
	"testing"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/testprove"
)

// The fixtures this package's tests share with groth16/gpu's.
var (
	compile = testprove.Compile
	witness = testprove.Witness
)

func TestProveWithMatrices(t *testing.T) {
	testprove.ProveWithMatrices(t, &groth16.CPUProver{}, false)
}
