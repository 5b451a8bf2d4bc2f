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
type ledger struct {
	mu      sync.Mutex
	size    int64
	used    int64
	waiters []*bytesWaiter // in service order
	seq     int64          // the next waiter's place among its priority
	front   int64          // the next place ahead of them all (claim.front)
}

// claim is what a waiter asks of a ledger.
type claim struct {
	n        int64 // more
	holding  int64 // held by its job while it waits (the turn's holder: its upload's bytes)
	priority int
	front    bool // ahead of the waiters of its own priority (gate's acquireFront)
}

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
	if l.used+c.n <= l.size && (len(l.waiters) == 0 || l.waiters[0].priority < c.priority ||
		c.front && l.waiters[0].priority == c.priority) {
		l.used += c.n
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
		l.used -= c.n
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

// tryAcquire takes n bytes if they are free now and nobody waits.
func (l *ledger) tryAcquire(n int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.used+n <= l.size && len(l.waiters) == 0 {
		l.used += n
		return true
	}
	return false
}

// release gives n bytes back and serves the waiters that now fit, in order.
func (l *ledger) release(n int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n > l.used {
		panic("gpulock: ledger released more than reserved")
	}
	l.used -= n
	l.grant()
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
		case l.used+w.n <= l.size:
			l.waiters = slices.Delete(l.waiters, i, i+1)
			l.used += w.n
			waiting -= w.holding
			close(w.granted)
		case w.n > l.size-(waiting-w.holding):
			i++
		default:
			return
		}
	}
}
