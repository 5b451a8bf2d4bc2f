package main

import (
	"image"
	"image/color"
	"image/draw"
)

var (
	background = color.RGBA{0xff, 0xff, 0xff, 0xff}
	ink        = color.RGBA{0x20, 0x20, 0x20, 0xff} // text
	axisInk    = color.RGBA{0x70, 0x70, 0x70, 0xff}
	rule       = color.RGBA{0xdd, 0xdd, 0xdd, 0xff} // lines between lanes
)

// render paints the picture l describes.
func render(l *layout) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, l.width, l.height))
	fill(img, img.Bounds(), background)
	if l.title != "" {
		drawText(img, l.titlePos, l.title, ink)
	}

	for _, ln := range l.lanes {
		drawText(img, ln.labelPos, ln.label, ink)
		fill(img, image.Rect(0, ln.rect.Max.Y-1, l.width, ln.rect.Max.Y), rule)
	}
	fill(img, image.Rect(l.plot.Min.X-1, l.plot.Min.Y, l.plot.Min.X, l.plot.Max.Y), rule)

	for _, b := range l.boxes {
		fill(img, b.rect, b.color)
		if b.rect.Dx() >= 4 {
			outline(img, b.rect, darker(b.color))
		}
		if b.text != "" {
			drawText(img, b.textPos, b.text, ink)
		}
	}

	fill(img, image.Rect(l.plot.Min.X, l.axisY, l.plot.Max.X, l.axisY+1), axisInk)
	for _, t := range l.ticks {
		fill(img, image.Rect(t.x, l.axisY, t.x+1, l.axisY+5), axisInk)
		drawText(img, t.labelPos, t.label, ink)
	}

	for _, it := range l.legend {
		fill(img, it.swatch, it.color)
		outline(img, it.swatch, darker(it.color))
		drawText(img, it.textPos, it.text, ink)
	}
	return img
}

func fill(img draw.Image, r image.Rectangle, c color.RGBA) {
	draw.Draw(img, r, &image.Uniform{c}, image.Point{}, draw.Src)
}

// outline draws r's one-pixel border.
func outline(img draw.Image, r image.Rectangle, c color.RGBA) {
	fill(img, image.Rect(r.Min.X, r.Min.Y, r.Max.X, r.Min.Y+1), c)
	fill(img, image.Rect(r.Min.X, r.Max.Y-1, r.Max.X, r.Max.Y), c)
	fill(img, image.Rect(r.Min.X, r.Min.Y, r.Min.X+1, r.Max.Y), c)
	fill(img, image.Rect(r.Max.X-1, r.Min.Y, r.Max.X, r.Max.Y), c)
}

func darker(c color.RGBA) color.RGBA {
	return color.RGBA{c.R / 3 * 2, c.G / 3 * 2, c.B / 3 * 2, c.A}
}

// drawText writes s with its top-left corner at pt in the 5x7 font, each
// font cell textScale pixels square.
func drawText(img draw.Image, pt image.Point, s string, c color.RGBA) {
	x := pt.X
	for _, r := range s {
		g := glyph(r)
		for row, bits := range g {
			for col := range glyphWidth {
				if bits&(1<<(glyphWidth-1-col)) != 0 {
					px := image.Pt(x+col*textScale, pt.Y+row*textScale)
					fill(img, image.Rectangle{px, px.Add(image.Pt(textScale, textScale))}, c)
				}
			}
		}
		x += charAdvance
	}
}
