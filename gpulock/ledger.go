package gpulock

import (
	"context"
	"slices"
	"sync"
)

// ledger counts a device's reserved bytes: a weighted lock whose waiters
// are served first come first served (the job that holds the ledger's
// turn waits here), from which a job of a higher priority may take bytes
// free now from ahead of them (takeAhead).
type ledger struct {
	mu      sync.Mutex
	size    int64
	used    int64
	waiters []*bytesWaiter
}

type bytesWaiter struct {
	n       int64
	granted chan struct{} // closed once the bytes are the waiter's
}

func newLedger(size int64) *ledger { return &ledger{size: size} }

// acquire waits until n bytes are the caller's, or ctx ends (its error
// returned, nothing taken).
func (l *ledger) acquire(ctx context.Context, n int64) error {
	l.mu.Lock()
	if l.used+n <= l.size && len(l.waiters) == 0 {
		l.used += n
		l.mu.Unlock()
		return nil
	}
	w := &bytesWaiter{n: n, granted: make(chan struct{})}
	l.waiters = append(l.waiters, w)
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

// takeAhead takes n bytes if they are free now, ahead of any waiter: the
// waiter needs more than is free, and a job that takes all it needs at
// once ends without waiting for it.
func (l *ledger) takeAhead(n int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.used+n <= l.size {
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

// grant serves the first waiters while they fit. Called with mu held.
func (l *ledger) grant() {
	for len(l.waiters) > 0 && l.used+l.waiters[0].n <= l.size {
		w := l.waiters[0]
		l.waiters = l.waiters[1:]
		l.used += w.n
		close(w.granted)
	}
}
