package gpulock_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/gpulock"
)

func newDevice(t *testing.T, budget int64, width int) *gpulock.Device {
	t.Helper()
	d, err := gpulock.NewDevice(gpulock.Config{MemoryLimit: budget, ComputeWidth: width})
	require.NoError(t, err)
	require.Equal(t, budget, d.MemoryLimit())
	return d
}

func TestNoBudget(t *testing.T) {
	_, err := gpulock.NewDevice(gpulock.Config{MemoryLimit: 0})
	assert.Error(t, err)
}

func TestTooLargeFailsAtOnce(t *testing.T) {
	d := newDevice(t, 1000, 1)
	j := d.NewJob()
	err := j.Reserve(context.Background(), 1001)
	assert.ErrorIs(t, err, gpulock.ErrTooLarge)
	j.Done()
	assert.Zero(t, d.Metrics().ReservedBytes)
}

func TestOrderEnforced(t *testing.T) {
	d := newDevice(t, 1000, 1)
	ctx := context.Background()
	j := d.NewJob()
	defer j.Done()
	assert.ErrorIs(t, j.Compute(ctx), gpulock.ErrOrder, "compute before reserve")
	assert.ErrorIs(t, j.Upload(func() error { return nil }), gpulock.ErrOrder, "upload before reserve")
	require.NoError(t, j.Reserve(ctx, 10))
	assert.ErrorIs(t, j.Reserve(ctx, 10), gpulock.ErrOrder, "second reserve")
	assert.ErrorIs(t, j.EndCompute(), gpulock.ErrOrder)
	require.NoError(t, j.Compute(ctx))
	assert.ErrorIs(t, j.Reserve(ctx, 10), gpulock.ErrOrder, "reserve while computing")
	assert.ErrorIs(t, j.Upload(func() error { return nil }), gpulock.ErrOrder, "upload while computing")
	require.NoError(t, j.EndCompute())
	require.NoError(t, j.ReadBack(func() error { return nil }))
	j.Done()
	j.Done() // idempotent
	m := d.Metrics()
	assert.Zero(t, m.ReservedBytes)
	assert.Equal(t, int64(10), m.PeakReservedBytes)
}

// Done in any state releases what the job holds.
func TestDoneReleasesEverything(t *testing.T) {
	d := newDevice(t, 100, 1)
	ctx := context.Background()
	j := d.NewJob()
	require.NoError(t, j.Reserve(ctx, 100))
	require.NoError(t, j.Compute(ctx))
	j.Done()
	// Both gates are free again.
	k := d.NewJob()
	tctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	require.NoError(t, k.Reserve(tctx, 100))
	require.NoError(t, k.Compute(tctx))
	k.Done()
}

// FIFO: a large request at the head is not overtaken by later small ones.
func TestReserveIsFIFO(t *testing.T) {
	d := newDevice(t, 100, 1)
	ctx := context.Background()
	holder := d.NewJob()
	require.NoError(t, holder.Reserve(ctx, 60))

	var order []string
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := func(name string, n int64) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			j := d.NewJob()
			defer j.Done()
			if assert.NoError(t, j.Reserve(ctx, n)) {
				mu.Lock()
				order = append(order, name)
				mu.Unlock()
			}
		}()
	}
	start("big", 80)
	waitFor(t, func() bool { return d.Metrics().Reservations == 1 && len(order) == 0 })
	time.Sleep(20 * time.Millisecond) // let "big" queue
	start("small", 30)                // fits beside the holder, but must queue behind "big"
	time.Sleep(20 * time.Millisecond)
	mu.Lock()
	assert.Empty(t, order, "small overtook big")
	mu.Unlock()
	holder.Done()
	wg.Wait()
	assert.Equal(t, []string{"big", "small"}, order)
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestCancelWhileWaiting(t *testing.T) {
	d := newDevice(t, 100, 1)
	ctx := context.Background()
	holder := d.NewJob()
	require.NoError(t, holder.Reserve(ctx, 100))
	require.NoError(t, holder.Compute(ctx))

	cctx, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
	defer cancel()
	j := d.NewJob()
	err := j.Reserve(cctx, 1)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	j.Done()

	// A job waiting for compute gives up when its context ends, and its
	// reservation is released by Done.
	k := d.NewJob()
	require.NoError(t, k.Reserve(ctx, 0))
	cctx2, cancel2 := context.WithTimeout(ctx, 30*time.Millisecond)
	defer cancel2()
	assert.ErrorIs(t, k.Compute(cctx2), context.DeadlineExceeded)
	k.Done()
	holder.Done()
	m := d.Metrics()
	assert.Zero(t, m.ReservedBytes)
	assert.Equal(t, int64(1), m.ComputeAcquisitions, "the cancelled job never computed")

	// Both gates are whole again.
	all := d.NewJob()
	defer all.Done()
	require.NoError(t, all.Reserve(ctx, 100))
	require.NoError(t, all.Compute(ctx))
}

// simulate runs jobs on d with the given worker count, each by run (given
// the job's context, which every cancelEvery-th job on average sees
// cancelled within cancelWithin, a random source, and the counters of the
// bytes the jobs' "buffers" hold: now and the peak). It fails the test on
// a deadlock (60 s) or if the buffers ever exceeded the budget, and returns
// their peak.
func simulate(t *testing.T, d *gpulock.Device, workers, jobs, cancelEvery int, cancelWithin time.Duration, seed uint64,
	run func(ctx context.Context, rng *rand.Rand, inUse, peak *atomic.Int64)) int64 {
	t.Helper()
	var inUse, peak atomic.Int64
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(w)))
			for {
				n := next.Add(1)
				if n > int64(jobs) {
					return
				}
				ctx, cancel := context.WithCancel(context.Background())
				if cancelEvery > 0 && rng.IntN(cancelEvery) == 0 {
					time.AfterFunc(time.Duration(rng.IntN(int(cancelWithin))), cancel)
				}
				run(ctx, rng, &inUse, &peak)
				cancel()
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("deadlock: workers did not finish")
	}
	assert.LessOrEqual(t, peak.Load(), d.MemoryLimit(), "ledger exceeded its budget")
	assert.Zero(t, inUse.Load())
	return peak.Load()
}

// hold counts n bytes more held by buffers, raising peak.
func hold(inUse, peak *atomic.Int64, n int64) {
	now := inUse.Add(n)
	for p := peak.Load(); now > p && !peak.CompareAndSwap(p, now); p = peak.Load() {
	}
}

// plainJob is a job of random size that uploads for upload, computes for
// compute and reads back briefly.
func plainJob(t *testing.T, d *gpulock.Device, upload, compute time.Duration) func(context.Context, *rand.Rand, *atomic.Int64, *atomic.Int64) {
	return func(ctx context.Context, rng *rand.Rand, inUse, peak *atomic.Int64) {
		runJob(t, d, ctx, rng, inUse, peak, upload, compute)
	}
}

func runJob(t *testing.T, d *gpulock.Device, ctx context.Context, rng *rand.Rand, inUse, peak *atomic.Int64, upload, compute time.Duration) {
	j := d.NewJob()
	defer j.Done()
	size := 1 + rng.Int64N(d.MemoryLimit())
	if err := j.Reserve(ctx, size); err != nil {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("reserve: %v", err)
		}
		return
	}
	// The "buffers" live exactly as long as the reservation.
	hold(inUse, peak, size)
	defer inUse.Add(-size)
	jitter := func(base time.Duration) time.Duration {
		return base/2 + time.Duration(rng.Int64N(int64(base)))
	}
	_ = j.Upload(func() error { time.Sleep(jitter(upload)); return nil })
	if err := j.Compute(ctx); err != nil {
		return
	}
	time.Sleep(jitter(compute))
	if err := j.EndCompute(); err != nil {
		t.Error(err)
	}
	_ = j.ReadBack(func() error { return nil })
}

func TestSimulationRandomCancellation(t *testing.T) {
	d := newDevice(t, 1000, 1)
	simulate(t, d, 4, 200, 4, 8*time.Millisecond, 1, plainJob(t, d, 2*time.Millisecond, 2*time.Millisecond))
	m := d.Metrics()
	assert.Zero(t, m.ReservedBytes)
	assert.LessOrEqual(t, m.PeakReservedBytes, d.MemoryLimit())
}

func TestSimulationWideCompute(t *testing.T) {
	d := newDevice(t, 1000, 2)
	simulate(t, d, 6, 150, 5, 6*time.Millisecond, 2, plainJob(t, d, time.Millisecond, 2*time.Millisecond))
	assert.Zero(t, d.Metrics().ReservedBytes)
}

// With upload ≈ compute, two workers hide one's upload behind the other's
// compute: ideally 2× one worker's throughput, and at least 1.3× (a lock
// that serialized uploads with compute gives about 1×; the margin is for
// sleeps on a loaded machine: 1.58× was seen in CI beside a compiler).
// Sizes are small enough for two jobs to hold memory at once.
func TestTwoWorkersOverlap(t *testing.T) {
	const jobs, step = 24, 15 * time.Millisecond
	run := func(workers int) (time.Duration, gpulock.Metrics) {
		d := newDevice(t, 1<<20, 1)
		var wg sync.WaitGroup
		var next atomic.Int64
		start := time.Now()
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for next.Add(1) <= jobs {
					j := d.NewJob()
					require.NoError(t, j.Reserve(context.Background(), 1<<19))
					_ = j.Upload(func() error { time.Sleep(step); return nil })
					require.NoError(t, j.Compute(context.Background()))
					time.Sleep(step)
					require.NoError(t, j.EndCompute())
					j.Done()
				}
			}()
		}
		wg.Wait()
		return time.Since(start), d.Metrics()
	}
	one, _ := run(1)
	two, m := run(2)
	speedup := float64(one) / float64(two)
	t.Logf("1 worker %v, 2 workers %v: %.2fx; overlap %.0f%% of upload time, busy %.0f%%",
		one, two, speedup, 100*m.OverlapFraction(), 100*m.BusyFraction())
	assert.GreaterOrEqual(t, speedup, 1.3)
	assert.Greater(t, m.OverlapFraction(), 0.5)
}

// TryReserve takes free room at once and otherwise fails without waiting;
// it does not jump ahead of its own refusals into the budget.
func TestTryReserve(t *testing.T) {
	d, err := gpulock.NewDevice(gpulock.Config{MemoryLimit: 100})
	if err != nil {
		t.Fatal(err)
	}
	a := d.NewJob()
	if ok, err := a.TryReserve(60); !ok || err != nil {
		t.Fatalf("first TryReserve: %v %v", ok, err)
	}
	b := d.NewJob()
	if ok, err := b.TryReserve(50); ok || err != nil {
		t.Fatalf("TryReserve beyond the free room: %v %v", ok, err)
	}
	if _, err := b.TryReserve(101); !errors.Is(err, gpulock.ErrTooLarge) {
		t.Fatalf("larger than the budget: %v", err)
	}
	if ok, _ := b.TryReserve(40); !ok {
		t.Fatal("TryReserve of the free room refused")
	}
	if m := d.Metrics(); m.ReservedBytes != 100 || m.PeakReservedBytes != 100 {
		t.Fatalf("metrics %+v", m)
	}
	a.Done()
	b.Done()
	if m := d.Metrics(); m.ReservedBytes != 0 {
		t.Fatalf("reserved after Done: %d", m.ReservedBytes)
	}
	if _, err := a.TryReserve(1); !errors.Is(err, gpulock.ErrOrder) {
		t.Fatalf("TryReserve after Done: %v", err)
	}
}

// A held reservation (a resident key) leaves the rest of the budget: a
// reservation that cannot fit beside it fails at once, one that can waits
// for the proofs as before, and Done of the held job gives its room back.
// Before Hold, a preload that did not fit beside the resident keys waited
// for ever, and every reservation of that GPU behind it.
func TestHeldReservations(t *testing.T) {
	ctx := context.Background()
	d := newDevice(t, 100, 1)
	key := reservedNow(t, d, 60)
	require.NoError(t, key.Hold())
	assert.Equal(t, int64(60), d.Held())
	assert.ErrorIs(t, key.Shrink(10), gpulock.ErrOrder, "a held reservation is not shrunk")

	big := d.NewJob()
	start := time.Now()
	err := big.Reserve(ctx, 50)
	assert.ErrorIs(t, err, gpulock.ErrTooLarge)
	assert.ErrorContains(t, err, "60 are held")
	assert.Less(t, time.Since(start), time.Second, "at once, not after a wait")
	big.Done()
	up := d.NewJob()
	assert.ErrorIs(t, up.ReserveUpload(ctx, 20, 30), gpulock.ErrTooLarge, "upload and rest beside the held bytes")
	up.Done()
	_, err = d.NewJob().TryReserve(41)
	assert.ErrorIs(t, err, gpulock.ErrTooLarge)

	// A proof that fits beside the key waits for another proof, as before.
	proof := d.NewJob()
	require.NoError(t, proof.Reserve(ctx, 30))
	next := d.NewJob()
	done := reserveWaits(t, next, 30, "beside a proof and the key")
	proof.Done()
	require.NoError(t, <-done)
	next.Done()

	key.Done()
	assert.Zero(t, d.Held())
	again := d.NewJob()
	require.NoError(t, again.Reserve(ctx, 100), "the key's room is back")
	again.Done()
	assert.ErrorIs(t, d.NewJob().Hold(), gpulock.ErrOrder, "Hold before a reservation")
}

// Memory set aside beside a resident key (SetAside) is an urgent job's:
// it reserves there at once while default jobs hold all the rest, and
// default jobs never get it. An urgent job larger than the share takes the
// rest from the free memory, waiting for it like any reservation. Done of
// the lender ends the loan. Before, a WinningPoSt beside four PoRep proofs
// waited 3.4–3.9 s for one of them to end (H100 trace, issue 56).
func TestSetAside(t *testing.T) {
	ctx := context.Background()
	d := newDevice(t, 100, 1)
	aside := reservedNow(t, d, 20)
	assert.ErrorIs(t, aside.SetAside(), gpulock.ErrOrder, "not held yet")
	require.NoError(t, aside.Hold())
	require.NoError(t, aside.SetAside())
	assert.ErrorIs(t, aside.SetAside(), gpulock.ErrOrder, "once")
	assert.Equal(t, int64(20), d.Held(), "set aside counts as held")

	_, err := d.NewJob().TryReserve(81)
	assert.ErrorIs(t, err, gpulock.ErrTooLarge, "a default job never gets the share")
	proofs := d.NewJob()
	require.NoError(t, proofs.Reserve(ctx, 80), "all the rest")

	urgent := d.NewPriorityJob(2)
	soon, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	require.NoError(t, urgent.ReserveUpload(soon, 5, 15), "the whole share, at once")
	require.NoError(t, urgent.Extend(ctx))

	// A second urgent job finds the share taken: it waits for free memory.
	second := d.NewPriorityJob(2)
	done := reserveWaits(t, second, 10, "beyond the share and the free memory")
	urgent.Done()
	require.NoError(t, <-done, "the share is free again")

	// Larger than the share: 10 of it left, the other 15 from free memory.
	large := d.NewPriorityJob(1)
	done = reserveWaits(t, large, 25, "with 10 of the share and nothing free")
	require.NoError(t, proofs.Shrink(15))
	require.NoError(t, <-done, "10 of the share and 15 freed")
	after := d.NewJob()
	ok, err := after.TryReserve(1)
	require.NoError(t, err)
	assert.False(t, ok, "nothing free: the urgent jobs' 35 are 20 of the share and 15 beside it")
	large.Done()
	second.Done()
	ok, err = after.TryReserve(15)
	require.NoError(t, err)
	assert.True(t, ok, "the 15 back")
	after.Done()

	// The lender ends: its bytes are free for everyone.
	aside.Done()
	assert.Zero(t, d.Held())
	proofs.Done()
	all := d.NewJob()
	require.NoError(t, all.Reserve(ctx, 100))
	all.Done()
}

// reserveWaits starts job's Reserve of bytes and checks that it is still
// waiting a moment later (why names the situation); its result comes on
// the channel returned.
func reserveWaits(t *testing.T, job *gpulock.Job, bytes int64, why string) <-chan error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- job.Reserve(context.Background(), bytes) }()
	select {
	case err := <-done:
		t.Fatalf("reserved %d bytes %s: %v", bytes, why, err)
	case <-time.After(50 * time.Millisecond):
	}
	return done
}

// reservedNow returns a job of d that reserved bytes at once (TryReserve).
func reservedNow(t *testing.T, d *gpulock.Device, bytes int64) *gpulock.Job {
	t.Helper()
	job := d.NewJob()
	ok, err := job.TryReserve(bytes)
	require.NoError(t, err)
	require.True(t, ok)
	return job
}
