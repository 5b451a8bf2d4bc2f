package gpuc2

import (
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// SetPartitionCircuitForTest replaces how a partition's circuit is made and
// returns the undo.
func SetPartitionCircuitForTest(f func(c1 *porep.C1, k int) (synth.Circuit, error)) (restore func()) {
	old := partitionCircuit
	partitionCircuit = f
	return func() { partitionCircuit = old }
}
