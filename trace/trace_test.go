package trace_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/testcircuit"
	"github.com/gpuc2/gpuc2/trace"
)

func TestNilTracerIsOff(t *testing.T) {
	var tr *trace.Tracer
	tr.Begin(trace.Track{}, "x").End()
	tr.Add(trace.Track{}, "x", time.Now(), time.Now())
	assert.Nil(t, tr.Events())
}

// A CPU proof traced phase by phase: every phase appears once, inside the
// proof's span, with non-negative durations that add up to the proof's time.
func TestTraceOfACPUProof(t *testing.T) {
	ctx := context.Background()
	c := &testcircuit.Chain{N: 2000, Seed: 1, Inputs: 2}
	pk, err := groth16.Setup(ctx, c, rand.Reader)
	require.NoError(t, err)

	tr := trace.New()
	track := trace.Track{Process: "cpu", Thread: "prover 0"}
	w := newAssignment(t, c)
	span := tr.Begin(track, "prove", "rows", 2000)
	_, err = (&groth16.CPUProver{}).Prove(ctx, pk, w,
		groth16.WithPhases(func(name string, start, end time.Time, args ...any) { tr.Add(track, name, start, end, args...) }))
	span.End()
	require.NoError(t, err)

	var buf bytes.Buffer
	require.NoError(t, tr.WriteJSON(&buf))
	var f trace.File
	require.NoError(t, json.Unmarshal(buf.Bytes(), &f))

	byName := map[string][]trace.Event{}
	for _, e := range f.TraceEvents {
		if e.Ph == "X" {
			byName[e.Name] = append(byName[e.Name], e)
		}
	}
	require.Len(t, byName["prove"], 1)
	prove := byName["prove"][0]
	assert.EqualValues(t, 2000, prove.Args["rows"])
	var sum float64
	for _, name := range []string{"H", "msm_h", "msm_l", "msm_a", "msm_b_g1", "msm_b_g2"} {
		require.Len(t, byName[name], 1, name)
		e := byName[name][0]
		assert.GreaterOrEqual(t, e.Dur, 0.0, name)
		assert.GreaterOrEqual(t, e.Ts, prove.Ts, "%s starts inside prove", name)
		assert.LessOrEqual(t, e.Ts+e.Dur, prove.Ts+prove.Dur, "%s ends inside prove", name)
		assert.Equal(t, prove.Tid, e.Tid)
		sum += e.Dur
	}
	// The phases cover the proof but for the shape check and the final assembly.
	assert.InDelta(t, prove.Dur, sum, 0.1*prove.Dur+2000, "phases sum to the proof's time")
}
