// Command tracepng draws a Chrome trace-event JSON file (as package trace
// writes it, or any other) as a PNG timeline:
//
//	go run ./examples/tracepng -in trace.json -out trace.png [-width 1600] [-from MS -to MS] [-title TEXT]
//
// Each (pid, tid) track gets a horizontal lane, labelled "process / thread"
// from the trace's process_name and thread_name metadata events. Its complete
// events ("ph":"X") are boxes along a time axis in ms (s for ranges of 2 s
// or more, times as in the trace); a span that lies inside another is drawn
// one row lower. Each event name has its own colour, listed in a legend
// below the axis, and its name inside its box where it fits. -from and -to
// (ms) show only part of the trace; by default it is shown from its first
// span's start (or from 0, when that is near) to its last span's end. Other
// event phases are ignored.
//
// Both JSON forms of the format are read: a bare array of events, and an
// object with a "traceEvents" array. -in - reads standard input.
package main

import (
	"flag"
	"fmt"
	"image/png"
	"io"
	"os"
)

func main() {
	in := flag.String("in", "", "trace JSON file (- for standard input)")
	out := flag.String("out", "", "PNG file to write")
	var opt options
	flag.IntVar(&opt.width, "width", 1600, "image width in pixels")
	from := flag.Float64("from", 0, "start of the time shown, ms (default: the trace's start)")
	to := flag.Float64("to", 0, "end of the time shown, ms (default: the trace's end)")
	flag.StringVar(&opt.title, "title", "", "title above the timeline")
	flag.Parse()
	flag.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "from":
			opt.from = from
		case "to":
			opt.to = to
		}
	})
	if *in == "" || *out == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*in, *out, opt); err != nil {
		fmt.Fprintln(os.Stderr, "tracepng:", err)
		os.Exit(1)
	}
}

func run(inPath, outPath string, opt options) error {
	var data []byte
	var err error
	if inPath == "-" {
		data, err = io.ReadAll(os.Stdin)
	} else {
		data, err = os.ReadFile(inPath)
	}
	if err != nil {
		return err
	}
	tl, err := parse(data)
	if err != nil {
		return fmt.Errorf("%s: %w", inPath, err)
	}
	l, err := layOut(tl, opt)
	if err != nil {
		return err
	}
	f, err := os.Create(outPath)
	if err != nil {
		return err
	}
	if err := png.Encode(f, render(l)); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
