package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// timeline is a Chrome trace reduced to what the picture shows: the complete
// events ("ph":"X") grouped by the (pid, tid) track they ran on.
type timeline struct {
	tracks     []*track // by pid, then tid
	start, end float64  // µs: the first start and the last end of any span
}

// track is one thread of one process, named by the trace's metadata events.
type track struct {
	pid, tid        id
	process, thread string // "" where the trace names none
	spans           []span // by start; on equal starts the longer first
}

// label is how the picture names the track: "process / thread".
func (t *track) label() string {
	p, th := t.process, t.thread
	if p == "" {
		p = "pid " + t.pid.String()
	}
	if th == "" {
		th = "tid " + t.tid.String()
	}
	return p + " / " + th
}

// span is one complete event, times in µs.
type span struct {
	name       string
	start, end float64
}

// id is a pid or tid: a number in most traces, a string in some.
type id struct {
	num   float64
	str   string
	isStr bool
}

func (i *id) UnmarshalJSON(b []byte) error {
	switch {
	case string(b) == "null":
		return nil
	case len(b) > 0 && b[0] == '"':
		i.isStr = true
		return json.Unmarshal(b, &i.str)
	}
	return json.Unmarshal(b, &i.num)
}

func (i id) String() string {
	if i.isStr {
		return i.str
	}
	return strconv.FormatFloat(i.num, 'g', -1, 64)
}

// compareIDs orders numbers by value before strings in byte order.
func compareIDs(a, b id) int {
	switch {
	case a.isStr != b.isStr:
		if a.isStr {
			return 1
		}
		return -1
	case a.isStr:
		return cmp.Compare(a.str, b.str)
	}
	return cmp.Compare(a.num, b.num)
}

// event is one trace event as far as the picture needs it.
type event struct {
	Name string          `json:"name"`
	Ph   string          `json:"ph"`
	Ts   *float64        `json:"ts"`  // µs
	Dur  *float64        `json:"dur"` // µs
	Pid  id              `json:"pid"`
	Tid  id              `json:"tid"`
	Args json.RawMessage `json:"args"`
}

// parse reads a Chrome trace in either of its JSON forms, a bare array of
// events or an object with a "traceEvents" array, and keeps its complete
// events and the process and thread names. Other phases are ignored.
func parse(data []byte) (*timeline, error) {
	raw, err := rawEvents(data)
	if err != nil {
		return nil, err
	}
	type key struct{ pid, tid id }
	processes := map[id]string{}
	threads := map[key]string{}
	tracks := map[key]*track{}
	tl := &timeline{start: math.Inf(1), end: math.Inf(-1)}
	for i, r := range raw {
		var e event
		if err := json.Unmarshal(r, &e); err != nil {
			return nil, fmt.Errorf("event %d: %w", i, err)
		}
		switch e.Ph {
		case "M":
			var args struct {
				Name string `json:"name"`
			}
			if json.Unmarshal(e.Args, &args) != nil {
				continue // metadata we cannot read only costs a name
			}
			switch e.Name {
			case "process_name":
				processes[e.Pid] = args.Name
			case "thread_name":
				threads[key{e.Pid, e.Tid}] = args.Name
			}
		case "X":
			s, err := completeSpan(e)
			if err != nil {
				return nil, fmt.Errorf("event %d (%q): %w", i, e.Name, err)
			}
			k := key{e.Pid, e.Tid}
			t := tracks[k]
			if t == nil {
				t = &track{pid: e.Pid, tid: e.Tid}
				tracks[k] = t
				tl.tracks = append(tl.tracks, t)
			}
			t.spans = append(t.spans, s)
			tl.start = min(tl.start, s.start)
			tl.end = max(tl.end, s.end)
		}
	}
	if len(tl.tracks) == 0 {
		return nil, fmt.Errorf(`no complete events ("ph":"X") among the trace's %d events`, len(raw))
	}
	for _, t := range tl.tracks {
		t.process = processes[t.pid]
		t.thread = threads[key{t.pid, t.tid}]
		slices.SortStableFunc(t.spans, func(a, b span) int {
			return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(b.end, a.end))
		})
	}
	slices.SortStableFunc(tl.tracks, func(a, b *track) int {
		return cmp.Or(compareIDs(a.pid, b.pid), compareIDs(a.tid, b.tid))
	})
	return tl, nil
}

func completeSpan(e event) (span, error) {
	if e.Ts == nil {
		return span{}, errors.New(`complete event without "ts"`)
	}
	var dur float64
	if e.Dur != nil {
		dur = *e.Dur
	}
	if dur < 0 {
		return span{}, fmt.Errorf("negative duration %g µs", dur)
	}
	s := span{name: e.Name, start: *e.Ts, end: *e.Ts + dur}
	if math.IsInf(s.end, 0) {
		return span{}, fmt.Errorf("ts %g + dur %g µs is out of range", *e.Ts, dur)
	}
	return s, nil
}

// rawEvents splits the trace into its events, undecoded.
func rawEvents(data []byte) ([]json.RawMessage, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, errors.New("empty trace: want a JSON array of events or an object with \"traceEvents\"")
	}
	var events []json.RawMessage
	switch data[0] {
	case '[':
		err := json.Unmarshal(data, &events)
		if err != nil && data[len(data)-1] != ']' {
			// Chrome's array form may end without its "]", as a trace
			// cut off mid-run does; try again with it closed.
			closed := append(bytes.Clone(bytes.TrimRight(data, ", \t\r\n")), ']')
			if json.Unmarshal(closed, &events) == nil {
				err = nil
			}
		}
		if err != nil {
			return nil, fmt.Errorf("malformed trace JSON: %w", err)
		}
	case '{':
		var f struct {
			TraceEvents json.RawMessage `json:"traceEvents"`
		}
		if err := json.Unmarshal(data, &f); err != nil {
			return nil, fmt.Errorf("malformed trace JSON: %w", err)
		}
		if len(f.TraceEvents) == 0 || string(f.TraceEvents) == "null" {
			return nil, errors.New(`trace JSON object has no "traceEvents"`)
		}
		if err := json.Unmarshal(f.TraceEvents, &events); err != nil {
			return nil, fmt.Errorf(`malformed trace JSON: "traceEvents" is not an array of events: %w`, err)
		}
	default:
		return nil, errors.New("malformed trace JSON: want an array of events or an object with \"traceEvents\"")
	}
	return events, nil
}
