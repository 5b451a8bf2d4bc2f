// Package iocount counts the bytes written through an io.Writer, for the
// io.WriterTo implementations (a key's .params file, the constraint
// matrices' file) that must report them.
package iocount

import "io"

// Writer passes writes to W and counts the bytes W took in N.
type Writer struct {
	W io.Writer
	N int64
}

func (c *Writer) Write(p []byte) (int, error) {
	n, err := c.W.Write(p)
	c.N += int64(n)
	return n, err
}
