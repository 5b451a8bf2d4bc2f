package main

import (
	"bytes"
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/examples/internal/cli"
)

// The command line is checked before the trace is read: -in and -out are
// required, the width and the time range must make sense, stray arguments
// are refused — each a usage error (exit 2); -h prints the usage.
func TestFlags(t *testing.T) {
	in, out, opt, err := parseFlags([]string{"-in", "t.json", "-out", "t.png", "-from", "0", "-to", "5", "-title", "x"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "t.json", in)
	assert.Equal(t, "t.png", out)
	require.NotNil(t, opt.from)
	require.NotNil(t, opt.to)
	assert.Equal(t, 0.0, *opt.from)
	assert.Equal(t, 5.0, *opt.to)
	assert.Equal(t, 1600, opt.width)
	_, _, opt, err = parseFlags([]string{"-in", "-", "-out", "t.png"}, io.Discard)
	require.NoError(t, err)
	assert.Nil(t, opt.from, "not given: the trace's start")

	for _, args := range [][]string{
		{},
		{"-in", "t.json"},
		{"-out", "t.png"},
		{"-in", "t.json", "-out", "t.png", "-width", "10"},
		{"-in", "t.json", "-out", "t.png", "-from", "5", "-to", "5"},
		{"-in", "t.json", "-out", "t.png", "extra"},
		{"-in", "t.json", "-out", "t.png", "-bogus"},
	} {
		_, _, _, err := parseFlags(args, io.Discard)
		assert.Equal(t, 2, cli.Code(err), "%q: %v", args, err)
	}
	var usage bytes.Buffer
	_, _, _, err = parseFlags([]string{"-h"}, &usage)
	assert.ErrorIs(t, err, flag.ErrHelp)
	assert.Contains(t, usage.String(), "usage: tracepng")
}
