package cli_test

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/examples/internal/cli"
	"github.com/gpuc2/gpuc2/native"
)

func TestParseAndCode(t *testing.T) {
	newFS := func(out io.Writer) *flag.FlagSet {
		fs := flag.NewFlagSet("cmd", flag.ContinueOnError)
		fs.SetOutput(out)
		fs.Int("n", 1, "a number")
		return fs
	}
	assert.NoError(t, cli.Parse(newFS(io.Discard), []string{"-n", "2"}))
	assert.Zero(t, cli.Code(nil))

	var out bytes.Buffer
	err := cli.Parse(newFS(&out), []string{"-h"})
	assert.ErrorIs(t, err, flag.ErrHelp)
	assert.Zero(t, cli.Code(err), "-h exits 0")
	assert.Contains(t, out.String(), "-n")

	for _, args := range [][]string{{"x"}, {"-n", "2", "x"}, {"-m"}, {"-n", "two"}} {
		err := cli.Parse(newFS(io.Discard), args)
		assert.True(t, cli.IsUsage(err), "%q: %v", args, err)
		assert.Equal(t, 2, cli.Code(err), "%q", args)
	}
	assert.Equal(t, 2, cli.Code(cli.Usagef("bad")))
	assert.Equal(t, 1, cli.Code(errors.New("failed")))
}

func TestBackend(t *testing.T) {
	b, why, err := cli.Backend("backend", "cpu")
	require.NoError(t, err)
	assert.Equal(t, "cpu", b)
	assert.Equal(t, "-backend cpu", why)

	_, _, err = cli.Backend("backend", "gpu")
	assert.Equal(t, 2, cli.Code(err))
	assert.ErrorContains(t, err, `-backend "gpu": want auto, cpu or cuda`)

	b, why, err = cli.Backend("backend", "auto")
	require.NoError(t, err)
	if native.Available() {
		assert.Equal(t, "cuda", b)
		assert.Contains(t, why, native.LibraryName+" from ")
		return
	}
	assert.Equal(t, "cpu", b)
	assert.Contains(t, why, "-backend auto: no GPU: "+native.Load().Error(), "why the CPU: where the library was looked for")

	_, _, err = cli.Backend("backend", "cuda")
	assert.Equal(t, 2, cli.Code(err))
	assert.ErrorIs(t, err, native.ErrNotAvailable)
	assert.ErrorContains(t, err, "make -C native")
	assert.ErrorContains(t, err, native.EnvLibrary)
	assert.Equal(t, 2, cli.Code(cli.Devices("devices", 0)), "no GPU to name")
	assert.NoError(t, cli.Devices("devices"), "none named")
}
