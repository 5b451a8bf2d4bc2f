package main

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The sampler keeps the largest resident set it saw, split into the Go
// heap, the runtime's other memory and the pinned bytes it was told of,
// and writes a heap profile when the resident set has grown by the step.
func TestMemSampler(t *testing.T) {
	if _, err := residentSet(); err != nil {
		t.Skipf("no resident set to read here: %v", err)
	}
	profile := filepath.Join(t.TempDir(), "heap.peak")
	s := startMemSampler(func() int64 { return 7 << 20 }, profile, 1<<20, 5*time.Millisecond)
	require.NotNil(t, s)
	data := make([]byte, 256<<20)
	for i := range data { // touch every page: resident
		data[i] = byte(i)
	}
	time.Sleep(30 * time.Millisecond)
	peak, err := s.stop()
	runtime.KeepAlive(data)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, peak.rss, int64(256<<20), "the touched slice is resident")
	assert.GreaterOrEqual(t, peak.heapObjects, int64(256<<20), "and in the Go heap")
	assert.GreaterOrEqual(t, peak.goOther, int64(0))
	assert.Equal(t, int64(7<<20), peak.pinned)
	assert.Contains(t, peak.String(), "Go heap objects")
	fi, err := os.Stat(profile)
	require.NoError(t, err, "a profile at the peak")
	assert.Positive(t, fi.Size())

	again, err := s.stop() // reports again, stops nothing twice
	assert.NoError(t, err)
	assert.Equal(t, peak, again)
}

// A profile that cannot be written is reported by stop, and the sampling
// goes on without it.
func TestMemSamplerProfileError(t *testing.T) {
	if _, err := residentSet(); err != nil {
		t.Skipf("no resident set to read here: %v", err)
	}
	s := startMemSampler(func() int64 { return 0 }, filepath.Join(t.TempDir(), "no", "heap.peak"), 1, time.Millisecond)
	require.NotNil(t, s)
	time.Sleep(5 * time.Millisecond)
	peak, err := s.stop()
	assert.Error(t, err)
	assert.Positive(t, peak.rss)
}
