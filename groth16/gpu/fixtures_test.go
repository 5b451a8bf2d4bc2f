package gpu_test

import "github.com/gpuc2/gpuc2/internal/testprove"

// The fixtures this package's tests share with groth16's.
var (
	randomness   = testprove.Randomness
	setup        = testprove.Setup
	prove        = testprove.Prove
	compile      = testprove.Compile
	witness      = testprove.Witness
	matricesCase = testprove.MatricesCase
)
