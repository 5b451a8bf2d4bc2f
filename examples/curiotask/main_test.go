package main

import (
	"bytes"
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gpuc2/gpuc2/examples/internal/cli"
)

// -h prints the usage (and curiotask then exits 0 without proving);
// arguments and flags are refused as usage errors (exit 2).
func TestFlags(t *testing.T) {
	var usage bytes.Buffer
	err := parseFlags([]string{"-h"}, &usage)
	assert.ErrorIs(t, err, flag.ErrHelp)
	assert.Zero(t, cli.Code(err))
	assert.Contains(t, usage.String(), "usage: curiotask")
	assert.NoError(t, parseFlags(nil, io.Discard))
	for _, args := range [][]string{{"extra"}, {"-backend", "cuda"}, {"--", "x"}} {
		err := parseFlags(args, io.Discard)
		assert.Equal(t, 2, cli.Code(err), "%q: %v", args, err)
	}
}
