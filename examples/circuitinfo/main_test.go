package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/examples/internal/cli"
	"github.com/gpuc2/gpuc2/synth/stacked"
)

// The sector size is checked before any synthesis; bad flags and stray
// arguments are usage errors (exit 2); -h prints the usage.
func TestFlags(t *testing.T) {
	o, err := parseFlags([]string{"-sector-size", "2048", "-check", "-seed", "3", "-q"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, stacked.Params2KiB, o.params)
	assert.True(t, o.check && o.quiet)
	assert.Equal(t, uint64(3), o.seed)
	for _, args := range [][]string{{"-sector-size", "3KiB"}, {"-sector-size", "big"}, {"extra"}, {"-bogus"}, {"-seed", "-1"}} {
		_, err := parseFlags(args, io.Discard)
		assert.Equal(t, 2, cli.Code(err), "%q: %v", args, err)
	}
	o, err = parseFlags([]string{"-update", "-sector-size", "32GiB"}, io.Discard)
	require.NoError(t, err)
	assert.True(t, o.update)
	assert.Equal(t, 16, o.uparams.Partitions)
	_, err = parseFlags([]string{"-update", "-sector-size", "64KiB"}, io.Discard)
	assert.Equal(t, 2, cli.Code(err), "64 KiB is no update size")
	var usage bytes.Buffer
	_, err = parseFlags([]string{"-h"}, &usage)
	assert.ErrorIs(t, err, flag.ErrHelp)
	assert.Contains(t, usage.String(), "-sector-size")
}

// -update prints the update circuit's shape: at 2 KiB tests/circuit.rs'
// 1,705,039 constraints, 4 public inputs and ONE, domain 2^21; -check
// satisfies it with a synthetic update.
func TestRunUpdate(t *testing.T) {
	o, err := parseFlags([]string{"-update", "-sector-size", "2KiB", "-check", "-q"}, io.Discard)
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), o, &out))
	assert.Contains(t, out.String(), "constraints=1705039 inputs=5 ")
	assert.Contains(t, out.String(), " domain=2^21\n")
}
