package trace_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/synth"
)

func newAssignment(t *testing.T, c synth.Circuit) *synth.ProvingAssignment {
	t.Helper()
	w := synth.NewProvingAssignment(synth.Sizes{})
	require.NoError(t, c.Synthesize(context.Background(), w))
	return w
}
