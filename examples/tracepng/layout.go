package main

import (
	"errors"
	"fmt"
	"hash/fnv"
	"image"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Sizes in pixels. Text is the 5x7 font drawn at textScale.
const (
	textScale   = 2
	charAdvance = (glyphWidth + 1) * textScale // one glyph and its gap
	textHeight  = glyphHeight * textScale
	margin      = 12
	rowHeight   = textHeight + 6 // one depth of spans within a lane
	boxInset    = 1              // paper left above and below each span's box
	lanePad     = 4              // paper above and below a lane's rows
	swatchSize  = textHeight
	minWidth    = 320
	maxWidth    = 16384
	maxHeight   = 16384
)

// options are the picture's settings from the command line.
type options struct {
	width    int
	from, to *float64 // ms; nil: where the trace starts, ends
	title    string
}

// layout is the whole picture measured out: draw only paints what it says.
type layout struct {
	width, height int
	title         string
	titlePos      image.Point
	from, to      float64         // µs: the time shown
	plot          image.Rectangle // the lanes' time area: x is time
	lanes         []lane
	boxes         []box
	axisY         int
	ticks         []tick
	legend        []legendItem
	colors        map[string]color.RGBA
}

// lane is one track's band across the picture.
type lane struct {
	label    string
	labelPos image.Point
	rect     image.Rectangle
	rows     int // depths of nesting shown
}

// box is one span as drawn, with as much of its name as fits inside.
type box struct {
	name        string
	rect        image.Rectangle
	color       color.RGBA
	lane, depth int
	start, end  float64 // µs, clipped to the time shown
	text        string
	textPos     image.Point
}

type tick struct {
	x        int
	label    string
	labelPos image.Point
}

type legendItem struct {
	name    string
	text    string // the name, shortened if it would not fit the width
	color   color.RGBA
	swatch  image.Rectangle
	textPos image.Point
}

// x maps a time in µs to its horizontal position.
func (l *layout) x(t float64) float64 {
	return float64(l.plot.Min.X) + (t-l.from)/(l.to-l.from)*float64(l.plot.Dx())
}

// layOut measures the picture of tl.
func layOut(tl *timeline, opt options) (*layout, error) {
	if opt.width < minWidth || opt.width > maxWidth {
		return nil, fmt.Errorf("width %d: want %d to %d pixels", opt.width, minWidth, maxWidth)
	}
	l := &layout{width: opt.width, title: opt.title, from: tl.start, to: tl.end}
	if tl.start > 0 && tl.start < tl.end/20 {
		l.from = 0 // a trace that starts near its zero is shown from it
	}
	if opt.from != nil {
		l.from = *opt.from * 1e3
	}
	if opt.to != nil {
		l.to = *opt.to * 1e3
	}
	if opt.from != nil || opt.to != nil {
		if !(l.from < l.to) {
			return nil, fmt.Errorf("-from %g ms must come before -to %g ms", l.from/1e3, l.to/1e3)
		}
	} else if l.to == l.from {
		l.to = l.from + 1 // spans of no length: show them over 1 µs
	}
	if span := l.to - l.from; math.IsInf(span, 0) || math.IsNaN(span) || span <= 0 {
		return nil, fmt.Errorf("cannot show a time range of %g to %g µs", l.from, l.to)
	}

	// Label column and time area.
	maxLabel := max(4, opt.width/3/charAdvance)
	labelW := 0
	for _, t := range tl.tracks {
		labelW = max(labelW, textWidth(truncate(t.label(), maxLabel)))
	}
	l.plot.Min.X = margin + labelW + margin
	l.plot.Max.X = opt.width - margin

	y := margin
	if opt.title != "" {
		l.title = truncate(opt.title, (opt.width-2*margin)/charAdvance)
		l.titlePos = image.Pt(margin, y)
		y += textHeight + 2*margin
	}

	// Lanes, and the spans in them that fall in the time shown.
	l.plot.Min.Y = y
	var names, shownNames []string
	for _, t := range tl.tracks {
		depth := depths(t.spans)
		for _, s := range t.spans {
			names = append(names, s.name)
		}
		var shown []int
		rows := 1
		for j, s := range t.spans {
			if s.end < l.from || s.start > l.to {
				continue
			}
			shown = append(shown, j)
			rows = max(rows, depth[j]+1)
		}
		if len(shown) == 0 && (opt.from != nil || opt.to != nil) {
			continue // a window hides the tracks idle in it
		}
		ln := lane{label: truncate(t.label(), maxLabel), rows: rows}
		ln.rect = image.Rect(0, y, opt.width, y+2*lanePad+rows*rowHeight)
		ln.labelPos = image.Pt(margin, y+lanePad+(rowHeight-textHeight)/2)
		l.lanes = append(l.lanes, ln)
		for _, j := range shown {
			s := t.spans[j]
			l.boxes = append(l.boxes, box{
				name: s.name, lane: len(l.lanes) - 1, depth: depth[j],
				start: max(s.start, l.from), end: min(s.end, l.to),
			})
			shownNames = append(shownNames, s.name)
		}
		y = ln.rect.Max.Y
		if y > maxHeight {
			return nil, fmt.Errorf("%d tracks or their nesting do not fit in %d pixels' height", len(tl.tracks), maxHeight)
		}
	}
	l.plot.Max.Y = y
	if len(l.boxes) == 0 {
		return nil, fmt.Errorf("no complete events between %g and %g ms", l.from/1e3, l.to/1e3)
	}
	// Colours go by every name in the trace, so that a window on it keeps
	// them; the legend lists the names shown.
	slices.Sort(names)
	l.colors = colorsFor(slices.Compact(names))
	slices.Sort(shownNames)
	shownNames = slices.Compact(shownNames)

	for i := range l.boxes {
		l.placeBox(&l.boxes[i])
	}

	// Time axis below the lanes.
	l.axisY = y + 4
	if err := l.placeTicks(); err != nil {
		return nil, err
	}
	y = l.axisY + 8 + textHeight + 2*margin

	// Legend: a swatch and a name per span name, wrapped to the width.
	x := margin
	for _, name := range shownNames {
		text := truncate(name, (opt.width-2*margin-swatchSize-6)/charAdvance)
		w := swatchSize + 6 + textWidth(text)
		if x > margin && x+w > opt.width-margin {
			x, y = margin, y+rowHeight
		}
		l.legend = append(l.legend, legendItem{
			name: name, text: text, color: l.colors[name],
			swatch:  image.Rect(x, y, x+swatchSize, y+swatchSize),
			textPos: image.Pt(x+swatchSize+6, y),
		})
		x += w + 3*charAdvance
	}
	l.height = y + textHeight + margin
	if l.height > maxHeight {
		return nil, fmt.Errorf("the picture would be %d pixels high, over %d", l.height, maxHeight)
	}
	return l, nil
}

// placeBox puts b on its lane's row for its depth, and fits its name inside.
func (l *layout) placeBox(b *box) {
	x0 := int(math.Round(l.x(b.start)))
	x1 := max(int(math.Round(l.x(b.end))), x0+1) // even an instant shows
	x0 = max(x0, l.plot.Min.X)
	x1 = min(x1, l.plot.Max.X)
	top := l.lanes[b.lane].rect.Min.Y + lanePad + b.depth*rowHeight
	b.rect = image.Rect(x0, top+boxInset, x1, top+rowHeight-boxInset)
	b.color = l.colors[b.name]

	// The name starts 3 px in, clear of the outline and a pixel of fill.
	fit := (b.rect.Dx() - 6 + textScale) / charAdvance
	switch n := utf8.RuneCountInString(b.name); {
	case n <= fit:
		b.text = b.name
	case fit >= 3:
		b.text = truncate(b.name, fit)
	}
	b.textPos = image.Pt(b.rect.Min.X+3, b.rect.Min.Y+(b.rect.Dy()-textHeight)/2)
}

// depths gives each span (sorted by start, the longer first on ties) its row
// in the lane: one below the innermost span that fully contains it, and
// further down while that row is taken by a span it only partly overlaps.
func depths(spans []span) []int {
	const eps = 1e-3 // µs: slack for rounding in ts + dur
	depth := make([]int, len(spans))
	var open []int       // the spans enclosing the current one, innermost last
	var rowEnd []float64 // per row, the end of the last span placed there
	for i, s := range spans {
		for len(open) > 0 && spans[open[len(open)-1]].end+eps < s.end {
			open = open[:len(open)-1]
		}
		d := 0
		if len(open) > 0 {
			d = depth[open[len(open)-1]] + 1
		}
		for d < len(rowEnd) && rowEnd[d] > s.start+eps {
			d++
		}
		if d == len(rowEnd) {
			rowEnd = append(rowEnd, s.end)
		}
		rowEnd[d] = max(rowEnd[d], s.end)
		depth[i] = d
		open = append(open, i)
	}
	return depth
}

// placeTicks chooses a 1-2-5 step for the time axis whose labels do not
// crowd each other; times are in ms, or in s for ranges of 2 s or more.
func (l *layout) placeTicks() error {
	unit, perUnit := "ms", 1e3 // µs per unit
	if l.to-l.from >= 2e6 {
		unit, perUnit = "s", 1e6
	}
	lo, hi := l.from/perUnit, l.to/perUnit
	step := niceStep((hi - lo) / float64(max(1, l.plot.Dx()/100)))
	for range 100 {
		ticks := l.ticksEvery(step, lo, hi, unit, perUnit)
		apart := true // two characters' space between labels
		for i := 1; i < len(ticks); i++ {
			prev := ticks[i-1].labelPos.X + textWidth(ticks[i-1].label)
			apart = apart && ticks[i].labelPos.X >= prev+2*charAdvance
		}
		if apart {
			l.ticks = ticks
			return nil
		}
		step = niceStep(step * 1.5) // 1 → 2 → 5 → 10
	}
	return errors.New("no readable time axis for this range")
}

func (l *layout) ticksEvery(step, lo, hi float64, unit string, perUnit float64) []tick {
	decimals := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	first := math.Ceil(lo/step-1e-9) * step
	var ticks []tick
	for k := 0; k <= 1000; k++ {
		v := first + float64(k)*step
		if v > hi+step*1e-9 {
			break
		}
		if math.Abs(v) < step*1e-9 {
			v = 0 // not "-0"
		}
		label := strconv.FormatFloat(v, 'f', decimals, 64)
		if len(label) > 12 {
			label = strconv.FormatFloat(v, 'g', 6, 64)
		}
		label += " " + unit
		x := int(math.Round(l.x(v * perUnit)))
		w := textWidth(label)
		lx := min(max(x-w/2, margin), l.width-margin-w)
		ticks = append(ticks, tick{x: x, label: label, labelPos: image.Pt(lx, l.axisY+8)})
	}
	return ticks
}

// niceStep is the least of 1, 2, 5 times a power of ten that is at least x.
func niceStep(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 0) {
		return 1
	}
	base := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5} {
		if m*base >= x*(1-1e-9) {
			return m * base
		}
	}
	return 10 * base
}

// palette holds light colours that black text reads on and that tell apart.
var palette = []color.RGBA{
	{0x7f, 0xb3, 0xe0, 0xff}, // blue
	{0xf4, 0xa2, 0x61, 0xff}, // orange
	{0x8f, 0xcb, 0x72, 0xff}, // green
	{0xe9, 0xc4, 0x6a, 0xff}, // gold
	{0xc3, 0x9b, 0xd3, 0xff}, // purple
	{0xf0, 0x80, 0x80, 0xff}, // coral
	{0x6f, 0xd1, 0xc4, 0xff}, // teal
	{0xf5, 0xa3, 0xc7, 0xff}, // pink
	{0xb8, 0xa4, 0x8a, 0xff}, // khaki
	{0xa0, 0xa8, 0xf0, 0xff}, // periwinkle
	{0xd4, 0xe1, 0x57, 0xff}, // lime
	{0xbc, 0xbc, 0xbc, 0xff}, // grey
}

// colorsFor gives each name the palette colour its FNV hash picks, so a
// name keeps its colour from one picture to the next; while the palette
// lasts, a name whose colour is taken (names in sorted order) moves on to
// the next free one so that no two names in a picture share a colour.
func colorsFor(names []string) map[string]color.RGBA {
	colors := make(map[string]color.RGBA, len(names))
	taken := make([]bool, len(palette))
	for i, name := range names {
		h := fnv.New32a()
		h.Write([]byte(name))
		k := int(h.Sum32() % uint32(len(palette)))
		for i < len(palette) && taken[k] {
			k = (k + 1) % len(palette)
		}
		taken[k] = true
		colors[name] = palette[k]
	}
	return colors
}

// textWidth is s's width in pixels when drawn.
func textWidth(s string) int {
	n := utf8.RuneCountInString(s)
	if n == 0 {
		return 0
	}
	return n*charAdvance - textScale
}

// truncate shortens s to at most n runes ending in '.', if it is longer.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	if n < 1 {
		return ""
	}
	return strings.TrimRight(string(r[:n-1]), " ") + "."
}
