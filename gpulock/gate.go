package gpulock

import (
	"cmp"
	"context"
	"slices"
	"sync"
)

// gate is a counting lock whose waiters are served by priority, higher
// first, then first come first served: the ledger's turn and the compute
// lock. A job of a higher priority (a WinningPoSt's) is the next to
// reserve and the next to compute, not the last of those waiting.
type gate struct {
	mu      sync.Mutex
	size    int // holders at once
	holders int
	waiters []*waiter // in service order
	seq     int64     // the next waiter's place among its priority
	front   int64     // the next place ahead of them all (acquireFront)
}

type waiter struct {
	priority int
	seq      int64
	granted  chan struct{} // closed once the waiter holds the gate
}

func newGate(size int) *gate { return &gate{size: size} }

// acquire waits until the gate is held at priority, or ctx ends (its
// error returned, the gate not held).
func (g *gate) acquire(ctx context.Context, priority int) error {
	return g.wait(ctx, priority, false)
}

// acquireFront is acquire ahead of the waiters of its own priority: for a
// job that gave the gate up to one of a higher priority (Job.Yield).
func (g *gate) acquireFront(ctx context.Context, priority int) error {
	return g.wait(ctx, priority, true)
}

func (g *gate) wait(ctx context.Context, priority int, front bool) error {
	g.mu.Lock()
	if g.holders < g.size && len(g.waiters) == 0 {
		g.holders++
		g.mu.Unlock()
		return nil
	}
	w := &waiter{priority: priority, granted: make(chan struct{})}
	if front {
		g.front--
		w.seq = g.front
	} else {
		w.seq = g.seq
		g.seq++
	}
	i, _ := slices.BinarySearchFunc(g.waiters, w, func(a, b *waiter) int {
		return cmp.Or(cmp.Compare(b.priority, a.priority), cmp.Compare(a.seq, b.seq))
	})
	g.waiters = slices.Insert(g.waiters, i, w)
	g.mu.Unlock()
	select {
	case <-w.granted:
		return nil
	case <-ctx.Done():
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-w.granted: // granted as ctx ended: hand it on
		g.holders--
	default:
		g.waiters = slices.DeleteFunc(g.waiters, func(x *waiter) bool { return x == w })
	}
	g.grant()
	return ctx.Err()
}

// tryAcquire holds the gate if it is free now and nobody waits for it.
func (g *gate) tryAcquire() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.holders < g.size && len(g.waiters) == 0 {
		g.holders++
		return true
	}
	return false
}

// release gives the gate to the first waiter, if any.
func (g *gate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.holders <= 0 {
		panic("gpulock: gate released more than acquired")
	}
	g.holders--
	g.grant()
}

// grant hands free places to the first waiters. Called with mu held.
func (g *gate) grant() {
	for g.holders < g.size && len(g.waiters) > 0 {
		w := g.waiters[0]
		g.waiters = g.waiters[1:]
		g.holders++
		close(w.granted)
	}
}

// waitingAbove says whether a waiter of a priority above priority waits.
func (g *gate) waitingAbove(priority int) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.waiters) > 0 && g.waiters[0].priority > priority
}
