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

	"github.com/gpuc2/gpuc2/examples/internal/cli"
)

func main() {
	in, out, opt, err := parseFlags(os.Args[1:], os.Stderr)
	if err == nil {
		err = run(in, out, opt)
	}
	cli.Exit("tracepng", err) // 2 after a usage error: nothing was done
}

// parseFlags parses and checks tracepng's command line; usage and flag
// errors go to output.
func parseFlags(args []string, output io.Writer) (in, out string, opt options, err error) {
	fs := flag.NewFlagSet("tracepng", flag.ContinueOnError)
	fs.SetOutput(output)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: tracepng -in trace.json -out trace.png [flags]\n\nDraws a Chrome trace-event JSON file as a PNG timeline.\n\n")
		fs.PrintDefaults()
	}
	fs.StringVar(&in, "in", "", "trace JSON file (- for standard input)")
	fs.StringVar(&out, "out", "", "PNG file to write")
	fs.IntVar(&opt.width, "width", 1600, fmt.Sprintf("image width in pixels (%d…%d)", minWidth, maxWidth))
	from := fs.Float64("from", 0, "start of the time shown, ms (default: the trace's start)")
	to := fs.Float64("to", 0, "end of the time shown, ms (default: the trace's end)")
	fs.StringVar(&opt.title, "title", "", "title above the timeline")
	if err := cli.Parse(fs, args); err != nil {
		return "", "", opt, err
	}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "from":
			opt.from = from
		case "to":
			opt.to = to
		}
	})
	switch {
	case in == "" || out == "":
		return "", "", opt, cli.Usagef("-in and -out are required")
	case opt.width < minWidth || opt.width > maxWidth:
		return "", "", opt, cli.Usagef("-width %d: want %d to %d pixels", opt.width, minWidth, maxWidth)
	case opt.from != nil && opt.to != nil && !(*opt.from < *opt.to):
		return "", "", opt, cli.Usagef("-from %g ms must come before -to %g ms", *opt.from, *opt.to)
	}
	return in, out, opt, nil
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
