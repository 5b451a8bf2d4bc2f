package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/examples/internal/cli"
	"github.com/gpuc2/gpuc2/native"
)

// prefix2KiB starts the names of the real 2 KiB parameter files.
const prefix2KiB = "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138"

// options parses and checks args as main does, with the default parameter
// directory empty.
func parse(t *testing.T, args ...string) (*options, error) {
	t.Helper()
	t.Setenv(gpuc2.EnvParamsDir, t.TempDir())
	o, err := parseFlags(args, io.Discard)
	if err == nil {
		err = o.check()
	}
	return o, err
}

// Every mistake is refused before any work, as a usage error (exit 2)
// that says what is wrong.
func TestCheckRefuses(t *testing.T) {
	empty := t.TempDir()
	c1 := filepath.Join(t.TempDir(), "c1.json")
	require.NoError(t, os.WriteFile(c1, []byte(`{"not": "a C1"}`), 0o644))
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"-backend", "gpu"}, []string{`-backend "gpu": want auto, cpu or cuda`}},
		{[]string{"-params", empty}, []string{"-params " + empty, prefix2KiB, ".params in " + empty, "only without -params"}},
		{[]string{"-check-real", "-params", empty}, []string{"-check-real needs Filecoin's real 2 KiB parameter files", prefix2KiB, ".params in " + empty, "curio fetch-params 2KiB", "lotus fetch-params 2048"}},
		{[]string{"-check-real", "-count", "2"}, []string{"-count is not used with -check-real"}},
		{[]string{"-check-real", "-sector-size", "32GiB"}, []string{"-sector-size is not used with -check-real"}},
		{[]string{"extra-arg"}, []string{`unexpected arguments ["extra-arg"]`}},
		{[]string{"-count", "0"}, []string{"-count"}},
		{[]string{"-workers", "-1"}, []string{"-workers"}},
		{[]string{"-devices", "x"}, []string{"-devices"}},
		{[]string{"-device-memory", "lots"}, []string{"-device-memory"}},
		{[]string{"-device-memory", "0"}, []string{"-device-memory", "not a positive size"}},
		{[]string{"-sector-size", "3KiB"}, []string{"-sector-size"}},
		{[]string{"-c1", filepath.Join(empty, "none.json")}, []string{"-c1"}},
		{[]string{"-c1", c1}, []string{"-c1 " + c1}},
		{[]string{"-c1", c1, "-sector-size", "2KiB"}, []string{"-sector-size is for synthetic sectors"}},
		{[]string{"-params", empty, "-test-params", empty}, []string{"-test-params is used only without -params"}},
		{[]string{"-trace", filepath.Join(empty, "no", "t.json")}, []string{"-trace"}},
		{[]string{"-memprofile", filepath.Join(empty, "no", "heap.pprof")}, []string{"-memprofile", "no directory"}},
		{[]string{"-test-params", ""}, []string{"-test-params is empty"}},
		{[]string{"-sector-size", "32GiB", "-backend", "cpu", "-test-params", empty}, []string{"no TEST-ONLY setup at", "examples/testsetup -sector-size 32GiB"}},
		{[]string{"-bogus"}, []string{"-bogus"}},
		{[]string{"-update", "-check-real"}, []string{"-update proves synthetic sector updates"}},
		{[]string{"-update", "-c1", c1}, []string{"-update proves synthetic sector updates"}},
		{[]string{"-update", "-params", empty}, []string{"update StackedDrg2KiBV1", "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"}},
		{[]string{"-update", "-sector-size", "32GiB", "-backend", "cpu", "-test-params", empty}, []string{"no TEST-ONLY setup at", "TEST-ONLY-EmptySectorUpdate-StackedDrg32GiBV1.params", "examples/testsetup -update -sector-size 32GiB"}},
	}
	if !native.Available() {
		cases = append(cases,
			struct {
				args []string
				want []string
			}{[]string{"-backend", "cuda"}, []string{"-backend cuda", native.Load().Error(), "make -C native", "nvcc", native.EnvLibrary}}, // native says where it looked
			struct {
				args []string
				want []string
			}{[]string{"-devices", "0"}, []string{"-devices needs the cuda backend", "-backend auto: no GPU"}},
			struct {
				args []string
				want []string
			}{[]string{"-device-memory", "24GiB"}, []string{"-device-memory needs the cuda backend"}})
	}
	for _, tc := range cases {
		_, err := parse(t, tc.args...)
		assert.Equal(t, 2, cli.Code(err), "%q: %v", tc.args, err)
		for _, w := range tc.want {
			assert.ErrorContains(t, err, w, "%q", tc.args)
		}
	}
}

// Without -params and without real files: the TEST-ONLY setup. With real
// files (in -params or the default directory): them. -backend auto says
// which backend and why.
func TestCheckParams(t *testing.T) {
	o, err := parse(t, "-test-params", "/cache")
	require.NoError(t, err)
	assert.Equal(t, "/cache/gpuc2/test-params/TEST-ONLY-StackedDrg2KiBV1_1.params", o.testOnly)
	assert.Empty(t, o.params)
	assert.Contains(t, []string{"cpu", "cuda"}, o.backend)
	assert.Contains(t, o.backendWhy, "-backend auto: ")

	real := t.TempDir()
	params := filepath.Join(real, prefix2KiB+"0123.params")
	for _, f := range []string{params, strings.TrimSuffix(params, ".params") + ".vk"} {
		require.NoError(t, os.WriteFile(f, nil, 0o644))
	}
	o, err = parse(t, "-params", real, "-backend", "cpu")
	require.NoError(t, err)
	assert.Equal(t, params, o.params)
	assert.Empty(t, o.testOnly)
	assert.Equal(t, "cpu", o.backend)

	o, err = parse(t, "-update", "-test-params", "/cache")
	require.NoError(t, err)
	assert.Equal(t, "/cache/gpuc2/test-params/TEST-ONLY-EmptySectorUpdate-StackedDrg2KiBV1.params", o.testOnly, "the update circuit's setup")
	assert.Equal(t, "update StackedDrg2KiBV1", o.proofName())

	t.Setenv(gpuc2.EnvParamsDir, real) // the default directory has them
	o, err = parseFlags(nil, io.Discard)
	require.NoError(t, err)
	require.NoError(t, o.check())
	assert.Equal(t, params, o.params)
	assert.Empty(t, o.testOnly)
}

func TestHelp(t *testing.T) {
	var usage bytes.Buffer
	_, err := parseFlags([]string{"-h"}, &usage)
	assert.True(t, errors.Is(err, flag.ErrHelp))
	assert.Zero(t, cli.Code(err))
	for _, f := range []string{"-backend", "-params", "-test-params", "-devices", "-count"} {
		assert.Contains(t, usage.String(), f)
	}
}

// progressEvents are a 2 KiB proof's reports, as the facade sends them.
func progressEvents() []gpuc2.Progress {
	e := gpuc2.Progress{Proof: 1, Partitions: 1, Device: -1}
	var out []gpuc2.Progress
	for _, s := range []gpuc2.Stage{gpuc2.StageQueued, gpuc2.StageScheduled, gpuc2.StageSynthesis, gpuc2.StageProving} {
		e.Stage = s
		out = append(out, e)
	}
	for _, ph := range []string{"H", "msm_h", "msm_l", "msm_a", "msm_b_g1", "msm_b_g2"} {
		e.Phase = ph
		out = append(out, e)
	}
	e.Phase = ""
	for _, s := range []gpuc2.Stage{gpuc2.StageProved, gpuc2.StageVerified} {
		e.Stage = s
		out = append(out, e)
	}
	return out
}

// Off a terminal, each phase is a plain line naming it and the time, with
// no \r or escape codes.
func TestProgressPlain(t *testing.T) {
	var out bytes.Buffer
	d := newDisplay(&out, &out, false, 80)
	tr := newTracker(d)
	tr.report(gpuc2.Progress{Proof: 1, Partitions: 1, Stage: gpuc2.StageQueued}) // before begin: not shown
	tr.begin(time.Now())
	for _, e := range progressEvents() {
		tr.report(e)
	}
	fmt.Fprintln(d.stderr(), "c2prove: an error")
	d.end()
	s := out.String()
	assert.NotContains(t, s, "\r")
	assert.NotContains(t, s, "\x1b")
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	require.Len(t, lines, 13, s)
	for i, name := range []string{"queued", "scheduled", "synthesis", "proving", "H", "msm_h", "msm_l", "msm_a", "msm_b_g1", "msm_b_g2", "verify", "verified"} {
		assert.Regexp(t, `^progress \d+\.\d s: #1 partition 1/1 `+name+`( \(.* took \d+\.\d s\))?$`, lines[i])
	}
	assert.Equal(t, "c2prove: an error", lines[12])
}

// On a terminal, the status line names each proof's running phase and its
// time; it is redrawn in place, cut to the terminal's width, and erased
// before anything else is written: an error starts on a line of its own.
func TestProgressTerminal(t *testing.T) {
	var out bytes.Buffer
	d := newDisplay(&out, &out, true, 60)
	tr := newTracker(d)
	tr.begin(time.Now())
	for _, e := range progressEvents()[:7] { // msm_l running
		tr.report(e)
	}
	assert.Regexp(t, `^proving \d+s · #1 1/1 msm_l \d+\.\ds$`, tr.status())
	d.printf("a line")
	fmt.Fprintln(d.stderr(), "c2prove: interrupt signal received")
	d.end()
	s := out.String()
	assert.NotContains(t, s, "\n\r\x1b[K\n", "no empty lines")
	for _, line := range []string{"a line\n", "c2prove: interrupt signal received\n"} {
		i := strings.Index(s, line)
		require.Positive(t, i, s)
		assert.True(t, strings.HasSuffix(s[:i], "\r\x1b[K"), "%q is not at the start of a cleared line in %q", line, s)
	}
	assert.True(t, strings.HasSuffix(s, "\r\x1b[K"), "end erases the status line: %q", s)
	for _, redraw := range strings.Split(s, "\r\x1b[K") {
		line, _, _ := strings.Cut(redraw, "\n")
		assert.Less(t, len([]rune(line)), 60, "cut to the width: %q", line)
	}

	d = newDisplay(&out, &out, true, 30)
	d.begin(func() string { return strings.Repeat("x", 100) })
	d.end()
	assert.Contains(t, out.String(), "\r\x1b["+"K"+strings.Repeat("x", 28)+"…")
}

// With several proofs in flight, the status line has one entry per proof,
// in order, whatever order their reports came in: its partitions at work
// (its queued ones when none is), or done.
func TestStatusSeveralProofs(t *testing.T) {
	tr := newTracker(newDisplay(io.Discard, io.Discard, true, 200))
	tr.begin(time.Now())
	defer tr.d.end()
	report := func(proof uint64, part int, s gpuc2.Stage, phase string) {
		tr.report(gpuc2.Progress{Proof: proof, Partition: part, Partitions: 2, Stage: s, Phase: phase, Device: -1})
	}
	report(2, 0, gpuc2.StageQueued, "")
	report(1, 0, gpuc2.StageQueued, "")
	report(2, 1, gpuc2.StageQueued, "")
	report(1, 1, gpuc2.StageQueued, "")
	report(1, 0, gpuc2.StageProving, "msm_a")
	report(1, 1, gpuc2.StageSynthesis, "")
	report(3, 0, gpuc2.StageVerified, "")
	report(3, 1, gpuc2.StageVerified, "")
	assert.Regexp(t, `^proving \d+s · #1 1/2 msm_a \d\.\ds, 2/2 synthesis \d\.\ds · #2 1/2 queued \d\.\ds, 2/2 queued \d\.\ds · #3 done$`, tr.status())
	report(1, 0, gpuc2.StageVerified, "")
	assert.Regexp(t, `· #1 2/2 synthesis \d\.\ds \(1 done\) ·`, tr.status())
}

// -device-memory takes IEC and SI sizes (gpuc2.Config.DeviceMemoryLimit).
func TestDeviceMemoryFlag(t *testing.T) {
	for arg, want := range map[string]int64{"24GiB": 24 << 30, "16GB": 16e9, "512MiB": 512 << 20} {
		o, err := parseFlags([]string{"-device-memory", arg}, io.Discard)
		require.NoError(t, err, arg)
		assert.Equal(t, want, o.deviceMem, arg)
	}
}
