package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/examples/internal/cli"
	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/testkey"
	"github.com/gpuc2/gpuc2/native"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/porep"
	"github.com/gpuc2/gpuc2/synth/stacked"
	"github.com/gpuc2/gpuc2/synth/update"
)

// fakeSetup returns a key with the section counts of the circuit's
// setup (h of the domain, l of the aux variables; a and b as small as a
// key may have), every point the generator: what the tool writes and the
// facade's shape check accept, without the minutes of a real setup.
func fakeSetup(_ context.Context, c synth.Circuit, _ io.Reader, _ ...groth16.SetupOption) (*groth16.ProvingKey, error) {
	var sz synth.Sizes
	switch c := c.(type) {
	case *stacked.Circuit:
		sz = c.Params.Sizes()
	case *update.Circuit:
		sz = c.Sizes()
	}
	return testkey.GeneratorKey(sz.Inputs, sz.Aux, sz.Domain()-1)
}

// useFakeSetup replaces setup with fakeSetup for the test.
func useFakeSetup(t *testing.T) {
	real := setup
	t.Cleanup(func() { setup = real })
	setup = fakeSetup
}

func TestFlagsAndPlan(t *testing.T) {
	o, err := parseFlags([]string{"-sector-size", "32GiB", "-cache", "/c", "-backend", "cuda", "-device", "1", "-force"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, options{sectorSize: "32GiB", cache: "/c", backend: "cuda", device: 1, force: true}, o)
	_, err = parseFlags([]string{"-sector-size", "2KiB", "extra"}, io.Discard)
	assert.True(t, cli.IsUsage(err), "a stray argument: %v", err)
	_, err = parseFlags([]string{"-bogus"}, io.Discard)
	assert.Equal(t, 2, cli.Code(err), "an unknown flag: %v", err)
	var usage bytes.Buffer
	_, err = parseFlags([]string{"-h"}, &usage)
	assert.ErrorIs(t, err, flag.ErrHelp)
	assert.Contains(t, usage.String(), "-sector-size")

	t.Setenv("XDG_CACHE_HOME", "/xdg")
	o = options{sectorSize: "2KiB", backend: "cpu"}
	spt, err := plan(&o)
	require.NoError(t, err)
	assert.Equal(t, abi.RegisteredSealProof_StackedDrg2KiBV1_1, spt, "c2prove's type for synthetic 2 KiB sectors")
	want, _ := os.UserCacheDir()
	assert.Equal(t, want, o.cache, "the user cache directory by default, where c2prove looks")

	for _, tc := range []struct {
		o    options
		want string
	}{
		{options{sectorSize: "1GiB", backend: "cpu"}, "-sector-size"},
		{options{sectorSize: "32GiB", backend: "cpu"}, "would take hours"},
		{options{sectorSize: "64GiB", backend: "cpu"}, "would take hours"},
		{options{sectorSize: "2KiB", backend: "tpu"}, "want auto, cpu or cuda"},
		{options{sectorSize: "2KiB", backend: "cpu", device: -1}, "-device"},
	} {
		_, err := plan(&tc.o)
		assert.ErrorContains(t, err, tc.want, "%+v", tc.o)
		assert.True(t, cli.IsUsage(err), "%+v: a usage error", tc.o)
	}
	for _, size := range []string{"2KiB", "8MiB", "512MiB", "32GiB", "64GiB"} {
		o := options{sectorSize: size, backend: "cpu", cache: "/c"}
		spt, err := plan(&o)
		want, _ := porep.ProofForSectorSize(size)
		if gpuc2.IsTestSize(want) {
			require.NoError(t, err, size)
			assert.Equal(t, want, spt)
		} else {
			assert.ErrorContains(t, err, "would take hours", size)
		}
	}
	if !native.Available() {
		o := options{sectorSize: "32GiB", backend: "auto", cache: "/c"}
		_, err := plan(&o)
		assert.ErrorIs(t, err, native.ErrNotAvailable)
		assert.ErrorContains(t, err, "needs a GPU")
		o = options{sectorSize: "2KiB", backend: "cuda", cache: "/c"}
		_, err = plan(&o)
		assert.ErrorIs(t, err, native.ErrNotAvailable)
		assert.Equal(t, 2, cli.Code(err))
		assert.ErrorContains(t, err, "make -C native", "how to build it")
		o = options{sectorSize: "2KiB", backend: "auto", cache: "/c"}
		_, err = plan(&o)
		require.NoError(t, err)
		assert.Equal(t, "cpu", o.backend)
	}
}

// With -update the tool writes the update circuit's setup where
// gpuc2.UpdateTestParams finds it (and checks its shape) without creating
// one.
func TestWritesUpdateSetup(t *testing.T) {
	useFakeSetup(t)
	ctx := context.Background()
	cache := t.TempDir()
	o, err := parseFlags([]string{"-update", "-sector-size", "2KiB", "-cache", cache, "-backend", "cpu"}, io.Discard)
	require.NoError(t, err)
	var out bytes.Buffer
	path, err := run(ctx, o, &out)
	require.NoError(t, err, out.String())
	u := abi.RegisteredUpdateProof_StackedDrg2KiBV1
	assert.Equal(t, gpuc2.UpdateTestParamsPath(cache, u), path)
	assert.Contains(t, out.String(), "TEST-ONLY setup for update StackedDrg2KiBV1")
	pk, got, created, err := gpuc2.UpdateTestParams(ctx, cache, u)
	require.NoError(t, err)
	assert.False(t, created, "opened, not created")
	assert.Equal(t, path, got)
	require.NoError(t, pk.Close())
	assert.NoFileExists(t, gpuc2.TestParamsPath(cache, abi.RegisteredSealProof_StackedDrg2KiBV1_1), "no PoRep setup")
}

// The tool writes the file where gpuc2.TestParams finds it: TestParams
// opens it (shape checked) without creating one. An existing file is kept
// unless -force. The setup itself is faked (see TestRealSetup).
func TestWritesWhereTestParamsLooks(t *testing.T) {
	useFakeSetup(t)
	ctx := context.Background()
	cache := t.TempDir()
	var out bytes.Buffer
	o := options{sectorSize: "2KiB", cache: cache, backend: "cpu"}
	path, err := run(ctx, o, &out)
	require.NoError(t, err, out.String())
	p := abi.RegisteredSealProof_StackedDrg2KiBV1_1
	assert.Equal(t, gpuc2.TestParamsPath(cache, p), path)
	for _, s := range []string{"TEST-ONLY", "setup: ", "write: ", "file: " + path, "size: "} {
		assert.Contains(t, out.String(), s)
	}
	assert.NoFileExists(t, path+".tmp")

	pk, got, created, err := gpuc2.TestParams(ctx, cache, p)
	require.NoError(t, err)
	assert.False(t, created, "opened, not created")
	assert.Equal(t, path, got)
	require.NoError(t, pk.Close())

	_, err = run(ctx, o, io.Discard)
	assert.ErrorContains(t, err, "-force")
	assert.True(t, cli.IsUsage(err))
	o.force = true
	out.Reset()
	_, err = run(ctx, o, &out)
	require.NoError(t, err)
	assert.Contains(t, out.String(), "removed the existing")

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = run(cctx, o, io.Discard)
	assert.True(t, errors.Is(err, context.Canceled), "%v", err)
	assert.NoFileExists(t, path+".tmp")
}

// A real 2 KiB setup (minutes on 2 cores; seconds on a GPU): set
// GPUC2_TEST_SETUP=1.
func TestRealSetup(t *testing.T) {
	if os.Getenv("GPUC2_TEST_SETUP") == "" {
		t.Skip("set GPUC2_TEST_SETUP=1 (a real 2 KiB setup takes about 4 minutes on 2 cores)")
	}
	ctx := context.Background()
	cache := t.TempDir()
	_, err := run(ctx, options{sectorSize: "2KiB", cache: cache, backend: "auto"}, os.Stderr)
	require.NoError(t, err)
	pk, _, created, err := gpuc2.TestParams(ctx, cache, abi.RegisteredSealProof_StackedDrg2KiBV1_1)
	require.NoError(t, err)
	assert.False(t, created)
	require.NoError(t, pk.Close())
}
