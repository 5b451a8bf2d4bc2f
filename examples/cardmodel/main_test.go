package main

import (
	"bytes"
	"flag"
	"io"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/examples/internal/cli"
	"github.com/gpuc2/gpuc2/groth16/gpu"
)

// The lists parse into bytes and rates; the defaults are 32 GiB PoRep's,
// so another proof type must bring its own figures; bad values are usage
// errors.
func TestFlags(t *testing.T) {
	o, err := parseFlags(nil, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, abi.RegisteredSealProof_StackedDrg32GiBV1_1, o.seal)
	assert.Equal(t, []limit{{"resident", 0}, {"16GiB", 16 << 30}, {"24GiB", 24 << 30}, {"32GiB", 32 << 30}}, o.limits)
	assert.Equal(t, []float64{25e9, 50e9, 55e9}, o.buses)
	assert.Equal(t, 1.58, o.gpu)
	assert.InDelta(t, 0.19, o.gap, 1e-12)
	assert.Equal(t, 2, o.workers)

	o, err = parseFlags([]string{"-update", "-gpu-seconds", "1.4", "-gap", "150ms", "-memory", "14.5GiB", "-bus", "64GB/s"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, abi.RegisteredUpdateProof_StackedDrg32GiBV1, o.upd)
	assert.Equal(t, []limit{{"14.5GiB", 29 << 29}}, o.limits)
	assert.Equal(t, []float64{64e9}, o.buses)

	for _, args := range [][]string{
		{"-update"}, {"-sector-size", "64GiB", "-gpu-seconds", "3"}, // the defaults are 32 GiB PoRep's
		{"-memory", "lots"}, {"-memory", "0"}, {"-bus", "25GB"}, {"-bus", "fast/s"},
		{"-gpu-seconds", "0"}, {"-gap", "-1s"}, {"-workers", "0"}, {"-sector-size", "1GiB"}, {"extra"},
	} {
		_, err := parseFlags(args, io.Discard)
		assert.Equal(t, 2, cli.Code(err), "%q: %v", args, err)
	}
	var usage bytes.Buffer
	_, err = parseFlags([]string{"-h"}, &usage)
	assert.ErrorIs(t, err, flag.ErrHelp)
	assert.Contains(t, usage.String(), "2026-12-06")
}

// The model's arithmetic on made-up figures: a partition costs the longer
// of its GPU work and its bus time, plus the gap when streamed; a proof
// ten of them; the ratio is to the resident line at the same bandwidth;
// a limit below a streamed proof's need is said.
func TestLines(t *testing.T) {
	resident := gpuc2.Resources{Partitions: 10, Mode: gpu.ModeResident, ProofsPerGPU: 1, MatricesOnGPU: true,
		PartitionBusBytes: 4e9, LeastDeviceMemory: 12 << 30}
	streamed := gpuc2.Resources{Partitions: 10, Mode: gpu.ModeStreaming, ProofsPerGPU: 1, MatricesOnGPU: true,
		PartitionBusBytes: 55e9, LeastDeviceMemory: 12 << 30}
	req := func(limit int64) (gpuc2.Resources, error) {
		switch {
		case limit == 0:
			return resident, nil
		case limit < 12<<30:
			return gpuc2.Resources{}, gpuc2.ErrOutOfDeviceMemory
		}
		return streamed, nil
	}
	o := options{limits: []limit{{"resident", 0}, {"16GiB", 16 << 30}, {"8GiB", 8 << 30}},
		buses: []float64{25e9, 55e9}, gpu: 1.58, gap: 0.19}
	ls, err := lines(o, req)
	require.NoError(t, err)
	require.Len(t, ls, 5)
	for i, want := range []struct {
		bus, partition, proof, ratio float64
		row                          string
	}{
		// 4 GB at 25 GB/s: 0.16 s, hidden under the 1.58 s of GPU work.
		{0.16, 1.58, 15.8, 1, "| resident | resident | 1 | witness | 4.0 | 25 | 0.16 | 1.58 | **15.8** | 1.00 |"},
		{4.0 / 55, 1.58, 15.8, 1, "| resident | resident | 1 | witness | 4.0 | 55 | 0.07 | 1.58 | **15.8** | 1.00 |"},
		// 55 GB at 25 GB/s: bus-bound, 2.2 s and the gap.
		{2.2, 2.39, 23.9, 23.9 / 15.8, "| 16GiB | streaming | 1 | witness, key, matrices | 55.0 | 25 | 2.20 | 2.39 | **23.9** | 1.51 |"},
		// at 55 GB/s the bus takes 1 s, under the GPU work: 1.58 s and the gap.
		{1, 1.77, 17.7, 17.7 / 15.8, "| 16GiB | streaming | 1 | witness, key, matrices | 55.0 | 55 | 1.00 | 1.77 | **17.7** | 1.12 |"},
	} {
		l := ls[i]
		assert.InDelta(t, want.bus, l.bus, 1e-9, "line %d", i)
		assert.InDelta(t, want.partition, l.partition, 1e-9, "line %d", i)
		assert.InDelta(t, want.proof, l.proof, 1e-9, "line %d", i)
		assert.InDelta(t, want.ratio, l.vsResident, 1e-9, "line %d", i)
		assert.Equal(t, want.row, l.row(), "line %d", i)
	}
	assert.Equal(t, "| 8GiB | does not fit: a streamed proof needs 12.0 GiB | | | | | | | | |", ls[4].row())
}

// Through the facade: a 32 GiB PoRep partition under 16 GiB streams one
// proof at a time and moves the key (47.4 GB), its witness (4.2 GB) and
// the matrices (5.9 GB); at the H100's 55 GB/s that is 1.04 s, under its
// 1.58 s of GPU work, so the H100's 16 GiB line is 10 × (1.58 + 0.19) s.
func TestLinesPoRep32GiB(t *testing.T) {
	o, err := parseFlags([]string{"-memory", "resident,16GiB", "-bus", "55GB/s"}, io.Discard)
	require.NoError(t, err)
	ls, err := lines(o, facade(o))
	require.NoError(t, err)
	require.Len(t, ls, 2)
	r := ls[1].r
	assert.Equal(t, gpu.ModeStreaming, r.Mode)
	assert.Equal(t, 1, r.ProofsPerGPU)
	assert.True(t, r.MatricesOnGPU)
	assert.InDelta(t, 57.4e9, float64(r.PartitionBusBytes), 0.1e9)
	assert.InDelta(t, 1.04, ls[1].bus, 0.01)
	assert.InDelta(t, 17.7, ls[1].proof, 1e-9)
	assert.InDelta(t, 15.8, ls[0].proof, 1e-9)
}
