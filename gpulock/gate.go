package gpulock

import "context"

// gate is a lock of a few places whose waiters are served by priority,
// higher first, then first come first served: the ledger's turn (one
// place) and the compute lock (its width). A job of a higher priority (a
// WinningPoSt's) is the next to reserve and the next to compute, not the
// last of those waiting. It is a ledger of places, each holder taking one.
type gate struct{ places *ledger }

func newGate(size int) *gate { return &gate{places: newLedger(int64(size))} }

// acquire waits until the gate is held at priority, or ctx ends (its
// error returned, the gate not held).
func (g *gate) acquire(ctx context.Context, priority int) error {
	return g.places.acquire(ctx, claim{n: 1, priority: priority})
}

// acquireFront is acquire ahead of the waiters of its own priority: for a
// job that gave the gate up to one of a higher priority (Job.Yield).
func (g *gate) acquireFront(ctx context.Context, priority int) error {
	return g.places.acquire(ctx, claim{n: 1, priority: priority, front: true})
}

// tryAcquire holds the gate if it is free now and nobody waits for it.
func (g *gate) tryAcquire() bool { return g.places.tryAcquire(1) }

// release gives the gate, held at priority, to the first waiter, if any.
func (g *gate) release(priority int) { g.places.release(1, priority) }

// waitingAbove says whether a waiter of a priority above priority waits.
func (g *gate) waitingAbove(priority int) bool { return g.places.waitingAbove(priority) }
