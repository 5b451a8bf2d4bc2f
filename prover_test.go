package gpuc2_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/testparams"
	"github.com/gpuc2/gpuc2/native"
	"github.com/gpuc2/gpuc2/synth/porep"
	"github.com/gpuc2/gpuc2/trace"
)

// testRun is this test binary's part of the go test run's TEST-ONLY
// parameters (internal/testparams): its own directory, which is also the
// examples' user cache directory, and the run's one 2 KiB setup.
var testRun *testparams.Run

// testParamsDir is a TestParamsDir holding the 2 KiB TEST-ONLY setup, made
// once per go test run (by the first package that asks; the others wait
// for it).
func testParamsDir(t *testing.T) string {
	t.Helper()
	dir, err := testRun.Seal2KiB(context.Background())
	require.NoError(t, err)
	return dir
}

// ownParamsDir is the same directory without asking for the 2 KiB setup,
// for tests of other sizes, which make theirs there.
func ownParamsDir(*testing.T) string { return testRun.Dir() }

// envTestFacade opts in to the facade's further 2 KiB proofs on the CPU (the
// pipeline with several proofs in flight, Synthetic PoRep, a panic in
// synthesis, CPU against GPU): beyond TestSealCommitPhase2's one proof they
// would take the package past 3 minutes on 2 cores. .ci/run runs them in a
// step of their own, native/device-test.sh on the GPU.
const envTestFacade = "GPUC2_TEST_FACADE"

func needFacadeProofs(t *testing.T) {
	t.Helper()
	if testing.Short() || os.Getenv(envTestFacade) == "" {
		t.Skipf("set %s=1 to prove more 2 KiB sectors through the facade (a few CPU-minutes; .ci/run does)", envTestFacade)
	}
}

func TestMain(m *testing.M) {
	// The examples make their TEST-ONLY setup under os.UserCacheDir(), as a
	// program would: pointed at the tests' shared directory, they reuse its
	// setup and leave nothing behind. GOCACHE stays where go put it.
	if cache, err := os.UserCacheDir(); err == nil && os.Getenv("GOCACHE") == "" {
		os.Setenv("GOCACHE", filepath.Join(cache, "go-build")) // go's default, for the go builds of readme_test.go
	}
	// Removed by Leave, or after a timeout by the run's last binary or the
	// next run's Join.
	testRun = testparams.Join()
	os.Setenv("XDG_CACHE_HOME", testRun.Dir())
	code := m.Run()
	testRun.Leave()
	os.Exit(code)
}

func syntheticC1JSON(t *testing.T, miner abi.ActorID, sector abi.SectorNumber) (*porep.C1, []byte) {
	c1, err := porep.SyntheticC1(context.Background(), abi.RegisteredSealProof_StackedDrg2KiBV1_1, miner, sector, [32]byte{2})
	require.NoError(t, err)
	b, err := c1.EncodeJSON()
	require.NoError(t, err)
	return c1, b
}

func TestSealCommitPhase2(t *testing.T) {
	if testing.Short() {
		t.Skip("a 2 KiB setup and proof take minutes on 2 cores")
	}
	ctx := context.Background()
	tr := trace.New()
	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: t.TempDir(), TestParamsDir: testParamsDir(t), Tracer: tr})
	require.NoError(t, err)
	defer p.Close()
	miner, sector := abi.ActorID(1234), abi.SectorNumber(99)
	c1, raw := syntheticC1JSON(t, miner, sector)
	out, err := p.SealCommitPhase2(ctx, raw, sector, miner)
	require.NoError(t, err)
	require.Len(t, out, groth16.ProofSize)
	checkTrace(t, tr, len(c1.VanillaProofs))

	// Checked independently of the facade's own self-verification.
	proofs, err := groth16.UnmarshalProofs(out)
	require.NoError(t, err)
	pk, _, _, err := gpuc2.TestParams(ctx, testParamsDir(t), c1.RegisteredProof)
	require.NoError(t, err)
	defer pk.Close()
	public, err := porep.PublicInputs(c1, miner, sector, 0)
	require.NoError(t, err)
	ok, err := groth16.Verify(pk.VerifyingKey(), &proofs[0], public)
	require.NoError(t, err)
	assert.True(t, ok)

	// The same C1 claimed for another sector is bad input.
	_, err = p.SealCommitPhase2(ctx, raw, sector+1, miner)
	assert.ErrorIs(t, err, gpuc2.ErrBadInput)
}

func TestSealCommitPhase2Errors(t *testing.T) {
	ctx := context.Background()
	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: t.TempDir(), Backend: gpuc2.BackendCPU})
	require.NoError(t, err)
	miner, sector := abi.ActorID(1234), abi.SectorNumber(99)
	_, raw := syntheticC1JSON(t, miner, sector)

	_, err = p.SealCommitPhase2(ctx, []byte(`{"registered_proof":"StackedDrg2KiBV1_1"`), sector, miner)
	assert.ErrorIs(t, err, gpuc2.ErrBadInput, "truncated C1")

	_, err = p.SealCommitPhase2(ctx, raw, sector, miner)
	assert.ErrorIs(t, err, gpuc2.ErrParamsMissing, "no parameters and no test setup allowed")

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = p.SealCommitPhase2(cctx, raw, sector, miner)
	assert.ErrorIs(t, err, context.Canceled)

	require.NoError(t, p.Close())
	_, err = p.SealCommitPhase2(ctx, raw, sector, miner)
	assert.ErrorIs(t, err, gpuc2.ErrClosed)
}

func TestNewBackends(t *testing.T) {
	ctx := context.Background()
	_, err := gpuc2.New(ctx, gpuc2.Config{Backend: "tpu"})
	assert.Error(t, err)
	_, err = gpuc2.New(ctx, gpuc2.Config{Backend: gpuc2.BackendCPU, ConstraintMatrices: "sometimes"})
	assert.ErrorContains(t, err, "ConstraintMatrices")
	p, err := gpuc2.New(ctx, gpuc2.Config{})
	require.NoError(t, err)
	defer p.Close()
	if native.Available() {
		assert.Equal(t, gpuc2.BackendCUDA, p.Backend())
	} else {
		assert.Equal(t, gpuc2.BackendCPU, p.Backend())
		_, err = gpuc2.New(ctx, gpuc2.Config{Backend: gpuc2.BackendCUDA})
		assert.ErrorIs(t, err, native.ErrNotAvailable)
		assert.ErrorContains(t, err, native.LibraryName, "the error says what was looked for")
	}
}

// checkTrace parses the facade's trace as Chrome JSON and checks that every
// stage of every partition appears once: queue, wait_budget and synthesis
// on a synthesis worker's track, and the prover's phases inside the
// partition's span on a prover track, with non-negative durations adding up
// to the partition's time.
func checkTrace(t *testing.T, tr *trace.Tracer, partitions int) {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, tr.WriteJSON(&buf))
	var f trace.File
	require.NoError(t, json.Unmarshal(buf.Bytes(), &f))
	count := map[string]int{}
	byPartition := map[int]map[string]trace.Event{}
	for _, e := range f.TraceEvents {
		if e.Ph != "X" {
			continue
		}
		count[e.Name]++
		assert.GreaterOrEqual(t, e.Dur, 0.0, e.Name)
		if k, ok := e.Args["partition"].(float64); ok {
			if byPartition[int(k)] == nil {
				byPartition[int(k)] = map[string]trace.Event{}
			}
			byPartition[int(k)][e.Name] = e
		}
	}
	assert.Equal(t, 1, count["C1 parse and check"])
	assert.Equal(t, 1, count["parameter load"])
	stages := []string{"H", "msm_h", "msm_l", "msm_a", "msm_b_g1", "msm_b_g2"}
	for _, name := range append(stages, "partition", "self-verify", "synthesis", "synthesis_prep", "queue", "wait_budget") {
		assert.Equal(t, partitions, count[name], name)
	}
	for k := 0; k < partitions; k++ {
		part := byPartition[k]["partition"]
		synthesis := byPartition[k]["synthesis"]
		assert.LessOrEqual(t, synthesis.Ts+synthesis.Dur, part.Ts+1, "partition %d is synthesized before it is proven", k)
		assert.LessOrEqual(t, byPartition[k]["wait_budget"].Ts+byPartition[k]["wait_budget"].Dur, synthesis.Ts+1)
		prep := byPartition[k]["synthesis_prep"] // the circuit and the assignment, inside the synthesis
		assert.GreaterOrEqual(t, prep.Ts, synthesis.Ts, "partition %d's synthesis_prep starts inside its synthesis", k)
		assert.LessOrEqual(t, prep.Ts+prep.Dur, synthesis.Ts+synthesis.Dur+1, "partition %d's synthesis_prep ends inside its synthesis", k)
		// Every prover phase (on a GPU also key_upload, wait_vram, upload,
		// wait_compute, readback) lies inside the partition's span, and
		// together they fill it.
		var sum float64
		for name, e := range byPartition[k] {
			switch name {
			case "partition", "synthesis", "synthesis_prep", "queue", "wait_budget", "self-verify":
				continue
			}
			assert.GreaterOrEqual(t, e.Ts, part.Ts, "%s starts inside partition %d", name, k)
			assert.LessOrEqual(t, e.Ts+e.Dur, part.Ts+part.Dur+1, "%s ends inside partition %d", name, k)
			sum += e.Dur
		}
		assert.InDelta(t, part.Dur, sum, 0.1*part.Dur+2000, "stages sum to partition %d's time", k)
	}
}
