package gpu_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/groth16/gpu"
	"github.com/gpuc2/gpuc2/internal/testcircuit"
	"github.com/gpuc2/gpuc2/native"
	"github.com/gpuc2/gpuc2/synth"
)

func TestCUDAProverNeedsLibrary(t *testing.T) {
	if gpu.CUDAAvailable() {
		t.Skip("the native library is loaded")
	}
	_, err := gpu.Open(gpu.Config{Ordinals: []int{0}})
	assert.ErrorIs(t, err, gpu.ErrCUDAUnavailable)
}

// A Device not made by Open refuses work instead of panicking.
func TestCUDAProverZeroValue(t *testing.T) {
	pk := setup(t, &testcircuit.Chain{N: 10, Seed: 1, Inputs: 1}, 1)
	var p gpu.Device
	_, err := groth16.Prove(context.Background(), &p, pk, &testcircuit.Chain{N: 10, Seed: 1, Inputs: 1})
	assert.ErrorIs(t, err, groth16.ErrInvalidInput)
	assert.ErrorIs(t, p.Preload(context.Background(), pk), groth16.ErrInvalidInput)
	p.Evict(pk)
	assert.NoError(t, p.Close())
	assert.Zero(t, p.Metrics())
}

// gpuDevices skips the test without a GPU and opens device 0 under cfg
// (its Ordinals unset), closed when the test ends.
func gpuDevices(t *testing.T, cfg gpu.Config) *gpu.Devices {
	t.Helper()
	if !gpu.CUDAAvailable() {
		t.Skip("no native CUDA library")
	}
	cfg.Ordinals = []int{0}
	devs, err := gpu.Open(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = devs.Close() })
	return devs
}

// gpuProver skips the test without a GPU and returns device 0's prover
// under cfg (its Ordinals unset), closed when the test ends.
func gpuProver(t *testing.T, cfg gpu.Config) *gpu.Device {
	t.Helper()
	return gpuDevices(t, cfg).Device(0)
}

// gpuProverBeside returns another prover of p's device under cfg (its
// Ordinals unset) that shares p's pinned host memory, as the devices of
// one process do, closed when the test ends.
func gpuProverBeside(t *testing.T, p *gpu.Device, cfg gpu.Config) *gpu.Device {
	t.Helper()
	q, err := p.OpenBeside(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = q.Close() })
	return q
}

// On a GPU, the CUDA prover's proofs equal the CPU prover's byte for byte
// when both use the same r and s.
func TestCUDAProverEqualsCPU(t *testing.T) {
	p := gpuProver(t, gpu.Config{})
	var r, s fr.Element
	r.SetUint64(0xdeadbeef)
	s.SetUint64(0xfeedface)
	circuits := []synth.Circuit{
		&testcircuit.Cubic{X: r},
		&testcircuit.Chain{N: 1000, Seed: 3, Inputs: 3},
		&testcircuit.Chain{N: 1 << 16, Seed: 4, Inputs: 5},
	}
	for i, c := range circuits {
		pk := setup(t, c, byte(20+i))
		want := prove(t, pk, c, groth16.WithRandomness(r, s))
		got, err := groth16.Prove(context.Background(), p, pk, c, groth16.WithRandomness(r, s))
		require.NoError(t, err, "circuit %d", i)
		wb, _ := want.MarshalBinary()
		gb, _ := got.MarshalBinary()
		assert.Equal(t, wb, gb, "circuit %d", i)
	}
	require.NoError(t, p.Close())
	assert.Zero(t, p.Metrics().ReservedBytes, "every reservation released, resident keys included")
	_, err := groth16.Prove(context.Background(), p, setup(t, circuits[0], 20), circuits[0])
	assert.ErrorIs(t, err, gpu.ErrClosed)
}

// The streaming path (key kept in host memory) gives the same proofs.
func TestCUDAProverStreamingEqualsCPU(t *testing.T) {
	p := gpuProver(t, gpu.Config{NoResident: true})
	rs := randomness(11, 12)
	c := &testcircuit.Chain{N: 5000, Seed: 5, Inputs: 2}
	pk := setup(t, c, 30)
	want := prove(t, pk, c, rs)
	got, err := groth16.Prove(context.Background(), p, pk, c, rs)
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

// A full assignment synthesized into PinnedVectors' memory (aux,
// a, b, c, with room for the input rows) proves as one on the heap,
// resident and streamed: every vector uploaded by one DMA (the upload
// reports say so), c without the streaming path's stage.
func TestCUDAProverPinnedAssignment(t *testing.T) {
	for name, cfg := range map[string]gpu.Config{"resident": {}, "streaming": {NoResident: true}} {
		t.Run(name, func(t *testing.T) {
			devs := gpuDevices(t, cfg)
			p := devs.Device(0)
			ctx := context.Background()
			c := &testcircuit.Chain{N: 3000, Seed: 6, Inputs: 3}
			pk := setup(t, c, 31)
			rs := randomness(17, 19)
			heap := synth.NewProvingAssignment(synth.Sizes{})
			require.NoError(t, c.Synthesize(ctx, heap))
			rows := heap.NumRows() + len(heap.Inputs) // and the input rows the prover appends
			pv := devs.Vectors()
			alloc := func(n int) []fr.Element {
				v, err := pv.Alloc(n)
				require.NoError(t, err)
				t.Cleanup(func() { assert.NoError(t, pv.Free(v)) })
				return v
			}
			v := synth.Vectors{Aux: alloc(len(heap.Aux)), A: alloc(rows), B: alloc(rows), C: alloc(rows)}
			w := synth.NewProvingAssignmentIn(synth.Sizes{}, v)
			require.NoError(t, c.Synthesize(ctx, w))
			var flags []string
			staged := 0
			phases := groth16.WithPhases(func(name string, _, _ time.Time, args ...any) {
				if name == "stage_c" {
					staged++
				}
				for i := 0; name == "upload" && i+1 < len(args); i += 2 {
					if k, _ := args[i].(string); strings.HasPrefix(k, "pinned_") {
						flags = append(flags, fmt.Sprint(k, "=", args[i+1]))
					}
				}
			})
			got, err := p.Prove(ctx, pk, w, rs, phases)
			require.NoError(t, err)
			assert.Equal(t, prove(t, pk, c, rs), got)
			require.Same(t, &v.C[:1][0], &w.C[0], "c in its pinned vector, the input rows too")
			assert.Zero(t, staged, "c is not copied into the stage")
			require.NotEmpty(t, flags)
			for _, f := range flags {
				assert.True(t, strings.HasSuffix(f, "=true"), "uploaded by one DMA: %s", f)
			}
		})
	}
}

// Several workers proving on one device at once, each on its own stream
// through the gate, all get the CPU prover's proof.
func TestCUDAProverWorkersEqualCPU(t *testing.T) {
	p := gpuProver(t, gpu.Config{})
	rs := randomness(21, 22)
	c := &testcircuit.Chain{N: 1 << 15, Seed: 6, Inputs: 4}
	pk := setup(t, c, 31)
	want := prove(t, pk, c, rs)
	require.NoError(t, p.Preload(context.Background(), pk))
	const workers = 3
	var wg sync.WaitGroup
	got := make([]*groth16.Proof, workers*2)
	errs := make([]error, workers*2)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = groth16.Prove(context.Background(), p, pk, c, rs)
		}()
	}
	wg.Wait()
	for i := range got {
		require.NoError(t, errs[i])
		assert.Equal(t, want, got[i], "proof %d", i)
	}
	m := p.Metrics()
	assert.Equal(t, groth16.KeyBytes(pk.Counts()), m.ReservedBytes, "only the resident key stays reserved")
	assert.Positive(t, m.ComputeAcquisitions)
	require.NoError(t, p.Close())
	assert.Zero(t, p.Metrics().ReservedBytes, "Close releases the key's reservation")
}

// gpuCancelBound is how soon a GPU proof must return once cancelled: the
// prover checks its context between kernels and copies, and at this test's
// size no kernel or copy takes a millisecond.
const gpuCancelBound = 50 * time.Millisecond

// 250 proofs in a loop, every fifth (50) cancelled at a moment drawn
// uniformly over a whole proof's time, return within gpuCancelBound of the
// cancel and leave no device memory, no reservation and no goroutine behind.
func TestCUDAProverCancelLoop(t *testing.T) {
	p := gpuProver(t, gpu.Config{})
	c := &testcircuit.Chain{N: 1 << 14, Seed: 7, Inputs: 2}
	pk := setup(t, c, 32)
	require.NoError(t, p.Preload(context.Background(), pk))
	start := time.Now()
	_, err := groth16.Prove(context.Background(), p, pk, c) // warm, and a proof's length
	require.NoError(t, err)
	whole := time.Since(start)
	used0, _, err := native.PoolInfo(0)
	require.NoError(t, err)
	goroutines := runtime.NumGoroutine()
	rng := rand.New(rand.NewPCG(7, 7))
	var late []time.Duration
	for i := range 250 {
		ctx, cancel := context.WithCancel(context.Background())
		var cancelledAt atomic.Int64
		if i%5 == 0 {
			time.AfterFunc(time.Duration(rng.Int64N(int64(whole))), func() {
				cancelledAt.Store(time.Now().UnixNano())
				cancel()
			})
		}
		proof, err := groth16.Prove(ctx, p, pk, c)
		returned := time.Now().UnixNano()
		cancel()
		if err != nil {
			require.ErrorIs(t, err, context.Canceled, "proof %d", i)
			require.Zero(t, i%5, "only every fifth proof is cancelled")
			d := time.Duration(returned - cancelledAt.Load())
			assert.LessOrEqual(t, d, gpuCancelBound, "proof %d returned %v after its cancel", i, d)
			late = append(late, d)
			continue
		}
		ok, err := groth16.Verify(pk.VerifyingKey(), proof, c.PublicInputs())
		require.NoError(t, err)
		require.True(t, ok, "proof %d verifies", i)
	}
	slices.Sort(late)
	q := func(f float64) time.Duration { return late[min(len(late)-1, int(f*float64(len(late))))] }
	if len(late) > 0 {
		t.Logf("%d of 50 cancellations hit a running proof (a proof: %v); latency min %v median %v p90 %v max %v",
			len(late), whole, q(0), q(0.5), q(0.9), q(1))
	}
	used1, held, err := native.PoolInfo(0)
	require.NoError(t, err)
	assert.Equal(t, used0, used1, "pool memory in use before and after (pool holds %d bytes for reuse)", held)
	assert.Equal(t, groth16.KeyBytes(pk.Counts()), p.Metrics().ReservedBytes)
	// A slack of 2 for goroutines the runtime starts once, lazily (the
	// profile below showed none of the library's); a leak per cancelled
	// proof would add dozens.
	if !assert.Eventually(t, func() bool { return runtime.NumGoroutine() <= goroutines+2 }, 5*time.Second, 10*time.Millisecond,
		"goroutines back to %d (+2), now %d", goroutines, runtime.NumGoroutine()) {
		var b strings.Builder
		_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
		t.Log(b.String())
	}
	require.NoError(t, p.Close())
	assert.Zero(t, p.Metrics().ReservedBytes)
}

// A memory limit below the key's resident need makes the device stream the
// key from pinned host memory: its proofs equal the CPU prover's for the
// same r and s, and the device's pool never holds more than the limit.
func TestCUDAProverMemoryLimitStreams(t *testing.T) {
	if !gpu.CUDAAvailable() {
		t.Skip("no native CUDA library")
	}
	circuits := []*testcircuit.Chain{{N: 1 << 14, Seed: 7, Inputs: 3}}
	if !testing.Short() {
		circuits = append(circuits, &testcircuit.Chain{N: 1 << 18, Seed: 8, Inputs: 5})
	}
	rs := randomness(31, 32)
	for i, c := range circuits {
		pk := setup(t, c, byte(40+i))
		counts := pk.Counts()
		m := counts.H + 1
		limit := gpu.StreamingProofBytes(counts, m, counts.L, len(pk.VerifyingKey().IC))
		plan, err := gpu.NewPlan(limit, gpu.Shape{Counts: counts, Inputs: len(pk.VerifyingKey().IC)}, gpu.PlanOptions{})
		require.NoError(t, err)
		mode := plan.Mode
		// A key this small may fit resident in a streamed proof's room:
		// then NoResident makes the device stream it.
		p := gpuProver(t, gpu.Config{MemoryLimit: limit, NoResident: mode == gpu.ModeResident})
		require.Equal(t, limit, p.MemoryLimit())
		want := prove(t, pk, c, rs)
		got, peak := proveWithPeak(t, func() (*groth16.Proof, error) {
			return groth16.Prove(context.Background(), p, pk, c, rs)
		})
		assert.Equal(t, want, got, "circuit %d", i)
		assert.Equal(t, gpu.ModeStreaming, p.Mode(pk))
		t.Logf("2^%d: limit %d MiB (%s by the plan), pool peak %d MiB", bitsLen(m), limit>>20, mode, peak>>20)
		assert.LessOrEqual(t, int64(peak), limit, "the pool's high-water mark within the limit")
		require.NoError(t, p.Close())
		assert.Zero(t, p.Metrics().ReservedBytes)
	}
	_, err := gpu.Open(gpu.Config{Ordinals: []int{0}, MemoryLimit: 1 << 60})
	assert.ErrorIs(t, err, groth16.ErrInvalidInput, "a limit above the device's memory")
}

// Under a limit that holds one streamed proof at a time, a device runs the
// aux MSMs beside the same proof's h MSM (the phase aux_beside), with the
// witness's a, b, c from the host or from matrices: the proofs equal the
// CPU prover's, and the pool stays within the limit.
func TestCUDAProverAuxBeside(t *testing.T) {
	if !gpu.CUDAAvailable() {
		t.Skip("no native CUDA library")
	}
	ctx := context.Background()
	c := &testcircuit.Chain{N: 1 << 14, Seed: 12, Inputs: 3}
	pk, ms := setup(t, c, 50), compile(t, c)
	counts := pk.Counts()
	rs := randomness(41, 42)
	want := prove(t, pk, c, rs)
	for _, withABC := range []bool{false, true} {
		t.Run(fmt.Sprintf("matrices=%v", withABC), func(t *testing.T) {
			limit, ok := gpu.BesideLimit(counts, counts.H+1, counts.L, len(pk.VerifyingKey().IC), withABC)
			require.True(t, ok, "some limit runs the aux MSMs beside")
			p := gpuProver(t, gpu.Config{MemoryLimit: limit, NoResident: true})
			beside := 0
			phases := groth16.WithPhases(func(name string, _, _ time.Time, _ ...any) {
				if name == "aux_beside" {
					beside++
				}
			})
			got, peak := proveWithPeak(t, func() (*groth16.Proof, error) {
				if withABC {
					return p.Prove(ctx, pk, witness(t, c), groth16.WithMatrices(ms), rs, phases)
				}
				return groth16.Prove(ctx, p, pk, c, rs, phases)
			})
			assert.Equal(t, want, got)
			assert.Equal(t, 1, beside, "the aux MSMs ran beside the h MSM")
			t.Logf("limit %d MiB, pool peak %d MiB", limit>>20, peak>>20)
			assert.LessOrEqual(t, int64(peak), limit, "the pool's high-water mark within the limit")
		})
	}
}

// proveWithPeak runs prove, which must succeed, and returns its proof and
// device 0's pool high-water mark meanwhile.
func proveWithPeak(t *testing.T, prove func() (*groth16.Proof, error)) (*groth16.Proof, uint64) {
	t.Helper()
	_, err := native.PoolPeakSince(0) // a new interval
	require.NoError(t, err)
	got, err := prove()
	require.NoError(t, err)
	peak, err := native.PoolPeakSince(0)
	require.NoError(t, err)
	return got, peak
}

// A streaming Preload readies c's pinned stage unless NoVectorStage says
// the proofs' c will not need it; a proof whose c is on the heap after all
// then allocates the stage itself, and equals the CPU's.
func TestCUDAProverNoVectorStage(t *testing.T) {
	ctx := context.Background()
	c := &testcircuit.Chain{N: 5000, Seed: 9, Inputs: 2}
	pk := setup(t, c, 33)
	stage := gpu.StreamingStageBytes(pk.Counts().H + 1)
	without := gpuProver(t, gpu.Config{NoResident: true})
	require.NoError(t, without.Preload(ctx, pk, gpu.NoVectorStage())) // pins the key, once per process
	before := gpu.PinnedHostBytes()
	with := gpuProverBeside(t, without, gpu.Config{NoResident: true}) // another device of the process
	require.NoError(t, with.Preload(ctx, pk))
	assert.Equal(t, stage, gpu.PinnedHostBytes()-before, "the stage alone: the key was pinned already")

	rs := randomness(21, 22)
	got, err := groth16.Prove(ctx, without, pk, c, rs)
	require.NoError(t, err)
	assert.Equal(t, prove(t, pk, c, rs), got)
	assert.Greater(t, gpu.PinnedHostBytes()-before, stage, "c on the heap: the proof made a stage")
}

func bitsLen(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}

// Preload of a file-backed key leaves its decoded host sections as the
// options say: every section stays without one; none once it is on the
// device with DropHostSections, or when two provers (two devices' of a
// process; here both on device 0) preload it at once sharing them
// (ShareHostSections). The proofs with the uploaded key equal the CPU's.
func TestCUDAProverPreloadHostSections(t *testing.T) {
	ctx := context.Background()
	c := &testcircuit.Chain{N: 1000, Seed: 3, Inputs: 3}
	mem := setup(t, c, 23)
	path := filepath.Join(t.TempDir(), "key.params")
	require.NoError(t, groth16.WriteParams(path, mem))
	rs := randomness(17, 19)
	want := prove(t, mem, c, rs)
	for _, how := range []string{"keep", "drop", "share"} {
		t.Run(how, func(t *testing.T) {
			ps := []*gpu.Device{gpuProver(t, gpu.Config{})}
			var opts []gpu.PreloadOption
			switch how {
			case "drop":
				opts = append(opts, gpu.DropHostSections())
			case "share":
				ps = append(ps, gpuProverBeside(t, ps[0], gpu.Config{}))
				opts = append(opts, gpu.ShareHostSections(gpu.NewHostSections(len(ps))))
			}
			pk, err := groth16.OpenProvingKey(path)
			require.NoError(t, err)
			t.Cleanup(func() { _ = pk.Close() })
			errs := make(chan error, len(ps))
			for _, p := range ps {
				go func() { errs <- p.Preload(ctx, pk, opts...) }()
			}
			for range ps {
				require.NoError(t, <-errs)
			}
			for sec := range 5 {
				assert.Equal(t, how == "keep", pk.EvictSection(sec), "section %d decoded on the host", sec)
			}
			for i, p := range ps {
				assert.Equal(t, gpu.ModeResident, p.Mode(pk), "prover %d", i)
				got, err := groth16.Prove(ctx, p, pk, c, rs)
				require.NoError(t, err)
				assert.Equal(t, want, got, "prover %d", i)
			}
		})
	}
}

// A key preloaded with SetAsideProof holds one of its proofs' memory
// beside it: with every other byte reserved, an urgent proof (priority 2)
// proves at once and equals the CPU's, while one of the default priority
// waits. A key preloaded later that fits only without the aside takes its
// room: serving every key comes before an urgent proof's wait.
func TestCUDAProverSetAsideProof(t *testing.T) {
	probe := gpuProver(t, gpu.Config{})
	c := &testcircuit.Chain{N: 1000, Seed: 7, Inputs: 2}
	c2 := &testcircuit.Chain{N: 1000, Seed: 8, Inputs: 2}
	pk, pk2 := setup(t, c, 50), setup(t, c2, 51)
	key, proof := groth16.KeyBytes(pk.Counts()), probe.ResidentProofBytes(pk)
	require.Equal(t, key, groth16.KeyBytes(pk2.Counts()))
	limit := 2*key + 2*proof - 1 // pk, its aside and its proof; pk2 and its proof only without the aside
	p := gpuProver(t, gpu.Config{MemoryLimit: limit})
	ctx := context.Background()
	require.NoError(t, p.Preload(ctx, pk, gpu.SetAsideProof()))
	require.Equal(t, proof, p.SetAsideBytes())

	release, err := p.ReserveFree(ctx)
	require.NoError(t, err)
	rs := randomness(51, 52)
	soon, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	got, err := groth16.Prove(soon, p, pk, c, rs, groth16.WithPriority(2))
	require.NoError(t, err, "the urgent proof in the memory set aside")
	assert.Equal(t, prove(t, pk, c, rs), got)
	short, cancelShort := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancelShort()
	_, err = groth16.Prove(short, p, pk, c, rs)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "a default proof waits for the memory reserved")
	release()

	require.NoError(t, p.Preload(ctx, pk2))
	assert.Zero(t, p.SetAsideBytes(), "pk2 took the aside's room")
	onDevice, _ := p.KeyHeld(pk2)
	assert.True(t, onDevice)
	got, err = groth16.Prove(ctx, p, pk, c, rs, groth16.WithPriority(2))
	require.NoError(t, err, "the urgent proof, now in the memory free")
	assert.Equal(t, prove(t, pk, c, rs), got)
	require.NoError(t, p.Close())
	assert.Zero(t, p.Metrics().ReservedBytes)
}
