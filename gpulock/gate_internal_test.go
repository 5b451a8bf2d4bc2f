package gpulock

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
)

// waitQueued waits until g has n waiters.
func waitQueued(t *testing.T, g *gate, n int) {
	t.Helper()
	waitWaiters(t, g.places, n)
}

// waitWaiters waits until l has n waiters.
func waitWaiters(t *testing.T, l *ledger, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return len(l.waiters) == n
	}, 10*time.Second, time.Millisecond)
}

// Waiters are served by priority, then in arrival order, whatever order
// they came in.
func TestGatePriorityOrder(t *testing.T) {
	g := newGate(1)
	require.True(t, g.tryAcquire())
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	for i, w := range []struct {
		name     string
		priority int
	}{{"a", 0}, {"b", 0}, {"c", 1}, {"d", 2}, {"e", 1}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !assert.NoError(t, g.acquire(context.Background(), w.priority)) {
				return
			}
			mu.Lock()
			order = append(order, w.name)
			mu.Unlock()
			g.release(w.priority)
		}()
		waitQueued(t, g, i+1)
	}
	assert.False(t, g.tryAcquire(), "held, and others wait")
	g.release(0)
	wg.Wait()
	assert.Equal(t, []string{"d", "c", "e", "a", "b"}, order)
	assert.True(t, g.tryAcquire(), "free again")
}

// A waiter whose context ends leaves the queue and does not hold the gate.
func TestGateCancel(t *testing.T) {
	g := newGate(1)
	require.True(t, g.tryAcquire())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- g.acquire(ctx, 5) }()
	waitQueued(t, g, 1)
	cancel()
	assert.ErrorIs(t, <-done, context.Canceled)
	waitQueued(t, g, 0)
	g.release(0)
	assert.True(t, g.tryAcquire(), "nobody holds it")
}

// Under many waiters of random priorities, some cancelled, the gate is
// never held by more than its size, and it ends free.
func TestGateStress(t *testing.T) {
	const size = 2
	g := newGate(size)
	stress(t, g.places, 200, 3000, func() int64 { return 1 })
	for range size {
		assert.True(t, g.tryAcquire())
	}
	assert.False(t, g.tryAcquire())
}

// A priority job waiting for the compute lock computes before the jobs of
// a lower priority that waited before it.
func TestPriorityJobComputesFirst(t *testing.T) {
	d, err := NewDevice(Config{MemoryLimit: 1000})
	require.NoError(t, err)
	ctx := context.Background()
	first := d.NewJob()
	require.NoError(t, first.Reserve(ctx, 100))
	require.NoError(t, first.Compute(ctx))
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	for i, j := range []struct {
		name string
		job  *Job
	}{{"normal", d.NewJob()}, {"urgent", d.NewPriorityJob(2)}} {
		require.NoError(t, j.job.Reserve(ctx, 100))
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer j.job.Done()
			if !assert.NoError(t, j.job.Compute(ctx)) {
				return
			}
			mu.Lock()
			order = append(order, j.name)
			mu.Unlock()
		}()
		waitQueued(t, d.compute, i+1)
	}
	first.Done()
	wg.Wait()
	assert.Equal(t, []string{"urgent", "normal"}, order)
}

// A computing job yields the lock to a waiting job of a higher priority,
// not to one of its own or a lower one, and computes again after it.
func TestJobYield(t *testing.T) {
	d, err := NewDevice(Config{MemoryLimit: 1000})
	require.NoError(t, err)
	ctx := context.Background()
	a := d.NewPriorityJob(1)
	defer a.Done()
	require.NoError(t, a.Reserve(ctx, 100))
	yielded, err := a.Yield(ctx)
	require.NoError(t, err)
	assert.False(t, yielded, "not computing")
	require.NoError(t, a.Compute(ctx))
	yielded, err = a.Yield(ctx)
	require.NoError(t, err)
	assert.False(t, yielded, "nobody waits")

	computed := make(chan string, 2)
	for _, j := range []struct {
		name     string
		priority int
	}{{"same", 1}, {"higher", 2}} {
		job := d.NewPriorityJob(j.priority)
		require.NoError(t, job.Reserve(ctx, 100))
		go func() {
			defer job.Done()
			if assert.NoError(t, job.Compute(ctx)) {
				computed <- j.name
				assert.NoError(t, job.EndCompute())
			}
		}()
	}
	waitQueued(t, d.compute, 2)
	yielded, err = a.Yield(ctx) // queues behind "higher", ahead of "same" (which waited before it)
	require.NoError(t, err)
	assert.True(t, yielded)
	assert.Equal(t, "higher", <-computed)
	select {
	case name := <-computed:
		t.Fatalf("%s computed while the yielding job waited ahead of it", name)
	default:
	}
	yielded, err = a.Yield(ctx)
	require.NoError(t, err)
	assert.False(t, yielded, "one of the same priority waits")
	require.NoError(t, a.EndCompute())
	assert.Equal(t, "same", <-computed)
}

// A job of a priority above 0 takes bytes free now ahead of a job that
// holds the ledger's turn and waits for more than is free, and of the jobs
// waiting for the turn; a default one waits behind them. Its Extend waits
// for nothing and its Done leaves the turn to its holder; where its bytes
// are not free, it waits in the ledger ahead of the turn's holder.
func TestPriorityReservesAhead(t *testing.T) {
	d, err := NewDevice(Config{MemoryLimit: 1000})
	require.NoError(t, err)
	ctx := context.Background()
	a := d.NewJob()
	require.NoError(t, a.Reserve(ctx, 600))
	b := d.NewJob()
	require.NoError(t, b.ReserveUpload(ctx, 100, 500)) // 300 free: b waits in Extend, holding the turn
	extended := make(chan error, 1)
	go func() { extended <- b.Extend(ctx) }()
	waitWaiters(t, d.mem, 1)

	c := d.NewJob()
	cReserved := make(chan error, 1)
	go func() { cReserved <- c.Reserve(ctx, 100) }()
	waitQueued(t, d.turn, 1)

	u := d.NewPriorityJob(2)
	short, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	require.NoError(t, u.Reserve(short, 200), "taken ahead of b and c")
	u2 := d.NewPriorityJob(1)
	require.NoError(t, u2.ReserveUpload(short, 50, 50))
	require.NoError(t, u2.Upload(func() error { return nil }))
	require.NoError(t, u2.Extend(short), "nothing more to wait for")
	assert.Equal(t, int64(1000), d.Metrics().ReservedBytes)
	u2.Done()
	u.Done()
	select {
	case err := <-extended:
		t.Fatalf("b extended with only 300 free: %v", err)
	case err := <-cReserved:
		t.Fatalf("c reserved while b holds the turn: %v", err)
	default:
	}
	big := d.NewPriorityJob(2)
	bigReserved := make(chan error, 1)
	go func() { bigReserved <- big.Reserve(ctx, 400) }() // 300 free: it waits in the ledger, ahead of b's rest
	waitWaiters(t, d.mem, 2)
	d.mem.mu.Lock()
	assert.Equal(t, int64(400), d.mem.waiters[0].n, "the urgent job first")
	d.mem.mu.Unlock()
	a.Done() // 900 free: big's 400, then b's 500
	require.NoError(t, <-bigReserved)
	big.Done()
	require.NoError(t, <-extended)
	b.Done()
	require.NoError(t, <-cReserved)
	c.Done()
}

// Under many reservations of random sizes and priorities, some cancelled,
// the ledger never hands out more than its size, and ends empty.
func TestLedgerStress(t *testing.T) {
	const size = 1000
	l := newLedger(size)
	stress(t, l, 300, 5000, func() int64 { return int64(1 + rand.IntN(size)) })
	assert.True(t, l.tryAcquire(size), "all given back")
}

// stress has waiters goroutines claim size() of l each, at priorities 0–2,
// each giving up after up to maxWait µs, and checks that what is held at
// once never exceeds l's size.
func stress(t *testing.T, l *ledger, waiters, maxWait int, size func() int64) {
	var used atomic.Int64
	var wg sync.WaitGroup
	for i := range waiters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := size()
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rand.IntN(maxWait))*time.Microsecond)
			defer cancel()
			priority := i % 3
			if err := l.acquire(ctx, claim{n: n, priority: priority}); err != nil {
				assert.True(t, errors.Is(err, context.DeadlineExceeded))
				return
			}
			assert.LessOrEqual(t, used.Add(n), l.size)
			time.Sleep(time.Duration(rand.IntN(100)) * time.Microsecond)
			used.Add(-n)
			l.release(n, priority)
		}()
	}
	wg.Wait()
}

// An urgent job larger than what the turn's holder leaves of the ledger
// lets that holder have its rest first; it would otherwise wait for bytes
// the holder keeps while the holder waits behind it, for ever.
func TestLedgerUrgentPassesPartialHolder(t *testing.T) {
	d, err := NewDevice(Config{MemoryLimit: 1000})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a := d.NewJob()
	require.NoError(t, a.Reserve(ctx, 500))
	b := d.NewJob()
	require.NoError(t, b.ReserveUpload(ctx, 300, 400)) // 200 free: b waits for its rest, holding 300
	extended := make(chan error, 1)
	go func() { extended <- b.Extend(ctx) }()
	u := d.NewPriorityJob(2)
	reserved := make(chan error, 1)
	go func() { reserved <- u.Reserve(ctx, 800) }() // fits only once b is done
	waitWaiters(t, d.mem, 2)
	a.Done() // 700 free: b's 400, not u's 800
	require.NoError(t, <-extended)
	b.Done()
	require.NoError(t, <-reserved)
	u.Done()
}
