// Package trace records the stages of proofs as Chrome trace events
// (complete events, "ph":"X"), one track per device worker or CPU worker, so
// a run opens in Perfetto or chrome://tracing. A nil *Tracer records nothing
// and costs a nil check per stage.
package trace

import (
	"encoding/json"
	"io"
	"sync"
	"time"
)

// Track names where a span runs: a process (a device, or "cpu") and a thread
// (a worker within it).
type Track struct {
	Process string
	Thread  string
}

// Tracer collects spans. It is safe for concurrent use.
type Tracer struct {
	start time.Time
	mu    sync.Mutex
	spans []span
}

type span struct {
	track      Track
	name       string
	start, end time.Time
	args       map[string]any
}

// New returns a tracer whose time zero is now.
func New() *Tracer { return &Tracer{start: time.Now()} }

// Span is an open stage; End closes it.
type Span struct {
	t     *Tracer
	track Track
	name  string
	start time.Time
	args  map[string]any
}

// Begin opens a stage on track. args are key, value pairs shown with the span.
func (t *Tracer) Begin(track Track, name string, args ...any) Span {
	if t == nil {
		return Span{}
	}
	return Span{t: t, track: track, name: name, start: time.Now(), args: pairs(args)}
}

// End closes the span, adding more key, value pairs if given.
func (s Span) End(args ...any) {
	if s.t == nil {
		return
	}
	s.t.Add(s.track, s.name, s.start, time.Now(), append(flatten(s.args), args...)...)
}

// Add records a finished stage.
func (t *Tracer) Add(track Track, name string, start, end time.Time, args ...any) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.spans = append(t.spans, span{track: track, name: name, start: start, end: end, args: pairs(args)})
	t.mu.Unlock()
}

func pairs(kv []any) map[string]any {
	if len(kv) == 0 {
		return nil
	}
	m := make(map[string]any, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		if k, ok := kv[i].(string); ok {
			m[k] = kv[i+1]
		}
	}
	return m
}

func flatten(m map[string]any) []any {
	out := make([]any, 0, 2*len(m))
	for k, v := range m {
		out = append(out, k, v)
	}
	return out
}

// Event is one Chrome trace event as written.
type Event struct {
	Name string         `json:"name"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`  // µs since the tracer's start
	Dur  float64        `json:"dur"` // µs (0 for metadata)
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

// File is the JSON object format of a Chrome trace.
type File struct {
	TraceEvents     []Event `json:"traceEvents"`
	DisplayTimeUnit string  `json:"displayTimeUnit"`
}

// Events returns the recorded spans as Chrome events, with metadata events
// naming every process and thread.
func (t *Tracer) Events() []Event {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	spans := append([]span(nil), t.spans...)
	t.mu.Unlock()
	pids := map[string]int{}
	tids := map[Track]int{}
	var meta, events []Event
	for _, s := range spans {
		pid, ok := pids[s.track.Process]
		if !ok {
			pid = len(pids) + 1
			pids[s.track.Process] = pid
			meta = append(meta, Event{Name: "process_name", Ph: "M", Pid: pid, Args: map[string]any{"name": s.track.Process}})
		}
		tid, ok := tids[s.track]
		if !ok {
			tid = len(tids) + 1
			tids[s.track] = tid
			meta = append(meta, Event{Name: "thread_name", Ph: "M", Pid: pid, Tid: tid, Args: map[string]any{"name": s.track.Thread}})
		}
		events = append(events, Event{
			Name: s.name, Ph: "X", Pid: pid, Tid: tid, Args: s.args,
			Ts:  float64(s.start.Sub(t.start).Nanoseconds()) / 1e3,
			Dur: float64(s.end.Sub(s.start).Nanoseconds()) / 1e3,
		})
	}
	return append(meta, events...)
}

// WriteJSON writes the trace in Chrome's JSON object format.
func (t *Tracer) WriteJSON(w io.Writer) error {
	return json.NewEncoder(w).Encode(File{TraceEvents: t.Events(), DisplayTimeUnit: "ms"})
}
