package gpulock

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

var (
	// ErrTooLarge reports a reservation that could never fit the budget.
	ErrTooLarge = errors.New("gpulock: reservation larger than the device budget")
	// ErrOrder reports a Job step taken out of the protocol's order.
	ErrOrder = errors.New("gpulock: step out of order")
)

// Config sizes one device's gates.
type Config struct {
	Ordinal int // the device's ordinal, for errors and metrics
	// MemoryLimit is the device memory the ledger lets its jobs and
	// long-lived data (a resident key) reserve; the margin the driver
	// needs is its caller's to leave out.
	MemoryLimit  int64
	ComputeWidth int // jobs computing at once; 0 means 1
}

// Device holds one GPU's ledger and compute lock.
type Device struct {
	ordinal     int
	memoryLimit int64
	mem         *ledger
	// turn is the right to take from the ledger: held by the job that
	// waits in it, and by a job from ReserveUpload to Extend. With one
	// holder, a job that holds its upload's bytes while it waits for the
	// rest waits only on jobs that hold all they need (and long-lived
	// reservations), which end without it.
	turn    *gate
	compute *gate

	mu sync.Mutex
	m  Metrics
	// State for the overlap accounting, updated at every transition.
	last        time.Time
	uploading   int
	computing   int
	reservedNow int64
	heldNow     int64 // of reservedNow, held long-lived (Job.Hold)
	asideNow    int64 // of heldNow, set aside for urgent jobs (Job.SetAside)
}

// NewDevice returns the gates of one device; its ledger holds MemoryLimit bytes,
// which must be positive.
func NewDevice(cfg Config) (*Device, error) {
	limit := cfg.MemoryLimit
	if limit <= 0 {
		return nil, fmt.Errorf("gpulock: device %d: a memory limit of %d bytes leaves no memory for work", cfg.Ordinal, limit)
	}
	width := cfg.ComputeWidth
	if width <= 0 {
		width = 1
	}
	return &Device{
		ordinal:     cfg.Ordinal,
		memoryLimit: limit,
		mem:         newLedger(limit),
		turn:        newGate(1),
		compute:     newGate(width),
		last:        time.Now(),
		m:           Metrics{Ordinal: cfg.Ordinal, MemoryLimitBytes: limit},
	}, nil
}

// Ordinal is the device's ordinal.
func (d *Device) Ordinal() int { return d.ordinal }

// MemoryLimit is the number of bytes jobs may reserve together.
func (d *Device) MemoryLimit() int64 { return d.memoryLimit }

// Held is the bytes held long-lived now (Job.Hold): resident keys and
// matrices, which end only when evicted, and the memory set aside beside
// them for urgent jobs (Job.SetAside).
func (d *Device) Held() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.heldNow
}

// SetAsideBytes is the part of Held set aside for urgent jobs now
// (Job.SetAside).
func (d *Device) SetAsideBytes() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.asideNow
}

// Metrics returns a snapshot of the device's counters.
func (d *Device) Metrics() Metrics {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.advance(time.Now())
	return d.m
}

// advance charges the time since the last transition to the current state.
// Called with mu held.
func (d *Device) advance(now time.Time) {
	dt := now.Sub(d.last)
	d.last = now
	if d.computing > 0 {
		d.m.ComputeBusy += dt
		if d.uploading > 0 {
			d.m.UploadComputeOverlap += dt
		}
	}
	d.m.Elapsed += dt
}

// transition applies a state change under the lock, charging elapsed time first.
func (d *Device) transition(f func()) {
	d.mu.Lock()
	d.advance(time.Now())
	f()
	d.mu.Unlock()
}
