package gpulock

import (
	"cmp"
	"context"
	"slices"
	"sync"
)

// ledger counts a device's reserved bytes: a weighted lock whose waiters
// are served by priority, higher first, then first come first served, each
// once all its bytes fit. A default job waits here only while it holds the
// ledger's turn; a job of a higher priority waits here without it, for all
// it needs at once, ahead of the turn's holder.
type ledger struct {
	mu      sync.Mutex
	size    int64
	used    int64
	waiters []*bytesWaiter // in service order
	seq     int64
}

type bytesWaiter struct {
	n        int64
	holding  int64 // bytes its job holds while it waits (the turn's holder: its upload's)
	priority int
	seq      int64
	granted  chan struct{} // closed once the bytes are the waiter's
}

func newLedger(size int64) *ledger { return &ledger{size: size} }

// acquire waits until n bytes more are the caller's, or ctx ends (its
// error returned, nothing taken); the caller holds holding bytes already.
// Bytes free now are taken at once unless a waiter of the same or a higher
// priority waits.
func (l *ledger) acquire(ctx context.Context, n, holding int64, priority int) error {
	l.mu.Lock()
	if l.used+n <= l.size && (len(l.waiters) == 0 || l.waiters[0].priority < priority) {
		l.used += n
		l.mu.Unlock()
		return nil
	}
	w := &bytesWaiter{n: n, holding: holding, priority: priority, seq: l.seq, granted: make(chan struct{})}
	l.seq++
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
		l.used -= n
	default:
		l.waiters = slices.DeleteFunc(l.waiters, func(x *bytesWaiter) bool { return x == w })
	}
	l.grant()
	return ctx.Err()
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
