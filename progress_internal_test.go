package gpuc2

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gpuc2/gpuc2/internal/pipeline"
)

// Every stage of the pipeline has its Progress stage, each its own.
func TestStagesMapped(t *testing.T) {
	seen := map[Stage]bool{}
	for s := pipeline.Queued; s <= pipeline.Failed; s++ {
		st, ok := stages[s]
		assert.True(t, ok, "pipeline stage %d", s)
		assert.False(t, seen[st], "%s twice", st)
		seen[st] = true
	}
	assert.Len(t, stages, int(pipeline.Failed)+1)
	assert.False(t, seen[StageVerified], "verified is the facade's own")
}
