package gpuc2_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/groth16/gpu"
	"github.com/gpuc2/gpuc2/internal/testcircuit"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/porep"
	"github.com/gpuc2/gpuc2/synth/stacked"
)

const name2KiB = "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138test"

// noLeaks records the goroutines before a test and checks at its end that
// none were left behind, nor temporary files: the test's TMPDIR is a fresh
// directory (the machine's /tmp is shared) that must end empty.
func noLeaks(t *testing.T) {
	t.Helper()
	goroutines := runtime.NumGoroutine()
	tmpdir := filepath.Join(t.TempDir(), "tmp") // later t.TempDir calls share its parent
	require.NoError(t, os.Mkdir(tmpdir, 0o755))
	t.Setenv("TMPDIR", tmpdir)
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > goroutines && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > goroutines {
			buf := make([]byte, 1<<20)
			t.Errorf("%d goroutines left behind (%d before):\n%s", n-goroutines, goroutines, buf[:runtime.Stack(buf, true)])
		}
		entries, err := os.ReadDir(tmpdir)
		require.NoError(t, err)
		assert.Empty(t, entries, "temporary files left behind")
	})
}

// writeKey writes a small valid key (of another circuit) as dir/name.params and .vk.
func writeKey(t *testing.T, dir, name string) (params string) {
	pk, err := groth16.Setup(context.Background(), &testcircuit.Chain{N: 20, Seed: 1, Inputs: 1}, rand.Reader)
	require.NoError(t, err)
	params = filepath.Join(dir, name+".params")
	require.NoError(t, groth16.WriteParams(params, pk))
	require.NoError(t, groth16.WriteVerifyingKeyFile(filepath.Join(dir, name+".vk"), pk.VerifyingKey()))
	return params
}

// Every way a request can fail without proving gives its documented error
// at once and leaves no goroutines or files behind.
func TestProveSealErrors(t *testing.T) {
	ctx := context.Background()
	miner, sector := abi.ActorID(1234), abi.SectorNumber(99)
	_, raw := syntheticC1JSON(t, miner, sector)
	missing, corrupt, wrong := t.TempDir(), t.TempDir(), t.TempDir()
	params := writeKey(t, corrupt, name2KiB)
	data, err := os.ReadFile(params)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(params, data[:len(data)-100], 0o644))
	writeKey(t, wrong, name2KiB)
	noLeaks(t)

	cases := []struct {
		name string
		cfg  gpuc2.Config
		c1   []byte
		ctx  func() context.Context
		want error
	}{
		{"bad C1", gpuc2.Config{ParamsDir: missing}, raw[:len(raw)/2], nil, gpuc2.ErrBadInput},
		{"wrong sector", gpuc2.Config{ParamsDir: missing}, raw, nil, gpuc2.ErrBadInput},
		{"missing parameters", gpuc2.Config{ParamsDir: missing}, raw, nil, gpuc2.ErrParamsMissing},
		{"truncated parameters", gpuc2.Config{ParamsDir: corrupt}, raw, nil, gpuc2.ErrParamsCorrupt},
		{"parameters of another circuit", gpuc2.Config{ParamsDir: wrong}, raw, nil, gpuc2.ErrParamsCorrupt},
		{"too small a budget", gpuc2.Config{ParamsDir: missing, HostMemoryBudget: 1 << 20}, raw, nil, gpuc2.ErrBudget},
		{"cancelled", gpuc2.Config{ParamsDir: missing}, raw, func() context.Context {
			c, cancel := context.WithCancel(ctx)
			cancel()
			return c
		}, context.Canceled},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Backend = gpuc2.BackendCPU
			p, err := gpuc2.New(ctx, tc.cfg)
			require.NoError(t, err)
			defer p.Close()
			rctx := ctx
			if tc.ctx != nil {
				rctx = tc.ctx()
			}
			s := sector
			if tc.name == "wrong sector" {
				s++
			}
			start := time.Now()
			_, err = p.ProveSeal(rctx, gpuc2.SealRequest{C1: tc.c1, Sector: s, Miner: miner})
			assert.ErrorIs(t, err, tc.want)
			assert.Less(t, time.Since(start), 30*time.Second, "errors come before any proving")
			st := p.Status()
			assert.Zero(t, st.ProofsInFlight)
			assert.Zero(t, st.HostReservedBytes)
			assert.Zero(t, st.PartitionsQueued)
			require.NoError(t, p.Close())
		})
	}

	// Preload reports the same parameter errors.
	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: corrupt, Backend: gpuc2.BackendCPU})
	require.NoError(t, err)
	assert.ErrorIs(t, p.Preload(ctx, abi.RegisteredSealProof_StackedDrg2KiBV1_1), gpuc2.ErrParamsCorrupt)
	require.NoError(t, p.Close())
	assert.ErrorIs(t, p.Preload(ctx, abi.RegisteredSealProof_StackedDrg2KiBV1_1), gpuc2.ErrClosed)
}

// progressLog keeps Progress calls for checks of order.
type progressLog struct {
	mu     sync.Mutex
	events []gpuc2.Progress
	hook   func(gpuc2.Progress)
}

func (l *progressLog) record(e gpuc2.Progress) {
	l.mu.Lock()
	l.events = append(l.events, e)
	hook := l.hook
	l.mu.Unlock()
	if hook != nil {
		hook(e)
	}
}

func (l *progressLog) stage(s gpuc2.Stage) []gpuc2.Progress {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []gpuc2.Progress
	for _, e := range l.events {
		if e.Stage == s {
			out = append(out, e)
		}
	}
	return out
}

// Several 2 KiB proofs in flight under a budget of two partitions: all
// finish, their partitions are scheduled in (proof, partition) order, the
// budget's high-water mark stays within it; VerifySeal accepts each proof
// and rejects a flipped byte and another sector number; a proof cancelled
// during its synthesis returns context.Canceled and gives everything back.
func TestProveSealPipeline(t *testing.T) {
	needFacadeProofs(t)
	ctx := context.Background()
	spt := abi.RegisteredSealProof_StackedDrg2KiBV1_1
	req, err := gpuc2.Requirements(spt, gpuc2.Config{Backend: gpuc2.BackendCPU})
	require.NoError(t, err)
	budget := 2*req.PartitionHostBytes + req.PartitionHostBytes/2

	// The shared TEST-ONLY setup is made (or found) before the leak baseline.
	pk, _, _, err := gpuc2.TestParams(ctx, testParamsDir(t), spt)
	require.NoError(t, err)
	require.NoError(t, pk.Close())
	noLeaks(t)

	var log progressLog
	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: t.TempDir(), TestParamsDir: testParamsDir(t), Backend: gpuc2.BackendCPU,
		HostMemoryBudget: budget, SynthesisConcurrency: 2, Progress: log.record})
	require.NoError(t, err)
	defer p.Close()
	require.NoError(t, p.Preload(ctx, spt))
	assert.Equal(t, []abi.RegisteredSealProof{spt}, p.Status().Loaded)

	const proofs = 3
	miner := abi.ActorID(4321)
	raws := make([][]byte, proofs)
	for i := range raws {
		_, raws[i] = syntheticC1JSON(t, miner, abi.SectorNumber(10+i))
	}
	results := make([]*gpuc2.SealResult, proofs)
	errs := make([]error, proofs)
	var wg sync.WaitGroup
	for i := range proofs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = p.ProveSeal(ctx, gpuc2.SealRequest{C1: raws[i], Sector: abi.SectorNumber(10 + i), Miner: miner, DealIDs: []abi.DealID{7}})
		}()
		time.Sleep(50 * time.Millisecond) // submitted in order, for the log's sake
	}
	wg.Wait()
	for i := range proofs {
		require.NoError(t, errs[i], "proof %d", i)
		r := results[i]
		assert.Len(t, r.Proof, groth16.ProofSize)
		assert.Equal(t, gpuc2.BackendCPU, r.Backend)
		assert.Empty(t, r.Devices)
		assert.Positive(t, r.Timings.Synthesis)
		assert.Positive(t, r.Timings.Prove)
		assert.Positive(t, r.Timings.Verify)
		assert.GreaterOrEqual(t, r.Timings.Total, r.Timings.Prove)
		info := r.VerifyInfo
		assert.Equal(t, abi.SectorNumber(10+i), info.Number)
		assert.Equal(t, miner, info.Miner)
		assert.Equal(t, []abi.DealID{7}, info.DealIDs)
		assert.Regexp(t, "^bagboea4b5abc", info.SealedCID.String())
		assert.Regexp(t, "^baga6ea4sea", info.UnsealedCID.String())
	}

	// Scheduled in (proof, partition) order, proofs numbered as submitted.
	var order []uint64
	for _, e := range log.stage(gpuc2.StageScheduled) {
		order = append(order, e.Proof)
	}
	assert.Len(t, order, proofs)
	assert.True(t, slices.IsSorted(order), "scheduling order %v", order)
	assert.Len(t, log.stage(gpuc2.StageVerified), proofs)

	st := p.Status()
	assert.LessOrEqual(t, st.HostPeakBytes, budget, "high-water mark within the budget")
	assert.GreaterOrEqual(t, st.HostPeakBytes, 2*req.PartitionHostBytes, "two partitions were held at once")
	assert.Equal(t, st.HostParkedBytes, st.HostReservedBytes, "only parked assignments stay reserved")
	assert.Zero(t, st.ProofsInFlight)

	// VerifySeal: accepts, rejects a flipped byte and another sector.
	info := results[0].VerifyInfo
	ok, err := p.VerifySeal(info)
	require.NoError(t, err)
	assert.True(t, ok)
	flipped := info
	flipped.Proof = slices.Clone(info.Proof)
	flipped.Proof[groth16.ProofSize-1] ^= 1
	ok, _ = p.VerifySeal(flipped)
	assert.False(t, ok, "flipped byte")
	other := info
	other.Number++
	ok, err = p.VerifySeal(other)
	require.NoError(t, err)
	assert.False(t, ok, "another sector number")
	other = results[1].VerifyInfo
	other.Proof = info.Proof
	ok, err = p.VerifySeal(other)
	require.NoError(t, err)
	assert.False(t, ok, "another sector's proof")
	_, err = p.VerifySeal(proof.SealVerifyInfo{SealProof: spt})
	assert.ErrorIs(t, err, gpuc2.ErrBadInput)

	// Cancelled during synthesis: context.Canceled, and everything given back.
	cctx, cancel := context.WithCancel(ctx)
	log.mu.Lock()
	log.hook = func(e gpuc2.Progress) {
		if e.Stage == gpuc2.StageSynthesis && e.Sector == 99 {
			cancel()
		}
	}
	log.mu.Unlock()
	_, raw := syntheticC1JSON(t, miner, 99)
	start := time.Now()
	_, err = p.ProveSeal(cctx, gpuc2.SealRequest{C1: raw, Sector: 99, Miner: miner})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), 20*time.Second, "cancellation is prompt")
	st = p.Status()
	assert.Zero(t, st.ProofsInFlight)
	assert.Equal(t, st.HostParkedBytes, st.HostReservedBytes)

	// Evict frees the parameters and the parked assignments.
	require.NoError(t, p.Evict(spt))
	st = p.Status()
	assert.Empty(t, st.Loaded)
	assert.Zero(t, st.HostReservedBytes)
	require.NoError(t, p.Close())
}

// The facade proves and verifies an 8 MiB sector. Its test setup and proof
// take about 5 minutes on 2 cores, too long beside the package's other tests
// under go test's default timeout: set GPUC2_TEST_8MIB=1 to run it (.ci/run
// does, in a run of its own).
func TestProveSeal8MiB(t *testing.T) {
	if testing.Short() || os.Getenv("GPUC2_TEST_8MIB") == "" {
		t.Skip("set GPUC2_TEST_8MIB=1 (and allow about 5 minutes) to prove an 8 MiB sector")
	}
	ctx := context.Background()
	spt := abi.RegisteredSealProof_StackedDrg8MiBV1_1
	miner, sector := abi.ActorID(1000), abi.SectorNumber(8)
	c1, err := porep.SyntheticC1(ctx, spt, miner, sector, [32]byte{8})
	require.NoError(t, err)
	raw, err := c1.EncodeJSON()
	require.NoError(t, err)
	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: t.TempDir(), TestParamsDir: ownParamsDir(t)})
	require.NoError(t, err)
	defer p.Close()
	res, err := p.ProveSeal(ctx, gpuc2.SealRequest{C1: raw, Sector: sector, Miner: miner})
	require.NoError(t, err)
	assert.Len(t, res.Proof, len(c1.VanillaProofs)*groth16.ProofSize)
	ok, err := p.VerifySeal(res.VerifyInfo)
	require.NoError(t, err)
	assert.True(t, ok)
}

// The device memory limit picks each GPU's mode: resident when the key
// and a proof fit it, else streaming (the key in pinned host memory, each
// worker's largest phase on the device; a, b, c evaluated there from
// pinned matrices where that costs no overlap); below the least streamed
// proof, Requirements fails with ErrOutOfDeviceMemory naming it.
func TestRequirementsDeviceMemoryLimit(t *testing.T) {
	t32 := abi.RegisteredSealProof_StackedDrg32GiBV1_1
	cfg := gpuc2.Config{ParamsDir: t.TempDir(), Backend: gpuc2.BackendCUDA, DeviceMemoryLimit: 100 << 30}
	res, err := gpuc2.Requirements(t32, cfg)
	require.NoError(t, err)
	assert.Equal(t, gpu.ModeResident, res.Mode)
	assert.Equal(t, int64(100<<30), res.DeviceMemoryLimit)
	assert.Greater(t, res.VRAMBytes, int64(40<<30), "the key on the device")
	assert.Less(t, res.LeastDeviceMemory, int64(16<<30), "a 16 GiB card can stream a 32 GiB sector")
	// Resident, the matrices go on the GPU where they fit beside the key and
	// one proof, as the device decides (MatricesFit): two workers then take
	// turns.
	require.True(t, res.MatricesOnGPU)
	witnessBus := (int64(130_169_893) + 328) * 32 // aux and inputs (ONE among them), 32 B each
	assert.Equal(t, witnessBus, res.PartitionBusBytes, "resident, a, b, c on the GPU: only the witness crosses the bus")
	two := cfg
	two.WorkersPerDevice = 2
	two.DeviceMemoryLimit = res.VRAMBytes + 1<<20 // one worker's need, and a little
	tight, err := gpuc2.Requirements(t32, two)
	require.NoError(t, err)
	assert.Equal(t, gpu.ModeResident, tight.Mode)
	assert.True(t, tight.MatricesOnGPU, "the device evaluates a, b, c with one proof beside the key")
	assert.Equal(t, 1, tight.ProofsPerGPU, "room for one proof beside the key: the two workers take turns")
	assert.Equal(t, res.VRAMBytes, tight.VRAMBytes, "the key, the matrices and one working set")
	two.DeviceMemoryLimit = res.VRAMBytes - 16<<20
	tighter, err := gpuc2.Requirements(t32, two)
	require.NoError(t, err)
	assert.False(t, tighter.MatricesOnGPU, "no room for them beside the key and one proof")
	for _, limit := range []int64{16 << 30, 24 << 30} {
		cfg.DeviceMemoryLimit = limit
		st, err := gpuc2.Requirements(t32, cfg)
		require.NoError(t, err)
		t.Logf("limit %d GiB: %s, a proof %.1f GiB of VRAM (least limit %.1f GiB), pinned %.1f GiB, host %.1f GiB",
			limit>>30, st.Mode, float64(st.ProofVRAMBytes)/(1<<30), float64(st.LeastDeviceMemory)/(1<<30),
			float64(st.PinnedBytes)/(1<<30), float64(st.HostBytes)/(1<<30))
		assert.Equal(t, gpu.ModeStreaming, st.Mode)
		assert.LessOrEqual(t, st.VRAMBytes, limit)
		assert.Equal(t, 1, st.ProofsPerGPU, "one worker")
		// Two workers prove at once where the limit holds two proofs, and take
		// turns where it holds one; the VRAM stays within the limit either way.
		cfg2 := cfg
		cfg2.WorkersPerDevice = 2
		st2, err := gpuc2.Requirements(t32, cfg2)
		require.NoError(t, err)
		assert.Equal(t, map[int64]int{16 << 30: 1, 24 << 30: 2}[limit], st2.ProofsPerGPU)
		working := int64(st2.ProofsPerGPU) * st2.ProofVRAMBytes
		if st2.ProofsPerGPU == 1 && st2.MatricesOnGPU {
			// The other worker's witness, reserved ahead once the proof
			// has given back its h MSM's memory, where it fits.
			assert.GreaterOrEqual(t, st2.VRAMBytes, working)
			assert.LessOrEqual(t, st2.VRAMBytes-working, witnessBus, "at most one witness ahead")
		} else {
			assert.Equal(t, working, st2.VRAMBytes)
		}
		assert.LessOrEqual(t, st2.VRAMBytes, limit)
		counts := groth16.SectionCounts{H: 134_217_727, L: 130_169_893, A: 129_753_620, B: 33_112_282} // FILECOIN-C2-FACTS §5
		pinned := int64(gpu.UploadStagingBytes) + groth16.KeyBytes(counts)                             // one worker
		switch limit {
		case 16 << 30:
			// One streamed proof at a time either way: it may hold its
			// witness, and a, b, c are evaluated on the GPU from matrices
			// pinned on the host.
			assert.True(t, st.MatricesOnGPU, "auto: matrices streamed where they cost no overlap")
			assert.InEpsilon(t, 5.90e9, float64(st.MatricesBytes), 0.01)
			witness := gpu.PinnedWitnessBytes(synth.Sizes{Aux: 130_169_893})
			rest := st.PinnedBytes - pinned - gpu.PinnedMatricesBytes(st.MatricesBytes)
			assert.Positive(t, rest/witness)
			assert.Zero(t, rest%witness, "the key, the matrices and the witnesses' aux pinned on the host")
			assert.Greater(t, st.HostBytes, st.ParamsBytes+st.MatricesLoadBytes, "the key beside the matrices' first load")
			assert.Less(t, st.LeastDeviceMemory, st.ProofVRAMBytes, "the witness held besides")
			assert.Less(t, st.PartitionHostBytes, int64(4<<30), "a partition holds its witness alone")
			assert.Equal(t, groth16.KeyBytes(counts)+witnessBus+st.MatricesBytes, st.PartitionBusBytes,
				"the key, the witness and the matrices cross the bus")
		case 24 << 30:
			// Two plain streamed proofs fit, but one holding its witness.
			assert.False(t, st.MatricesOnGPU)
			assert.Zero(t, st.MatricesBytes, "auto: no matrices where they would cost the GPU its overlap")
			assert.Equal(t, st.LeastDeviceMemory, st.ProofVRAMBytes, "one worker: the least limit is its proof")
			assert.Equal(t, groth16.KeyBytes(counts)+witnessBus+3*int64(res.Constraints)*32, st.PartitionBusBytes,
				"the key, the witness and a, b, c over the rows cross the bus")
			perAssignment := (int64(130_169_893) + 3<<27) * 32 // aux, and a, b, c over the domain
			assignments := (st.PinnedBytes - pinned) / perAssignment
			assert.Positive(t, assignments)
			assert.Zero(t, (st.PinnedBytes-pinned)%perAssignment,
				"the key and the full assignments' aux, a, b, c pinned on the host: c needs no stage")
			assert.Greater(t, st.HostBytes, st.ParamsBytes+assignments*perAssignment)

			// MatricesOn: a, b, c evaluated on the host into the heap, so
			// the GPU stages c in pinned memory; only the witnesses' aux is
			// pinned.
			on := cfg
			on.ConstraintMatrices = gpuc2.MatricesOn
			hm, err := gpuc2.Requirements(t32, on)
			require.NoError(t, err)
			assert.False(t, hm.MatricesOnGPU)
			stage := gpu.StreamingStageBytes(int(hm.Domain))
			witness := gpu.PinnedWitnessBytes(synth.Sizes{Aux: 130_169_893})
			rest := hm.PinnedBytes - pinned - stage
			assert.Positive(t, rest/witness)
			assert.Zero(t, rest%witness, "the key, c's stage and the witnesses' aux pinned on the host")
		}
		assert.Equal(t, st.HostBytes, st.PreloadedHostBytes, "a pinned key stays on the host")
	}
	cfg.DeviceMemoryLimit = res.LeastDeviceMemory - 1
	_, err = gpuc2.Requirements(t32, cfg)
	require.ErrorIs(t, err, gpuc2.ErrOutOfDeviceMemory)
	assert.Contains(t, err.Error(), fmt.Sprint(res.LeastDeviceMemory), "names the least limit")
}

func TestRequirements(t *testing.T) {
	small, err := gpuc2.Requirements(abi.RegisteredSealProof_StackedDrg2KiBV1_1, gpuc2.Config{ParamsDir: t.TempDir(), Backend: gpuc2.BackendCPU})
	require.NoError(t, err)
	assert.Equal(t, 1, small.Partitions)
	assert.Equal(t, int64(1<<22), small.Domain)
	assert.Greater(t, small.PartitionHostBytes, int64(512<<20), "a, b, c, h over 2^22 rows")
	assert.Less(t, small.PartitionHostBytes, int64(1<<30))
	assert.Greater(t, small.HostBytes, small.PartitionHostBytes+small.ParamsBytes)
	assert.False(t, small.ParamsExact)
	assert.Zero(t, small.GPUs)
	assert.Zero(t, small.VRAMBytes)
	assert.Zero(t, small.PinnedBytes)
	assert.Zero(t, small.PartitionBusBytes)
	assert.Zero(t, small.MatricesBytes, "auto: no matrices on the CPU")
	cacheDir := t.TempDir() // no cached matrices: the first proof records them
	on, err := gpuc2.Requirements(abi.RegisteredSealProof_StackedDrg2KiBV1_1, gpuc2.Config{ParamsDir: t.TempDir(), Backend: gpuc2.BackendCPU,
		ConstraintMatrices: gpuc2.MatricesOn, MatricesCacheDir: cacheDir})
	require.NoError(t, err)
	assert.InEpsilon(t, 121.9e6, float64(on.MatricesBytes), 0.02, "the 2 KiB circuit's (synth/pce)")
	assert.False(t, on.MatricesOnGPU)
	assert.Equal(t, small.PartitionHostBytes, on.PartitionHostBytes, "a, b, c evaluated on the host")
	assert.Equal(t, small.HostBytes+on.MatricesBytes, on.HostBytes)
	assert.Zero(t, small.MatricesLoadBytes, "no matrices, nothing to record")
	sizes2KiB := circuitSizes(t, abi.RegisteredSealProof_StackedDrg2KiBV1_1)
	assert.Equal(t, stacked.MatricesProfile.RecordingBytes(sizes2KiB), on.MatricesLoadBytes, "no cached file: a recording")
	cacheFile(t, cacheDir, abi.RegisteredSealProof_StackedDrg2KiBV1_1)
	cached, err := gpuc2.Requirements(abi.RegisteredSealProof_StackedDrg2KiBV1_1, gpuc2.Config{ParamsDir: t.TempDir(), Backend: gpuc2.BackendCPU,
		ConstraintMatrices: gpuc2.MatricesOn, MatricesCacheDir: cacheDir})
	require.NoError(t, err)
	assert.Equal(t, groth16.AssignmentBytes(sizes2KiB)+on.MatricesBytes, cached.MatricesLoadBytes,
		"a cached file: its check, a full synthesis beside the matrices")

	// An H200's limit, given: the default, the first GPU's free memory at
	// the time (none without a GPU), made the figures the machine's (on an
	// H100 the plan did not place the matrices beside the key).
	cfg := gpuc2.Config{ParamsDir: t.TempDir(), Backend: gpuc2.BackendCUDA, MatricesCacheDir: cacheDir, DeviceMemoryLimit: 130 << 30}
	big, err := gpuc2.Requirements(abi.RegisteredSealProof_StackedDrg32GiBV1_1, cfg)
	require.NoError(t, err)
	assert.Equal(t, 10, big.Partitions)
	assert.Equal(t, int64(1<<27), big.Domain)
	assert.Equal(t, 130_278_869, big.Constraints)
	assert.InEpsilon(t, 47.4e9, float64(big.ParamsBytes), 0.01, "the published 32 GiB .params size")
	assert.Greater(t, big.VRAMBytes, int64(40<<30), "the SRS and a working set")
	assert.Less(t, big.VRAMBytes, int64(141e9), "fits one H200")
	assert.Equal(t, 1, big.GPUs)
	assert.Greater(t, big.HostBytes, big.ParamsBytes+big.PartitionHostBytes)
	require.True(t, big.MatricesOnGPU)
	witness := gpu.PinnedWitnessBytes(synth.Sizes{Aux: 130_169_893})
	rest := big.PinnedBytes - gpu.UploadStagingBytes
	assert.Positive(t, rest/witness)
	assert.Zero(t, rest%witness, "one worker's upload staging and the witnesses' aux, synthesized into pinned memory")
	counts := groth16.SectionCounts{H: 134_217_727, L: 130_169_893, A: 129_753_620, B: 33_112_282} // FILECOIN-C2-FACTS §5
	assert.InEpsilon(t, 12.88e9, float64(groth16.LargestSectionBytes(counts)), 0.01, "h's 2^27-1 G1 points")
	assert.GreaterOrEqual(t, big.PreloadedHostBytes, groth16.LargestSectionBytes(counts)+big.MatricesLoadBytes,
		"preloaded onto the GPU, the parameters are on the host one section at a time while they load, the matrices' load beside them")
	assert.Less(t, big.PreloadedHostBytes+big.ParamsBytes/2, big.HostBytes, "without Preload the first proof holds the key")
	// The constraint matrices (5.90 GB at 32 GiB, synth/pce) fit beside the
	// key: a partition then holds only its witness on the host.
	assert.InEpsilon(t, 5.90e9, float64(big.MatricesBytes), 0.01)
	assert.True(t, big.MatricesOnGPU)
	aux := int64(130_169_893) // FILECOIN-C2-FACTS §5 (the l section)
	assert.True(t, big.PartitionHostBytes > aux*32 && big.PartitionHostBytes < (aux+1000)*32,
		"the witness: aux and a few inputs, 32 bytes each (%d)", big.PartitionHostBytes)
	full := cfg
	full.ConstraintMatrices = gpuc2.MatricesOff
	noMatrices, err := gpuc2.Requirements(abi.RegisteredSealProof_StackedDrg32GiBV1_1, full)
	require.NoError(t, err)
	assert.Zero(t, noMatrices.MatricesBytes)
	assert.False(t, noMatrices.MatricesOnGPU)
	assert.Greater(t, noMatrices.PartitionHostBytes, 4*big.PartitionHostBytes, "a, b, c and the quotient's scratch besides")
	// The first proof records the matrices (no cached file), 19.1 GB; a
	// cached file it checks against a full synthesis of a partition, the
	// assignment (17.1 GB) beside the matrices read back.
	assert.InEpsilon(t, 19.1e9, float64(big.MatricesLoadBytes), 0.01)
	cacheFile(t, cacheDir, abi.RegisteredSealProof_StackedDrg32GiBV1_1)
	bigCached, err := gpuc2.Requirements(abi.RegisteredSealProof_StackedDrg32GiBV1_1, cfg)
	require.NoError(t, err)
	assert.InEpsilon(t, 22.9e9, float64(bigCached.MatricesLoadBytes), 0.01)
	require.NoError(t, os.RemoveAll(cacheDir))
	assert.Zero(t, noMatrices.MatricesLoadBytes)
	assert.Less(t, big.PreloadedHostBytes, big.HostBytes)
	assert.Equal(t, small.HostBytes, small.PreloadedHostBytes, "the CPU keeps the parameters on the host")
	// NI-PoRep: the same circuit and key, 126 partitions; the pipeline holds
	// as many working sets at once as for 10.
	ni, err := gpuc2.Requirements(abi.RegisteredSealProof_StackedDrg32GiBV1_2_Feat_NiPoRep, cfg)
	require.NoError(t, err)
	assert.Equal(t, 126, ni.Partitions)
	niSame := ni
	niSame.Partitions = big.Partitions
	assert.Equal(t, big, niSame)
	cfg.WorkersPerDevice = 2
	cfg.HostMemoryBudget = 1 << 40 // not this machine's: the budget caps the working sets below
	two, err := gpuc2.Requirements(abi.RegisteredSealProof_StackedDrg32GiBV1_1, cfg)
	require.NoError(t, err)
	t.Logf("32 GiB, cuda, 2 workers: host %.1f GiB, preloaded %.1f GiB (the first proof %.1f GiB more), VRAM %.1f GiB",
		float64(two.HostBytes)/(1<<30), float64(two.PreloadedHostBytes)/(1<<30), float64(two.MatricesLoadBytes)/(1<<30),
		float64(two.VRAMBytes)/(1<<30))
	assert.Greater(t, two.VRAMBytes, big.VRAMBytes)
	cfg.HostMemoryBudget = 1 << 30
	capped, err := gpuc2.Requirements(abi.RegisteredSealProof_StackedDrg32GiBV1_1, cfg)
	require.NoError(t, err)
	assert.Less(t, capped.HostBytes, two.HostBytes, "the budget caps the working sets")
	// With one working set at a time the preload's phase is the larger:
	// the largest section and the matrices' load (a recording, with one
	// witness made meanwhile) at once.
	assert.GreaterOrEqual(t, capped.PreloadedHostBytes, groth16.LargestSectionBytes(counts)+capped.MatricesLoadBytes+capped.PartitionHostBytes,
		"the matrices load beside the key's preload")

	// A parameter file present gives its exact size (even of another circuit).
	dir := t.TempDir()
	params := writeKey(t, dir, name2KiB)
	r, err := gpuc2.Requirements(abi.RegisteredSealProof_StackedDrg2KiBV1_1, gpuc2.Config{ParamsDir: dir})
	require.NoError(t, err)
	st, err := os.Stat(params)
	require.NoError(t, err)
	assert.True(t, r.ParamsExact)
	assert.Equal(t, st.Size(), r.ParamsBytes)

	_, err = gpuc2.Requirements(abi.RegisteredSealProof(99), gpuc2.Config{})
	assert.ErrorIs(t, err, gpuc2.ErrBadInput)
}

// circuitSizes is t's partition circuit's sizes.
func circuitSizes(t *testing.T, spt abi.RegisteredSealProof) synth.Sizes {
	cp, err := porep.CircuitParams(spt)
	require.NoError(t, err)
	return cp.Sizes()
}

// cacheFile puts a (bad) cached matrices file of t's circuit in dir, named
// as the facade names it: Requirements sees one there.
func cacheFile(t *testing.T, dir string, spt abi.RegisteredSealProof) {
	sz := circuitSizes(t, spt)
	name := fmt.Sprintf("%s-%d-%d-%d.pce", porep.ProofName(spt), sz.Inputs, sz.Aux, sz.Rows)
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644))
}
