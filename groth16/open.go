package groth16

import (
	"context"
	"fmt"
	"io/fs"
	"os"
)

// openRegular opens path for reading and returns it with its fstat, or an
// error: a path that is not a regular file (a FIFO, a device, a directory)
// is refused at once, wrapping ErrMalformedKey and naming the file type.
// The open runs in its own goroutine so that a hung file system cannot
// outlast ctx; a file it opens after ctx ended is closed there.
func openRegular(ctx context.Context, path string) (*os.File, fs.FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	type opened struct {
		f   *os.File
		st  fs.FileInfo
		err error
	}
	done := make(chan opened, 1)
	go func() {
		f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
		if err != nil {
			done <- opened{err: err}
			return
		}
		st, err := f.Stat()
		if err == nil && !st.Mode().IsRegular() {
			err = fmt.Errorf("%s is a %s, not a regular file: %w", path, fileType(st.Mode()), ErrMalformedKey)
		}
		if err != nil {
			f.Close()
			done <- opened{err: err}
			return
		}
		done <- opened{f: f, st: st}
	}()
	select {
	case o := <-done:
		return o.f, o.st, o.err
	case <-ctx.Done():
		go func() {
			if o := <-done; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, nil, ctx.Err()
	}
}

func fileType(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	case m.IsDir():
		return "directory"
	}
	return "special file"
}
