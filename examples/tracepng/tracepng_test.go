package main

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/trace"
)

// twoWorkers is a trace of two device workers whose upload and compute
// overlap, as the two-lock protocol means them to: worker 1 uploads while
// worker 0 computes. Times are ms after base.
//
//	worker 0: upload 0–40, compute 40–100 ⊃ ntt 42–60, msm 62–98 ⊃ msm_g1 64–80
//	worker 1: upload 30–70, (gap 70–80), compute 80–140 ⊃ ntt 82–100, msm 102–138
func twoWorkers(t *testing.T) []byte {
	t.Helper()
	tr := trace.New()
	base := time.Now()
	ms := func(v int) time.Time { return base.Add(time.Duration(v) * time.Millisecond) }
	w0 := trace.Track{Process: "h200", Thread: "worker 0"}
	w1 := trace.Track{Process: "h200", Thread: "worker 1"}
	add := func(track trace.Track, name string, from, to int) {
		tr.Add(track, name, ms(from), ms(to), "partition", 0)
	}
	add(w0, "upload", 0, 40)
	add(w0, "compute", 40, 100)
	add(w0, "ntt", 42, 60)
	add(w0, "msm", 62, 98)
	add(w0, "msm_g1", 64, 80)
	add(w1, "upload", 30, 70)
	add(w1, "compute", 80, 140)
	add(w1, "ntt", 82, 100)
	add(w1, "msm", 102, 138)
	var buf bytes.Buffer
	require.NoError(t, tr.WriteJSON(&buf))
	return buf.Bytes()
}

// renderFile runs the command's pipeline on data through files, as main
// does, and decodes the PNG it wrote.
func renderFile(t *testing.T, data []byte, opt options) image.Image {
	t.Helper()
	dir := t.TempDir()
	in, out := filepath.Join(dir, "trace.json"), filepath.Join(dir, "trace.png")
	require.NoError(t, os.WriteFile(in, data, 0o644))
	require.NoError(t, run(in, out, opt))
	f, err := os.Open(out)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	return img
}

func layoutOf(t *testing.T, data []byte, opt options) *layout {
	t.Helper()
	tl, err := parse(data)
	require.NoError(t, err)
	l, err := layOut(tl, opt)
	require.NoError(t, err)
	return l
}

func rgba(c color.Color) color.RGBA {
	return color.RGBAModel.Convert(c).(color.RGBA)
}

// boxesNamed returns lane's boxes called name.
func boxesNamed(l *layout, lane int, name string) []box {
	var out []box
	for _, b := range l.boxes {
		if b.lane == lane && b.name == name {
			out = append(out, b)
		}
	}
	return out
}

// midY is the middle row of lane's row for depth.
func midY(l *layout, lane, depth int) int {
	return l.lanes[lane].rect.Min.Y + lanePad + depth*rowHeight + rowHeight/2
}

func TestRenderTwoWorkers(t *testing.T) {
	data := twoWorkers(t)
	opt := options{width: 1200, title: "two workers"}
	img := renderFile(t, data, opt)
	l := layoutOf(t, data, opt)

	assert.Equal(t, 1200, img.Bounds().Dx(), "requested width")
	assert.Equal(t, l.height, img.Bounds().Dy())

	require.Len(t, l.lanes, 2)
	assert.Equal(t, "h200 / worker 0", l.lanes[0].label)
	assert.Equal(t, "h200 / worker 1", l.lanes[1].label)
	assert.Equal(t, 3, l.lanes[0].rows, "worker 0 nests three deep")
	assert.Equal(t, 2, l.lanes[1].rows)
	assert.Less(t, l.lanes[0].rect.Max.Y, l.lanes[1].rect.Max.Y)

	// Nesting: a span inside another goes one row lower.
	depthOf := func(lane int, name string) int {
		bs := boxesNamed(l, lane, name)
		require.Len(t, bs, 1, name)
		return bs[0].depth
	}
	for lane := range 2 {
		assert.Equal(t, 0, depthOf(lane, "upload"))
		assert.Equal(t, 0, depthOf(lane, "compute"))
		assert.Equal(t, 1, depthOf(lane, "ntt"))
		assert.Equal(t, 1, depthOf(lane, "msm"))
	}
	assert.Equal(t, 2, depthOf(0, "msm_g1"))

	// Every box is painted in its name's colour where the layout put it,
	// just inside its outline (its name is drawn further in).
	assert.NotEqual(t, l.colors["upload"], l.colors["compute"])
	for _, b := range l.boxes {
		require.GreaterOrEqual(t, b.rect.Dx(), 4, b.name)
		p := image.Pt(b.rect.Min.X+1, (b.rect.Min.Y+b.rect.Max.Y)/2)
		assert.Equal(t, l.colors[b.name], rgba(img.At(p.X, p.Y)), "%s at %v in lane %d", b.name, p, b.lane)
		assert.Equal(t, b.name, b.text, "the name fits in its box at this width")
	}

	// Worker 1's upload and worker 0's compute overlap in time: the same
	// column is upload-coloured in lane 1 and compute-coloured in lane 0.
	up1, comp0 := boxesNamed(l, 1, "upload")[0], boxesNamed(l, 0, "compute")[0]
	x := (max(up1.rect.Min.X, comp0.rect.Min.X) + min(up1.rect.Max.X, comp0.rect.Max.X)) / 2
	assert.Greater(t, x, comp0.rect.Min.X+1)
	assert.Equal(t, l.colors["compute"], rgba(img.At(x, midY(l, 0, 0))))
	assert.Equal(t, l.colors["upload"], rgba(img.At(x, midY(l, 1, 0))))

	// Worker 1 idles from 70 to 80 ms: paper between its upload and compute.
	comp1 := boxesNamed(l, 1, "compute")[0]
	gap := (up1.rect.Max.X + comp1.rect.Min.X) / 2
	assert.Greater(t, comp1.rect.Min.X-up1.rect.Max.X, 10, "a visible gap")
	assert.Equal(t, background, rgba(img.At(gap, midY(l, 1, 0))))
	// and nothing below the uploads, which have no children.
	assert.Equal(t, background, rgba(img.At((up1.rect.Min.X+up1.rect.Max.X)/2, midY(l, 1, 1))))

	// The legend names every span name once, in its colour.
	var names []string
	for _, it := range l.legend {
		names = append(names, it.name)
		c := it.swatch.Min.Add(image.Pt(swatchSize/2, swatchSize/2))
		assert.Equal(t, it.color, rgba(img.At(c.X, c.Y)), it.name)
	}
	assert.Equal(t, []string{"compute", "msm", "msm_g1", "ntt", "upload"}, names)

	// The axis runs 0 to about 140 ms (ts counts from the tracer's start).
	require.NotEmpty(t, l.ticks)
	for _, tk := range l.ticks {
		assert.True(t, strings.HasSuffix(tk.label, " ms"), tk.label)
		assert.Equal(t, axisInk, rgba(img.At(tk.x, l.axisY+2)), tk.label)
	}
}

func TestWidthAndWindow(t *testing.T) {
	data := twoWorkers(t)
	tl, err := parse(data)
	require.NoError(t, err)
	start := tl.start / 1e3 // ms
	img := renderFile(t, data, options{width: 640})
	assert.Equal(t, 640, img.Bounds().Dx())

	// 45–95 ms after the start: worker 0's compute fills the time shown;
	// worker 0's upload and worker 1's upload (ends at 70) are clipped or
	// kept, worker 1's compute (from 80) is cut at 95.
	from, to := start+45, start+95
	l := layoutOf(t, data, options{width: 800, from: &from, to: &to})
	comp0 := boxesNamed(l, 0, "compute")[0]
	assert.Equal(t, l.plot.Min.X, comp0.rect.Min.X)
	assert.Equal(t, l.plot.Max.X, comp0.rect.Max.X)
	assert.Empty(t, boxesNamed(l, 0, "upload"), "worker 0's upload ends at 40 ms")
	assert.Len(t, boxesNamed(l, 1, "upload"), 1)
	for _, b := range l.boxes {
		assert.True(t, b.rect.In(l.plot), "%s %v inside %v", b.name, b.rect, l.plot)
	}

	late := start + 1000
	tl, err = parse(data)
	require.NoError(t, err)
	_, err = layOut(tl, options{width: 800, from: &late})
	assert.ErrorContains(t, err, "-from")
	later := late + 10
	_, err = layOut(tl, options{width: 800, from: &late, to: &later})
	assert.ErrorContains(t, err, "no complete events between")
	_, err = layOut(tl, options{width: 10})
	assert.ErrorContains(t, err, "width")
}

func TestBareArray(t *testing.T) {
	var f trace.File
	require.NoError(t, json.Unmarshal(twoWorkers(t), &f))
	bare, err := json.Marshal(f.TraceEvents)
	require.NoError(t, err)
	require.Equal(t, byte('['), bare[0])

	a, err := parse(bare)
	require.NoError(t, err)
	b, err := parse(twoWorkers(t))
	require.NoError(t, err)
	require.Len(t, a.tracks, 2)
	for i := range a.tracks {
		assert.Equal(t, b.tracks[i].label(), a.tracks[i].label())
		assert.Len(t, a.tracks[i].spans, len(b.tracks[i].spans))
	}

	// Chrome's array form may lack its closing bracket.
	cut := bytes.TrimSuffix(bytes.TrimSpace(bare), []byte("]"))
	c, err := parse(append(cut, ','))
	require.NoError(t, err)
	assert.Len(t, c.tracks, 2)
}

func TestUnnamedTracksAndStringIDs(t *testing.T) {
	tl, err := parse([]byte(`[
		{"name":"b","ph":"X","ts":5,"dur":1,"pid":"gpu","tid":2},
		{"name":"a","ph":"X","ts":0,"dur":10,"pid":1,"tid":1},
		{"name":"B","ph":"B","ts":0,"pid":1,"tid":1}
	]`))
	require.NoError(t, err)
	require.Len(t, tl.tracks, 2)
	assert.Equal(t, "pid 1 / tid 1", tl.tracks[0].label(), "numbers before strings")
	assert.Equal(t, "pid gpu / tid 2", tl.tracks[1].label())
	assert.Equal(t, 0.0, tl.start)
	assert.Equal(t, 10.0, tl.end)
}

func TestErrors(t *testing.T) {
	for _, c := range []struct{ name, json, want string }{
		{"empty", "  ", "empty trace"},
		{"not JSON", "hello", "malformed trace JSON"},
		{"cut object", `{"traceEvents":[{"name":"a"`, "malformed trace JSON"},
		{"bad array", `[{"name":"a"}, }`, "malformed trace JSON"},
		{"no traceEvents", `{"events":[]}`, `no "traceEvents"`},
		{"traceEvents not an array", `{"traceEvents":{"a":1}}`, "not an array"},
		{"event not an object", `[1]`, "event 0"},
		{"name not a string", `[{"name":1,"ph":"X","ts":0,"dur":1}]`, "event 0"},
		{"pid a bool", `[{"name":"a","ph":"X","ts":0,"dur":1,"pid":true}]`, "event 0"},
		{"no ts", `[{"name":"a","ph":"X","dur":1}]`, `event 0 ("a"): complete event without "ts"`},
		{"negative dur", `[{"name":"a","ph":"X","ts":0,"dur":-1}]`, "negative duration"},
		{"huge ts", `[{"name":"a","ph":"X","ts":1e308,"dur":1e308}]`, "out of range"},
		{"no events", `{"traceEvents":[]}`, `no complete events ("ph":"X")`},
		{"only metadata", `{"traceEvents":[
			{"name":"process_name","ph":"M","pid":1,"args":{"name":"cpu"}},
			{"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":"main"}},
			{"name":"s","ph":"B","ts":0,"pid":1,"tid":1}]}`, `no complete events ("ph":"X") among the trace's 3 events`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := parse([]byte(c.json))
			assert.ErrorContains(t, err, c.want)
		})
	}

	// The command names the file in its error.
	dir := t.TempDir()
	in := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(in, []byte("{"), 0o644))
	err := run(in, filepath.Join(dir, "out.png"), options{width: 800})
	assert.ErrorContains(t, err, "bad.json: malformed trace JSON")
	assert.NoFileExists(t, filepath.Join(dir, "out.png"))
}

func TestDepths(t *testing.T) {
	spans := []span{
		{"a", 0, 100},
		{"b", 10, 50}, // in a
		{"c", 20, 30}, // in b
		{"d", 40, 70}, // in a, overlaps b's end: below b
		{"e", 60, 80}, // in a, after b: b's row is free
		{"f", 100, 110},
		{"g", 105, 120}, // overlaps f only partly
	}
	assert.Equal(t, []int{0, 1, 2, 2, 1, 0, 1}, depths(spans))
}

func TestTicks(t *testing.T) {
	for _, c := range []struct {
		from, to float64 // µs
		unit     string
	}{
		{0, 140e3, " ms"}, {0, 0.5e3, " ms"}, {1e6, 1.001e6, " ms"}, {0, 90e6, " s"}, {0, 3e6, " s"},
	} {
		l := &layout{width: 1000, from: c.from, to: c.to, plot: image.Rect(200, 0, 988, 10)}
		require.NoError(t, l.placeTicks())
		require.GreaterOrEqual(t, len(l.ticks), 2, "%v", c)
		for i, tk := range l.ticks {
			assert.True(t, strings.HasSuffix(tk.label, c.unit), tk.label)
			assert.GreaterOrEqual(t, tk.x, l.plot.Min.X)
			assert.LessOrEqual(t, tk.x, l.plot.Max.X)
			if i > 0 {
				prev := l.ticks[i-1]
				assert.Greater(t, tk.labelPos.X, prev.labelPos.X+textWidth(prev.label), "labels apart: %v", c)
			}
		}
	}
}

func TestFont(t *testing.T) {
	for r := rune(' '); r <= '~'; r++ {
		art, ok := fontArt[r]
		require.True(t, ok, "glyph for %q", r)
		rows := strings.Split(art, "|")
		if strings.ContainsRune("gjpqy", r) {
			require.Len(t, rows, glyphHeight, "%q has a descender", r)
		} else {
			require.Len(t, rows, glyphHeight-1, "%q", r)
		}
		for _, row := range rows {
			require.Len(t, row, glyphWidth, "%q", r)
			require.Empty(t, strings.Trim(row, ".#"), "%q", r)
		}
		if r != ' ' {
			assert.NotEqual(t, bitmap{}, glyph(r), "%q has ink", r)
		}
	}
	assert.Len(t, fontArt, '~'-' '+1)
	assert.Equal(t, glyph('?'), glyph('µ'), "unknown runes draw as '?'")
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"traceEvents":[{"name":"a","ph":"X","ts":0,"dur":5,"pid":1,"tid":1}]}`))
	f.Add([]byte(`[{"name":"a","ph":"X","ts":1,"dur":5,"pid":"p","tid":1},{"name":"b","ph":"X","ts":2,"dur":1}`))
	f.Add([]byte(`[{"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":"w"}},{"name":"x","ph":"X","ts":-3,"dur":0,"pid":1,"tid":1}]`))
	f.Add([]byte(`{"traceEvents":null}`))
	f.Add([]byte(`[1e308, {"ph":"X","ts":1e-300}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tl, err := parse(data)
		if err != nil {
			return
		}
		if len(tl.tracks) == 0 || !(tl.start <= tl.end) {
			t.Fatalf("parse accepted a trace with no spans or end before start: %+v", tl)
		}
		l, err := layOut(tl, options{width: minWidth})
		if err != nil || l.width*l.height > 4<<20 {
			return
		}
		render(l)
	})
}
