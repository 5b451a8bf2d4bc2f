package main

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// display writes c2prove's output and its progress. On a terminal the
// progress is one status line at the bottom, redrawn in place every
// second and at each change; elsewhere (a pipe, a file) each change is a
// plain line of its own, without \r or escape codes, and nothing is
// redrawn. All output goes through it (printf, and stderr for the logger
// and errors), so that no line lands in the middle of the status line.
type display struct {
	out, err io.Writer
	tty      bool
	width    int // the terminal's columns: the status line is cut to fit

	mu     sync.Mutex
	status func() string // the status line's text; nil: none
	drawn  bool          // the status line is on the screen
	stop   chan struct{} // closed to stop the redraws
	done   chan struct{} // closed when they stopped
}

// refresh is how often a terminal's status line is redrawn.
const refresh = time.Second

// newDisplay writes to out and err; with tty, out is a terminal of width
// columns.
func newDisplay(out, err io.Writer, tty bool, width int) *display {
	return &display{out: out, err: err, tty: tty, width: width}
}

// printf prints a line of output (a newline is added) above the status line.
func (d *display) printf(format string, args ...any) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.clear()
	fmt.Fprintf(d.out, format+"\n", args...)
	d.draw()
}

// stderr is a writer for the logger and errors: it clears the status line
// first, so what it writes starts on a line of its own.
func (d *display) stderr() io.Writer { return stderrWriter{d} }

type stderrWriter struct{ d *display }

func (w stderrWriter) Write(p []byte) (int, error) {
	w.d.mu.Lock()
	defer w.d.mu.Unlock()
	w.d.clear()
	n, err := w.d.err.Write(p)
	w.d.draw()
	return n, err
}

// begin shows status until end: on a terminal it is redrawn every second
// (it should show an elapsed time) and at each change; elsewhere nothing
// is shown but the changes' lines.
func (d *display) begin(status func() string) {
	d.end()
	if !d.tty {
		return
	}
	d.mu.Lock()
	d.status = status
	d.stop, d.done = make(chan struct{}), make(chan struct{})
	stop, done := d.stop, d.done
	d.draw()
	d.mu.Unlock()
	go func() {
		defer close(done)
		t := time.NewTicker(refresh)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				d.mu.Lock()
				d.draw()
				d.mu.Unlock()
			}
		}
	}()
}

// change reports a change of the status: on a terminal the status line is
// redrawn, elsewhere line is printed.
func (d *display) change(line string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.tty {
		fmt.Fprintln(d.out, line)
		return
	}
	d.draw()
}

// end stops the status line and erases it. It may be called more than once.
func (d *display) end() {
	d.mu.Lock()
	stop, done := d.stop, d.done
	d.stop, d.done = nil, nil
	d.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.clear()
	d.status = nil
}

// draw redraws the status line (d.mu held).
func (d *display) draw() {
	if !d.tty || d.status == nil {
		return
	}
	line := []rune(d.status())
	if len(line) >= d.width { // one column spare: a full line wraps on some terminals
		line = append(line[:max(d.width-2, 0)], '…')
	}
	fmt.Fprint(d.out, "\r\033[K"+string(line))
	d.drawn = true
}

// clear erases the status line, if drawn (d.mu held): the cursor is then at
// the start of an empty line.
func (d *display) clear() {
	if d.drawn {
		fmt.Fprint(d.out, "\r\033[K")
		d.drawn = false
	}
}
