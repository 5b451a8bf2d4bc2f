package gpu_test

import (
	"context"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/groth16/gpu"
	"github.com/gpuc2/gpuc2/internal/cputime"
	"github.com/gpuc2/gpuc2/internal/testcircuit"
	"github.com/gpuc2/gpuc2/internal/testprove"
	"github.com/gpuc2/gpuc2/native"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/pce"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// On the GPU, a, b, c computed from the recorded matrices and a
// witness-only synthesis equal the prover's full synthesis exactly, for the
// 2 KiB and 8 MiB PoRep partitions (issue 18; GPUC2_ABC_SIZES, a comma list,
// names others, such as 32GiB): with the matrices on the device (resident
// key), and streamed from pinned memory in chunks as the streaming path
// does, with its chunk limits and with small ones (many chunks), each
// vector's padding zeroed.
func TestDeviceMatricesEqualSynthesis(t *testing.T) {
	if !gpu.CUDAAvailable() {
		t.Skip("no native CUDA library")
	}
	sizes := []string{"2KiB", "8MiB"}
	if env := os.Getenv("GPUC2_ABC_SIZES"); env != "" {
		sizes = strings.Split(env, ",")
	}
	for _, size := range sizes {
		t.Run(size, func(t *testing.T) {
			ctx := context.Background()
			spt, err := porep.ProofForSectorSize(size)
			require.NoError(t, err)
			c1, err := porep.SyntheticC1(ctx, spt, abi.ActorID(1000), 1, [32]byte{7})
			require.NoError(t, err)
			circuit, err := c1.Circuit(0)
			require.NoError(t, err)
			hint := circuit.Params.Sizes()
			synthesize := func(cs synth.ConstraintSystem, inputs func() int) {
				require.NoError(t, circuit.Synthesize(ctx, cs))
				synth.AppendInputRows(cs, inputs())
			}
			begin := time.Now()
			rec := synth.NewRecorder()
			synthesize(rec, func() int { return len(rec.Inputs) })
			ms, err := pce.Compile(rec)
			require.NoError(t, err)
			rec = nil
			t.Logf("%s: recorded and compiled in %v", size, time.Since(begin))
			// The synthesis each path needs, wall and CPU time (issue 18):
			// the full one (witness, a, b, c, densities) and the witness.
			timed := func(what string, cs synth.ConstraintSystem, inputs func() int) {
				begin := time.Now()
				cpu0, _ := cputime.Process()
				synthesize(cs, inputs)
				cpu1, _ := cputime.Process()
				t.Logf("%s: %s synthesis %.2f s, %.1f CPU s", size, what, time.Since(begin).Seconds(), (cpu1 - cpu0).Seconds())
			}
			full := synth.NewProvingAssignment(hint)
			timed("full", full, func() int { return len(full.Inputs) })
			wit := synth.NewWitnessAssignment(hint)
			timed("witness-only", wit, func() int { return len(wit.Inputs) })
			equal := func(how string, pad int, abc ...[]fr.Element) {
				t.Helper()
				require.Equal(t, ms.Rows(), len(full.A))
				for i, want := range [][]fr.Element{full.A, full.B, full.C} {
					got := abc[i]
					require.Len(t, got, ms.Rows()+pad)
					r := -1
					for k := range want {
						if got[k] != want[k] {
							r = k
							break
						}
					}
					require.Equal(t, -1, r, "%s: %c·w differs first at row %d", how, "ABC"[i], r)
					for k, x := range got[ms.Rows():] {
						require.True(t, x.IsZero(), "%s: %c's padding at %d is not zero", how, "ABC"[i], k)
					}
				}
			}

			begin = time.Now()
			a, b, c, bytes, err := gpu.EvalOnDevice(0, ms, wit.Inputs, wit.Aux)
			require.NoError(t, err)
			t.Logf("%s: %d rows, matrices %d bytes on the device, upload and evaluation %v", size, ms.Rows(), bytes, time.Since(begin))
			equal("resident", 0, a, b, c)
			small := min(ms.Rows()/7+1, gpu.SpMVChunkRows) // within the device's slots
			for _, lim := range []struct{ rows, terms int }{{0, 0}, {small, min(3*small, gpu.SpMVChunkTerms)}} {
				how := "streamed in small chunks"
				if lim.rows == 0 {
					lim.rows, lim.terms, how = gpu.SpMVChunkRows, gpu.SpMVChunkTerms, "streamed"
				}
				begin = time.Now()
				a, b, c, err := gpu.EvalStreamedOnDevice(0, ms, wit.Inputs, wit.Aux, lim.rows, lim.terms, 5)
				require.NoError(t, err)
				t.Logf("%s: %s (chunks of %d rows, %d terms): pinned, evaluated and read back in %v", size, how, lim.rows, lim.terms, time.Since(begin))
				equal(how, 5, a, b, c)
			}
		})
	}
}

// On a GPU: a, b, c evaluated from the matrices, resident key and
// streamed; and a witness synthesized into PinnedVectors' memory
// gives the same proof, its upload reported as from pinned memory (one DMA).
func TestCUDAProverWithMatrices(t *testing.T) {
	for name, cfg := range map[string]gpu.Config{"resident": {}, "streaming": {NoResident: true}} {
		t.Run(name, func(t *testing.T) {
			devs := gpuDevices(t, cfg)
			p := devs.Device(0)
			testprove.ProveWithMatrices(t, p, true)

			ctx := context.Background()
			c, pk, ms, rs := matricesCase(t)
			heap := witness(t, c)
			aux, err := devs.Vectors().Alloc(len(heap.Aux))
			require.NoError(t, err)
			t.Cleanup(func() { assert.NoError(t, devs.Vectors().Free(aux)) })
			w := synth.NewWitnessAssignmentIn(synth.Sizes{}, aux)
			require.NoError(t, c.Synthesize(ctx, w))
			require.Same(t, &aux[:1][0], &w.Aux[0], "synthesized into the pinned vector")
			var pinned []any
			phases := groth16.WithPhases(func(name string, _, _ time.Time, args ...any) {
				for i := 0; name == "upload" && i+1 < len(args); i += 2 {
					if args[i] == "pinned_aux" {
						pinned = append(pinned, args[i+1])
					}
				}
			})
			got, err := p.Prove(ctx, pk, w, groth16.WithMatrices(ms), rs, phases)
			require.NoError(t, err)
			assert.Equal(t, prove(t, pk, c, rs), got)
			assert.Equal(t, []any{true}, pinned, "the witness's upload, from pinned memory")

			// Matrices no device holds (compiled again: another ID) cannot be
			// copied to it without their arrays.
			_, err = p.Prove(ctx, pk, witness(t, c), groth16.WithMatrices(compile(t, c).WithoutArrays()), rs)
			assert.ErrorIs(t, err, groth16.ErrInvalidInput)
			assert.ErrorIs(t, err, pce.ErrNoArrays)
		})
	}
}

// On a GPU whose limit leaves room beside the resident key and matrices
// for one proof, and for a second one's witness only once the first has
// given back b and c after H (an H100's case at 32 GiB), three workers'
// proofs each reserve their witness ahead of the rest: a worker's upload
// overlaps another's compute, the ledger never passes the limit, and every
// proof equals the CPU's.
func TestCUDAProverUploadAhead(t *testing.T) {
	ctx := context.Background()
	c := &testcircuit.Chain{N: 1 << 16, Seed: 9, Inputs: 4}
	pk := setup(t, c, 41)
	ms := compile(t, c)
	rs := randomness(23, 24)
	want := prove(t, pk, c, rs)
	plan, err := gpu.NewPlan(0, gpu.ShapeOf(pk), gpu.PlanOptions{Workers: 3, MatricesBytes: ms.Bytes()})
	require.NoError(t, err)
	require.Positive(t, plan.UploadAheadBytes)
	limit := plan.HeldBytes + plan.ProofBytes + plan.UploadAheadBytes - 1
	devs := gpuDevices(t, gpu.Config{MemoryLimit: limit})
	resident, err := devs.Preload(ctx, pk)
	require.NoError(t, err)
	require.True(t, resident)
	placed, err := devs.PreloadMatrices(ctx, pk, ms)
	require.NoError(t, err)
	t.Logf("limit %d bytes: key and matrices %d, a proof %d (its witness %d); matrices: %+v",
		limit, plan.HeldBytes, plan.ProofBytes, plan.UploadAheadBytes, placed)
	p := devs.Device(0)
	before := p.Metrics()

	const workers, each = 3, 4
	got := make([]*groth16.Proof, workers*each)
	errs := make([]error, len(got))
	ws := make([]*synth.ProvingAssignment, len(got))
	for i := range ws {
		ws[i] = witness(t, c)
	}
	var wg sync.WaitGroup
	for wk := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := wk; i < len(got); i += workers {
				got[i], errs[i] = p.Prove(ctx, pk, ws[i], groth16.WithMatrices(ms), rs)
			}
		}()
	}
	wg.Wait()
	for i := range got {
		require.NoError(t, errs[i], "proof %d", i)
		assert.Equal(t, want, got[i], "proof %d", i)
	}
	m := p.Metrics()
	assert.Equal(t, int64(len(got)), m.UploadsAhead-before.UploadsAhead, "every proof reserved its witness ahead")
	assert.Positive(t, m.UploadComputeOverlap-before.UploadComputeOverlap, "an upload overlapped another proof's compute")
	assert.LessOrEqual(t, m.PeakReservedBytes, limit)
	assert.Equal(t, before.ReservedBytes, m.ReservedBytes, "the proofs' reservations are all back")
	t.Logf("overlap %v of %v upload; compute busy %v, reserve wait %v", m.UploadComputeOverlap, m.UploadTime, m.ComputeBusy, m.ReserveWait)
}

// Under a limit that holds one streamed proof at a time (its aux MSMs
// beside its h MSM), proofs with matrices reserve their witness ahead of
// the rest: a proof gives its h MSM's memory back while its aux MSMs run,
// and the next one's witness is reserved and uploaded then instead of
// after it ends. Every proof equals the CPU's, every one reserved its
// witness ahead, and neither the ledger nor the pool passes the limit.
func TestCUDAProverStreamedUploadAhead(t *testing.T) {
	if !gpu.CUDAAvailable() {
		t.Skip("no native CUDA library")
	}
	ctx := context.Background()
	c := &testcircuit.Chain{N: 1 << 14, Seed: 13, Inputs: 3}
	pk, ms := setup(t, c, 52), compile(t, c)
	counts := pk.Counts()
	rs := randomness(43, 44)
	want := prove(t, pk, c, rs)
	limit, ok := gpu.BesideLimit(counts, counts.H+1, counts.L, len(pk.VerifyingKey().IC), true)
	require.True(t, ok, "some limit runs the aux MSMs beside")
	p := gpuProver(t, gpu.Config{MemoryLimit: limit, NoResident: true})
	plan, err := gpu.NewPlan(limit, gpu.ShapeOf(pk), gpu.PlanOptions{Workers: 2, MatricesBytes: ms.Bytes(), NoResident: true})
	require.NoError(t, err)
	require.True(t, plan.MatricesOnDevice)
	require.Equal(t, 1, plan.ProofsAtOnce)
	require.Positive(t, plan.UploadAheadBytes)
	before := p.Metrics()
	_, err = native.PoolPeakSince(0) // a new interval
	require.NoError(t, err)

	const workers, each = 2, 3
	got := make([]*groth16.Proof, workers*each)
	errs := make([]error, len(got))
	ws := make([]*synth.ProvingAssignment, len(got))
	for i := range ws {
		ws[i] = witness(t, c)
	}
	var beside atomic.Int32
	phases := groth16.WithPhases(func(name string, _, _ time.Time, _ ...any) {
		if name == "aux_beside" {
			beside.Add(1)
		}
	})
	var wg sync.WaitGroup
	for wk := range workers {
		wg.Go(func() {
			for i := wk; i < len(got); i += workers {
				got[i], errs[i] = p.Prove(ctx, pk, ws[i], groth16.WithMatrices(ms), rs, phases)
			}
		})
	}
	wg.Wait()
	for i := range got {
		require.NoError(t, errs[i], "proof %d", i)
		assert.Equal(t, want, got[i], "proof %d", i)
	}
	peak, err := native.PoolPeakSince(0)
	require.NoError(t, err)
	m := p.Metrics()
	assert.Equal(t, int32(len(got)), beside.Load(), "every proof ran its aux MSMs beside its h MSM")
	assert.Equal(t, int64(len(got)), m.UploadsAhead-before.UploadsAhead, "every proof reserved its witness ahead")
	assert.LessOrEqual(t, m.PeakReservedBytes, limit)
	assert.LessOrEqual(t, m.PeakReservedBytes, plan.PeakBytes, "the plan's peak bounds the ledger's")
	assert.LessOrEqual(t, int64(peak), limit, "the pool's high-water mark within the limit")
	assert.Equal(t, before.ReservedBytes, m.ReservedBytes, "the proofs' reservations are all back")
	t.Logf("limit %d MiB, plan peak %d MiB, ledger peak %d MiB, pool peak %d MiB; overlap %v of %v upload",
		limit>>20, plan.PeakBytes>>20, m.PeakReservedBytes>>20, peak>>20, m.UploadComputeOverlap, m.UploadTime)
}
