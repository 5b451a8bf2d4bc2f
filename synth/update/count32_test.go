package update_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/update"
)

// TestCircuitCount32GiB counts the blank 32 GiB partition circuit
// (tests/circuit.rs test_empty_sector_update_constraints_32gib asserts
// 81,049,499) and checks that a synthetic update's partition satisfies it.
// Each synthesis keeps every aux value (peak RSS 9.4 GiB; 125 s for the
// count alone on the 2-core dev machine, 2026-12-05), so it runs only with
// GPUC2_UPDATE_32GIB=1:
//
//	GPUC2_UPDATE_32GIB=1 go test -run TestCircuitCount32GiB -v -timeout 30m ./synth/update
func TestCircuitCount32GiB(t *testing.T) {
	if os.Getenv("GPUC2_UPDATE_32GIB") != "1" {
		t.Skip("set GPUC2_UPDATE_32GIB=1 to count the 32 GiB circuit")
	}
	p := params(t, 32<<30)
	ch := synth.NewChecker()
	require.NoError(t, (&update.Circuit{Params: p}).Synthesize(context.Background(), ch))
	st := ch.Stats()
	t.Logf("32 GiB partition: %v", st)
	assert.Equal(t, 81049499, st.Constraints)
	assert.Equal(t, 5, st.Inputs)

	// partition 15 of a (structured) synthetic update satisfies it
	s, err := update.NewSynthetic(p, 1)
	require.NoError(t, err)
	w, err := s.Witness(15)
	require.NoError(t, err)
	ch = synth.NewChecker()
	require.NoError(t, (&update.Circuit{Params: p, Witness: w}).Synthesize(context.Background(), ch))
	require.NoError(t, ch.Err())
	assert.Equal(t, st, ch.Stats())
	in, err := s.PublicInputs(15)
	require.NoError(t, err)
	assert.Equal(t, in, ch.Inputs[1:])
}
