package trace_test

import (
	"testing"
	"time"

	"github.com/gpuc2/gpuc2/trace"
)

// BenchmarkSpan measures the cost of one traced stage with tracing off (a
// nil *Tracer) and on. A proof records about ten stages, each taking
// milliseconds to seconds, so even the "on" cost is far below noise.
func BenchmarkSpan(b *testing.B) {
	track := trace.Track{Process: "cpu", Thread: "prover 0"}
	b.Run("off", func(b *testing.B) {
		var tr *trace.Tracer
		for b.Loop() {
			tr.Begin(track, "stage", "partition", 1).End()
		}
	})
	b.Run("on", func(b *testing.B) {
		tr := trace.New()
		now := time.Now()
		for b.Loop() {
			tr.Add(track, "stage", now, now, "partition", 1)
		}
	})
}
