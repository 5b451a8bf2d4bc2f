package gpulock

import (
	"cmp"
	"context"
	"slices"
	"sync"
)

// ledger counts a device's reserved bytes (or a gate's places): a weighted
// lock whose waiters are served by priority, higher first, then first come
// first served, each once all it asks fits. A default job waits here only
// while it holds the ledger's turn; a job of a higher priority waits here
// without it, for all it needs at once, ahead of the turn's holder.
//
// Bytes set aside (setAside: a held reservation lent to jobs above the
// default priority) are counted in used like any reservation; the urgent
// jobs' bytes take from them first, so that up to aside of those bytes
// take no room beside them (overlap).
type ledger struct {
	mu         sync.Mutex
	size       int64
	used       int64
	aside      int64          // of used, set aside for urgent claims
	urgentUsed int64          // of used, held by urgent claims
	waiters    []*bytesWaiter // in service order
	seq        int64          // the next waiter's place among its priority
	front      int64          // the next place ahead of them all (claim.front)
}

// claim is what a waiter asks of a ledger.
type claim struct {
	n        int64 // more
	holding  int64 // held by its job while it waits (the turn's holder: its upload's bytes)
	priority int
	front    bool // ahead of the waiters of its own priority (gate's acquireFront)
}

// urgent says whether the claim may take the bytes set aside.
func (c claim) urgent() bool { return c.priority > 0 }

type bytesWaiter struct {
	claim
	seq     int64
	granted chan struct{} // closed once the bytes are the waiter's
}

func newLedger(size int64) *ledger { return &ledger{size: size} }

// acquire waits until c.n bytes more are the caller's, or ctx ends (its
// error returned, nothing taken). Bytes free now are taken at once unless
// a waiter of the same or a higher priority waits (or, front, a higher).
func (l *ledger) acquire(ctx context.Context, c claim) error {
	l.mu.Lock()
	if l.fits(c) && (len(l.waiters) == 0 || l.waiters[0].priority < c.priority ||
		c.front && l.waiters[0].priority == c.priority) {
		l.take(c)
		l.mu.Unlock()
		return nil
	}
	w := &bytesWaiter{claim: c, granted: make(chan struct{})}
	if c.front {
		l.front--
		w.seq = l.front
	} else {
		w.seq = l.seq
		l.seq++
	}
	i, _ := slices.BinarySearchFunc(l.waiters, w, func(a, b *bytesWaiter) int {
		return cmp.Or(cmp.Compare(b.priority, a.priority), cmp.Compare(a.seq, b.seq))
	})
	l.waiters = slices.Insert(l.waiters, i, w)
	l.mu.Unlock()
	select {
	case <-w.granted:
		return nil
	case <-ctx.Done():
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-w.granted: // granted as ctx ended: give them back
		l.put(c)
	default:
		l.waiters = slices.DeleteFunc(l.waiters, func(x *bytesWaiter) bool { return x == w })
	}
	l.grant()
	return ctx.Err()
}

// waitingAbove says whether a waiter of a priority above priority waits.
func (l *ledger) waitingAbove(priority int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.waiters) > 0 && l.waiters[0].priority > priority
}

// tryAcquire takes n bytes (of the default priority) if they are free now
// and nobody waits.
func (l *ledger) tryAcquire(n int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := claim{n: n}
	if l.fits(c) && len(l.waiters) == 0 {
		l.take(c)
		return true
	}
	return false
}

// release gives back n bytes taken at priority and serves the waiters
// that now fit, in order.
func (l *ledger) release(n int64, priority int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.put(claim{n: n, priority: priority})
	l.grant()
}

// setAside sets n bytes more (less, negative) of those used aside for
// urgent claims. Called by the holder of those bytes.
func (l *ledger) setAside(n int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.aside+n < 0 || l.aside+n > l.used {
		panic("gpulock: ledger set aside bytes it does not hold")
	}
	l.aside += n
	l.grant() // less set aside: the urgent bytes beyond it take room now; more: none is freed
}

// overlap is the urgent bytes that lie in those set aside, with u urgent
// bytes used.
func (l *ledger) overlap(u int64) int64 { return min(l.aside, u) }

// room is the bytes taken beside the set-aside share: used less the urgent
// bytes inside it.
func (l *ledger) room() int64 { return l.used - l.overlap(l.urgentUsed) }

// cost is the room granting c takes: its bytes, less those of an urgent
// claim that the set-aside share still has.
func (l *ledger) cost(c claim) int64 {
	if !c.urgent() {
		return c.n
	}
	return c.n - (l.overlap(l.urgentUsed+c.n) - l.overlap(l.urgentUsed))
}

func (l *ledger) fits(c claim) bool { return l.room()+l.cost(c) <= l.size }

func (l *ledger) take(c claim) {
	l.used += c.n
	if c.urgent() {
		l.urgentUsed += c.n
	}
}

func (l *ledger) put(c claim) {
	if c.n > l.used || c.urgent() && c.n > l.urgentUsed {
		panic("gpulock: ledger released more than reserved")
	}
	l.used -= c.n
	if c.urgent() {
		l.urgentUsed -= c.n
	}
}

// grant serves the waiters in order while they fit. One that cannot fit
// until a waiter behind it, which holds part of what it needs, has the
// rest and ends (an urgent job larger than what the turn's holder leaves)
// lets those behind it pass; else the ledger would wait for ever. Called
// with mu held.
func (l *ledger) grant() {
	var waiting int64 // held by waiters
	for _, w := range l.waiters {
		waiting += w.holding
	}
	for i := 0; i < len(l.waiters); {
		w := l.waiters[i]
		switch {
		case l.fits(w.claim):
			l.waiters = slices.Delete(l.waiters, i, i+1)
			l.take(w.claim)
			waiting -= w.holding
			close(w.granted)
		case l.cost(w.claim) > l.size-(waiting-w.holding):
			i++
		default:
			return
		}
	}
}
