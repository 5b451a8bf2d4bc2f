package pipeline

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sync/semaphore"

	"github.com/gpuc2/gpuc2/synth"
)

// ErrBudget reports a partition that can never fit the host memory budget.
var ErrBudget = errors.New("pipeline: over the host memory budget")

// Budget is the host memory ledger of partition working sets: a
// semaphore.Weighted of the configured bytes, so reservations are served
// first come, first served and a waiting one gives up when its context ends.
//
// A partition reserves its bytes before synthesis (Reserve) and gives them
// back when its prover is done (Release). Its witness buffers (a
// synth.ProvingAssignment) may then be kept as a spare for the next partition
// of the same shape, which resets them instead of allocating ~20 GiB again at
// 32 GiB. A spare gives its bytes back to the semaphore, so it never holds up
// a reservation, but it still counts: a reservation that takes a spare of
// its shape takes its memory, and one that allocates anew drops spares,
// oldest first, until what is reserved and spare fits the limit again.
//
// Loaded parameters (SetResident) are held on the semaphore too, so they
// shrink the limit at once: their bytes are taken while free, and otherwise
// owed and paid out of the next releases before anything else is served.
type Budget struct {
	sem       *semaphore.Weighted
	limit     int64 // the configured bytes: the semaphore's size
	maxSpares int   // of each shape

	mu           sync.Mutex
	reserved     int64 // held by partitions now
	resident     int64 // loaded parameters, left out of the limit
	residentHeld int64 // the part of resident held on the semaphore; the rest is owed
	spares       []spare
	spareBytes   int64
	peak         int64                 // the most of reserved+spareBytes ever
	waiting      map[*waiting]struct{} // reservations blocked on the semaphore

	// drop, if set, is given each assignment the budget lets go of (a
	// spare trimmed or dropped, one released without room to keep it),
	// after b.mu is unlocked: dropped holds them until then.
	drop    func(*synth.ProvingAssignment)
	dropped []*synth.ProvingAssignment
}

// spare is a parked proving assignment of a partition of shape key.
type spare struct {
	key   synth.Sizes
	w     *synth.ProvingAssignment
	bytes int64
}

type waiting struct {
	bytes  int64
	cancel context.CancelCauseFunc
}

// NewBudget returns a budget of limit bytes that keeps at most maxSpares
// spare assignments of each shape.
func NewBudget(limit int64, maxSpares int) *Budget {
	return &Budget{sem: semaphore.NewWeighted(limit), limit: limit, maxSpares: maxSpares, waiting: map[*waiting]struct{}{}}
}

// Limit is the bytes partitions may reserve together now: the configured
// limit less the resident bytes.
func (b *Budget) Limit() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.limit - b.resident
}

// Fits returns an error wrapping ErrBudget if n bytes can never be reserved.
func (b *Budget) Fits(n int64) error {
	if l := b.Limit(); n > l {
		return budgetError(n, l)
	}
	return nil
}

func budgetError(n, limit int64) error {
	return fmt.Errorf("%w: a partition needs %s, the budget is %s", ErrBudget, gib(n), gib(limit))
}

// Reserve blocks until n bytes are reserved for a partition of shape key, or
// ctx ends (its cause is returned), or the limit shrinks below n (ErrBudget).
// It returns a spare assignment of that shape when there is one, else nil.
func (b *Budget) Reserve(ctx context.Context, key synth.Sizes, n int64) (*synth.ProvingAssignment, error) {
	b.mu.Lock()
	if limit := b.limit - b.resident; n > limit {
		b.mu.Unlock()
		return nil, budgetError(n, limit)
	}
	if b.sem.TryAcquire(n) {
		defer b.unlock()
		return b.acquiredLocked(key, n), nil
	}
	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	w := &waiting{bytes: n, cancel: cancel}
	b.waiting[w] = struct{}{}
	b.mu.Unlock()

	err := b.sem.Acquire(wctx, n)
	b.mu.Lock()
	defer b.unlock()
	delete(b.waiting, w)
	if err != nil {
		b.settleLocked() // bytes owed while this one waited may be free
		return nil, context.Cause(wctx)
	}
	return b.acquiredLocked(key, n), nil
}

// acquiredLocked records n bytes acquired for shape key and returns a spare
// of that shape, if any.
func (b *Budget) acquiredLocked(key synth.Sizes, n int64) *synth.ProvingAssignment {
	b.reserved += n
	var w *synth.ProvingAssignment
	for i, s := range b.spares {
		if s.key == key && s.bytes == n {
			w = s.w
			b.spareBytes -= s.bytes
			b.spares = append(b.spares[:i], b.spares[i+1:]...)
			break
		}
	}
	b.settleLocked()
	b.trimLocked()
	b.peak = max(b.peak, b.reserved+b.spareBytes)
	return w
}

// Release gives back a partition's n bytes. w, if not nil, is kept as a
// spare for the next partition of shape key while there is room for spares.
func (b *Budget) Release(key synth.Sizes, w *synth.ProvingAssignment, n int64) {
	b.mu.Lock()
	defer b.unlock()
	b.reserved -= n
	pay := min(n, max(b.resident-b.residentHeld, 0)) // owed bytes are paid first
	b.residentHeld += pay
	switch {
	case w != nil && b.sparesOf(key) < b.maxSpares:
		b.spares = append(b.spares, spare{key: key, w: w, bytes: n})
		b.spareBytes += n
	case w != nil:
		b.dropped = append(b.dropped, w)
	}
	b.trimLocked()
	b.sem.Release(n - pay) // a reservation it wakes waits for b.mu, and then finds the spare
}

// addSpare keeps w, made ahead for a partition of shape key and n bytes, as
// a spare if there is room for one now (roomForSpare); it reports whether
// it did.
func (b *Budget) addSpare(key synth.Sizes, w *synth.ProvingAssignment, n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.roomForSpareLocked(key, n) {
		return false
	}
	b.spares = append(b.spares, spare{key: key, w: w, bytes: n})
	b.spareBytes += n
	b.peak = max(b.peak, b.reserved+b.spareBytes)
	return true
}

// roomForSpare says whether a spare of shape key and n bytes made now
// would be kept: that shape's spares are not all there, and it fits beside
// what is reserved.
func (b *Budget) roomForSpare(key synth.Sizes, n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.roomForSpareLocked(key, n)
}

func (b *Budget) roomForSpareLocked(key synth.Sizes, n int64) bool {
	return b.sparesOf(key) < b.maxSpares && b.reserved+b.spareBytes+b.resident+n <= b.limit
}

// sparesOf counts the spares of shape key. Called with mu held.
func (b *Budget) sparesOf(key synth.Sizes) int {
	n := 0
	for _, s := range b.spares {
		if s.key == key {
			n++
		}
	}
	return n
}

// SetResident sets the bytes of loaded parameters, which the limit leaves
// room for. A reservation waiting for more than the new limit gives up with
// ErrBudget.
func (b *Budget) SetResident(n int64) {
	b.mu.Lock()
	defer b.unlock()
	b.resident = n
	b.settleLocked()
	b.trimLocked()
	for w := range b.waiting {
		if limit := b.limit - b.resident; w.bytes > limit {
			w.cancel(budgetError(w.bytes, limit))
		}
	}
}

// settleLocked brings the resident bytes held on the semaphore to resident:
// it gives back what is no longer resident, and takes what is owed while it
// is free and no reservation waits (TryAcquire never jumps the queue).
func (b *Budget) settleLocked() {
	owed := b.resident - b.residentHeld
	if owed < 0 {
		b.residentHeld = b.resident
		b.sem.Release(-owed)
		return
	}
	if take := min(owed, b.limit-b.reserved-b.residentHeld); take > 0 && b.sem.TryAcquire(take) {
		b.residentHeld += take
	}
}

// trimLocked drops spares, oldest first, until what is reserved and spare
// fits the limit.
func (b *Budget) trimLocked() {
	for len(b.spares) > 0 && b.reserved+b.spareBytes+b.resident > b.limit {
		b.spareBytes -= b.spares[0].bytes
		b.dropped = append(b.dropped, b.spares[0].w)
		b.spares[0] = spare{}
		b.spares = b.spares[1:]
	}
}

// DropSpares frees the spare assignments of shape key, or all with nil.
func (b *Budget) DropSpares(key *synth.Sizes) {
	b.mu.Lock()
	defer b.unlock()
	kept := b.spares[:0]
	for _, s := range b.spares {
		if key == nil || s.key == *key {
			b.spareBytes -= s.bytes
			b.dropped = append(b.dropped, s.w)
			continue
		}
		kept = append(kept, s)
	}
	clear(b.spares[len(kept):])
	b.spares = kept
}

// unlock unlocks b.mu, then hands the assignments let go of meanwhile to
// drop: freeing their memory may be slow (pinned memory synchronizes the
// devices), and must not hold up the budget.
func (b *Budget) unlock() {
	dropped := b.dropped
	b.dropped = nil
	b.mu.Unlock()
	if b.drop == nil {
		return
	}
	for _, w := range dropped {
		b.drop(w)
	}
}

// BudgetStats is a snapshot of a Budget.
type BudgetStats struct {
	Limit    int64 // Limit()
	Reserved int64 // by partitions now, spares included
	Peak     int64 // the most ever reserved at once, spares included
	Spare    int64 // the bytes of spare assignments
}

// Stats returns a snapshot of the budget.
func (b *Budget) Stats() BudgetStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return BudgetStats{Limit: b.limit - b.resident, Reserved: b.reserved + b.spareBytes, Peak: b.peak, Spare: b.spareBytes}
}

func gib(n int64) string { return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30)) }
