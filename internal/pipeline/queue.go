package pipeline

import (
	"slices"
	"sync"
)

// queue holds tasks in (priority, proof, partition) order: a proof's
// partitions go ahead of every queued partition of a lower priority, and
// never wait behind those of a later proof of the same priority.
type queue struct {
	mu     sync.Mutex
	items  []*task
	notify chan struct{} // capacity 1: the queue may have grown
	// urgentNotify is notify for popUrgent's callers, who take only a
	// task above the default priority: their wake-ups are their own, so
	// they never swallow one that pop's callers wait for.
	urgentNotify chan struct{}
}

func newQueue() *queue {
	return &queue{notify: make(chan struct{}, 1), urgentNotify: make(chan struct{}, 1)}
}

func (q *queue) signal() {
	for _, c := range []chan struct{}{q.notify, q.urgentNotify} {
		select {
		case c <- struct{}{}:
		default:
		}
	}
}

// urgent says whether t is above the default priority.
func urgent(t *task) bool { return t.job.spec.Priority > 0 }

// popUrgent takes the first task once it is urgent, waiting for one; nil
// once done is closed.
func (q *queue) popUrgent(done <-chan struct{}) *task {
	for {
		if t := q.popIf(urgent); t != nil {
			if q.headIs(urgent) { // another urgent popper may be waiting
				select {
				case q.urgentNotify <- struct{}{}:
				default:
				}
			}
			return t
		}
		select {
		case <-q.urgentNotify:
		case <-done:
			return nil
		}
	}
}

func order(a, b *task) int {
	if pa, pb := a.job.spec.Priority, b.job.spec.Priority; pa != pb {
		if pa > pb {
			return -1
		}
		return 1
	}
	if a.job.seq != b.job.seq {
		if a.job.seq < b.job.seq {
			return -1
		}
		return 1
	}
	return a.k - b.k
}

func (q *queue) push(ts ...*task) {
	q.mu.Lock()
	for _, t := range ts {
		i, _ := slices.BinarySearchFunc(q.items, t, order)
		q.items = slices.Insert(q.items, i, t)
	}
	q.mu.Unlock()
	q.signal()
}

// pop takes the first task, waiting for one; nil once done is closed.
func (q *queue) pop(done <-chan struct{}) *task {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			t := q.items[0]
			q.items[0] = nil
			q.items = q.items[1:]
			more := len(q.items) > 0
			q.mu.Unlock()
			if more { // another popper may be waiting
				q.signal()
			}
			return t
		}
		q.mu.Unlock()
		select {
		case <-q.notify:
		case <-done:
			return nil
		}
	}
}

// headIs reports whether there is a first task and ok says so of it.
func (q *queue) headIs(ok func(*task) bool) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items) > 0 && ok(q.items[0])
}

// popIf takes the first task if ok says so, without waiting; else nil.
func (q *queue) popIf(ok func(*task) bool) *task {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 || !ok(q.items[0]) {
		return nil
	}
	t := q.items[0]
	q.items[0] = nil
	q.items = q.items[1:]
	return t
}

// remove takes out the tasks of job j.
func (q *queue) remove(j *Job) []*task {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []*task
	kept := q.items[:0]
	for _, t := range q.items {
		if t.job == j {
			out = append(out, t)
		} else {
			kept = append(kept, t)
		}
	}
	clear(q.items[len(kept):])
	q.items = kept
	return out
}

func (q *queue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}
