package gpulock_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/gpulock"
)

// The H100's resident case in miniature: one proof (upload 15, rest 80)
// fits a ledger of 100, two do not. Once the first has run H and given
// back b and c (Shrink 35), the second reserves its upload and uploads
// while the first still computes; its rest waits for the first to end.
func TestUploadAheadOverlapsCompute(t *testing.T) {
	d := newDevice(t, 100, 1)
	ctx := context.Background()
	a := d.NewJob()
	defer a.Done()
	require.NoError(t, a.ReserveUpload(ctx, 15, 80))
	require.NoError(t, a.Upload(func() error { return nil }))
	require.NoError(t, a.Extend(ctx))
	require.NoError(t, a.Compute(ctx))

	b := d.NewJob()
	defer b.Done()
	reserved := make(chan error, 1)
	go func() { reserved <- b.ReserveUpload(ctx, 15, 80) }()
	time.Sleep(20 * time.Millisecond)
	select {
	case err := <-reserved:
		t.Fatalf("the second upload's bytes were granted beside the first's whole reservation: %v", err)
	default:
	}
	require.NoError(t, a.Shrink(35)) // H's b and c, freed
	require.NoError(t, <-reserved)
	assert.Equal(t, int64(75), d.Metrics().ReservedBytes)

	require.NoError(t, b.Upload(func() error {
		time.Sleep(5 * time.Millisecond) // a still computes
		return nil
	}))
	assert.Positive(t, d.Metrics().UploadComputeOverlap, "the upload overlapped the other job's compute")

	extended := make(chan error, 1)
	go func() { extended <- b.Extend(ctx) }()
	time.Sleep(20 * time.Millisecond)
	select {
	case err := <-extended:
		t.Fatalf("the rest was granted while the first job held 60 of 100: %v", err)
	default:
	}
	require.NoError(t, a.EndCompute())
	a.Done()
	require.NoError(t, <-extended)
	require.NoError(t, b.Compute(ctx))
	m := d.Metrics()
	assert.Equal(t, int64(95), m.ReservedBytes)
	assert.Equal(t, int64(2), m.Reservations, "an Extend is not another reservation")
	assert.Equal(t, int64(2), m.UploadsAhead)
	b.Done()
	assert.Zero(t, d.Metrics().ReservedBytes)
}

// The steps keep their order: Extend only after ReserveUpload, no compute
// before Extend, Shrink only of what is held.
func TestUploadAheadOrder(t *testing.T) {
	d := newDevice(t, 100, 1)
	ctx := context.Background()
	j := d.NewJob()
	defer j.Done()
	assert.ErrorIs(t, j.Extend(ctx), gpulock.ErrOrder, "extend before reserving")
	assert.ErrorIs(t, j.Shrink(1), gpulock.ErrOrder, "shrink before reserving")
	assert.ErrorIs(t, j.ReserveUpload(ctx, 50, 51), gpulock.ErrTooLarge, "upload and rest together over the limit")
	require.NoError(t, j.ReserveUpload(ctx, 10, 20))
	assert.ErrorIs(t, j.Compute(ctx), gpulock.ErrOrder, "compute before the rest")
	assert.ErrorIs(t, j.Shrink(1), gpulock.ErrOrder, "shrink while uploading")
	assert.ErrorIs(t, j.Reserve(ctx, 1), gpulock.ErrOrder, "reserve again")
	require.NoError(t, j.Extend(ctx))
	assert.ErrorIs(t, j.Extend(ctx), gpulock.ErrOrder, "extend twice")
	assert.Error(t, j.Shrink(31), "shrink more than held")
	assert.Error(t, j.Shrink(-1))
	require.NoError(t, j.Compute(ctx))
	require.NoError(t, j.Shrink(30))
	assert.Zero(t, d.Metrics().ReservedBytes)
	require.NoError(t, j.EndCompute())
}

// Between ReserveUpload and Extend the job holds the ledger's turn: a plain
// reservation waits though room is free, and TryReserve refuses. Done
// there gives back the bytes and the turn; so does a cancelled Extend.
func TestUploadAheadHoldsTheTurn(t *testing.T) {
	d := newDevice(t, 100, 1)
	ctx := context.Background()
	holder := d.NewJob()
	require.NoError(t, holder.Reserve(ctx, 50))

	s := d.NewJob()
	require.NoError(t, s.ReserveUpload(ctx, 10, 50))
	try := d.NewJob()
	ok, err := try.TryReserve(1)
	require.NoError(t, err)
	assert.False(t, ok, "TryReserve beside a job waiting to extend")

	plain := make(chan error, 1)
	p := d.NewJob()
	defer p.Done()
	go func() { plain <- p.Reserve(ctx, 1) }()
	time.Sleep(20 * time.Millisecond)
	select {
	case err := <-plain:
		t.Fatalf("a plain reservation went ahead of the job that holds the turn: %v", err)
	default:
	}

	cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, s.Extend(cctx), context.DeadlineExceeded, "the rest does not fit beside the holder")
	s.Done()
	require.NoError(t, <-plain, "the turn passes on when the job ends")
	assert.Equal(t, int64(51), d.Metrics().ReservedBytes)
	holder.Done()
	p.Done()

	// Cancelled while waiting for the turn: nothing held.
	s2 := d.NewJob()
	require.NoError(t, s2.ReserveUpload(ctx, 1, 1))
	w := d.NewJob()
	cctx2, cancel2 := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel2()
	assert.ErrorIs(t, w.ReserveUpload(cctx2, 1, 1), context.DeadlineExceeded)
	w.Done()
	s2.Done()
	assert.Zero(t, d.Metrics().ReservedBytes)
	ok, err = try.TryReserve(100)
	require.NoError(t, err)
	assert.True(t, ok, "the whole ledger is free again")
	try.Done()
}

// Jobs that reserve their upload ahead and give back part of their memory
// after H, beside plain jobs and a long-lived reservation, with random
// sizes and cancellations, never exceed the ledger and never deadlock
// (simulate's watchdog).
func TestSimulationUploadAhead(t *testing.T) {
	for _, width := range []int{1, 2} {
		d := newDevice(t, 1000, width)
		key := d.NewJob()
		ok, err := key.TryReserve(300)
		require.NoError(t, err)
		require.True(t, ok)
		peak := simulate(t, d, 5, 300, 5, 4*time.Millisecond, uint64(width),
			func(ctx context.Context, rng *rand.Rand, inUse, peak *atomic.Int64) {
				runAheadJob(t, d, ctx, rng, inUse, peak)
			})
		assert.LessOrEqual(t, peak, d.MemoryLimit()-300, "proofs exceeded the room beside the key")
		m := d.Metrics()
		assert.Equal(t, int64(300), m.ReservedBytes, "only the key stays reserved")
		assert.Positive(t, m.UploadsAhead)
		key.Done()
	}
}

// runAheadJob is one job of TestSimulationUploadAhead: every other one
// reserves its upload ahead of the rest, computes and gives back a part of
// its memory midway; inUse and peak follow the bytes its "buffers" hold.
func runAheadJob(t *testing.T, d *gpulock.Device, ctx context.Context, rng *rand.Rand, inUse, peak *atomic.Int64) {
	j := d.NewJob()
	defer j.Done()
	var held int64
	defer func() { inUse.Add(-held) }()
	upload, rest := 1+rng.Int64N(200), 1+rng.Int64N(500)
	ok := func(err error) bool {
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("job: %v", err)
		}
		return err == nil
	}
	sleep := func() { time.Sleep(time.Duration(200+rng.IntN(800)) * time.Microsecond) }
	if rng.IntN(2) == 0 {
		if !ok(j.ReserveUpload(ctx, upload, rest)) {
			return
		}
		held += upload
		hold(inUse, peak, upload)
		_ = j.Upload(func() error { sleep(); return nil })
		if !ok(j.Extend(ctx)) {
			return
		}
		held += rest
		hold(inUse, peak, rest)
	} else {
		if !ok(j.Reserve(ctx, upload+rest)) {
			return
		}
		held += upload + rest
		hold(inUse, peak, upload+rest)
		_ = j.Upload(func() error { sleep(); return nil })
	}
	if !ok(j.Compute(ctx)) {
		return
	}
	sleep()
	part := rng.Int64N(rest + 1)
	inUse.Add(-part) // the buffers are freed before the ledger hears of it
	held -= part
	if !ok(j.Shrink(part)) {
		return
	}
	sleep()
	if err := j.EndCompute(); err != nil {
		t.Error(err)
	}
}
