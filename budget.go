package gpuc2

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/gpuc2/gpuc2/synth"
)

// hostBudget is the host memory ledger of partition working sets. A
// partition reserves its bytes before synthesis (reserve) and gives them
// back when its prover is done (release), or parks its proving assignment
// for the next partition of the same shape (put): a parked assignment keeps
// its bytes reserved, and is freed when a reservation needs the room.
// Reservations are served one at a time, in the order they are asked for.
type hostBudget struct {
	mu       sync.Mutex
	base     int64 // the configured limit
	resident int64 // subtracted from base (loaded parameters)
	used     int64 // reserved now, parked assignments included
	peak     int64
	pool     []parked
	maxPool  int
	changed  chan struct{} // closed and replaced on every release
	waiting  sync.Mutex    // one reservation at a time: first come, first served
}

type parked struct {
	key   synth.Sizes
	w     *synth.ProvingAssignment
	bytes int64
}

func newHostBudget(limit int64, maxPool int) *hostBudget {
	return &hostBudget{base: limit, maxPool: maxPool, changed: make(chan struct{})}
}

func (b *hostBudget) limitLocked() int64 { return b.base - b.resident }

// limit is the bytes partitions may reserve together now.
func (b *hostBudget) limit() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.limitLocked()
}

func (b *hostBudget) setResident(n int64) {
	b.mu.Lock()
	b.resident = n
	b.wakeLocked()
	b.mu.Unlock()
}

func (b *hostBudget) wakeLocked() {
	close(b.changed)
	b.changed = make(chan struct{})
}

// fits reports whether n bytes can ever be reserved.
func (b *hostBudget) fits(n int64) error {
	if l := b.limit(); n > l {
		return fmt.Errorf("%w: a partition needs %s, the budget is %s", ErrBudget, gib(n), gib(l))
	}
	return nil
}

// reserve blocks until n bytes are reserved for a partition of shape key,
// or ctx ends. It returns a parked proving assignment of that shape, whose
// bytes were already reserved, when there is one; else nil.
func (b *hostBudget) reserve(ctx context.Context, key synth.Sizes, n int64) (*synth.ProvingAssignment, error) {
	b.waiting.Lock()
	defer b.waiting.Unlock()
	for {
		b.mu.Lock()
		if n > b.limitLocked() {
			b.mu.Unlock()
			return nil, b.fits(n)
		}
		for i, e := range b.pool {
			if e.key == key && e.bytes == n {
				b.pool = append(b.pool[:i], b.pool[i+1:]...)
				b.mu.Unlock()
				return e.w, nil
			}
		}
		if b.used+n <= b.limitLocked() {
			b.used += n
			b.peak = max(b.peak, b.used)
			b.mu.Unlock()
			return nil, nil
		}
		if len(b.pool) > 0 { // free a parked assignment of another shape
			b.used -= b.pool[0].bytes
			b.pool[0] = parked{}
			b.pool = b.pool[1:]
			b.mu.Unlock()
			continue
		}
		ch := b.changed
		b.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
}

// release gives back n reserved bytes.
func (b *hostBudget) release(n int64) {
	b.mu.Lock()
	b.used -= n
	b.wakeLocked()
	b.mu.Unlock()
}

// put parks w (n reserved bytes, shape key) for the next partition of its
// shape, or releases its bytes when the pool is full.
func (b *hostBudget) put(key synth.Sizes, w *synth.ProvingAssignment, n int64) {
	b.mu.Lock()
	if w != nil && len(b.pool) < b.maxPool {
		b.pool = append(b.pool, parked{key: key, w: w, bytes: n})
	} else {
		b.used -= n
	}
	b.wakeLocked()
	b.mu.Unlock()
}

// dropPool frees parked assignments: all, or those of shape key.
func (b *hostBudget) dropPool(key *synth.Sizes) {
	b.mu.Lock()
	kept := b.pool[:0]
	for _, e := range b.pool {
		if key == nil || e.key == *key {
			b.used -= e.bytes
			continue
		}
		kept = append(kept, e)
	}
	clear(b.pool[len(kept):])
	b.pool = kept
	b.wakeLocked()
	b.mu.Unlock()
}

type budgetSnapshot struct {
	limit, used, peak, parked int64
}

func (b *hostBudget) snapshot() budgetSnapshot {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := budgetSnapshot{limit: b.limitLocked(), used: b.used, peak: b.peak}
	for _, e := range b.pool {
		s.parked += e.bytes
	}
	return s
}

// defaultHostBudget is the machine's memory less a margin of an eighth, at
// least 4 GiB; 16 GiB where the memory cannot be read.
func defaultHostBudget() int64 {
	total := memTotal()
	if total <= 0 {
		return 16 << 30
	}
	margin := max(total/8, 4<<30)
	return max(total-margin, 1<<30)
}

// memTotal reads MemTotal from /proc/meminfo (Linux); 0 elsewhere.
func memTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

func gib(n int64) string { return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30)) }
