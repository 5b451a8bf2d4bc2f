package gpulock

import (
	"context"
	"fmt"
	"time"
)

type jobState int

const (
	stateNew       jobState = iota
	stateReserved           // holds memory; uploads happen here
	stateComputing          // holds memory and the compute lock
	stateComputed           // holds memory; read-back happens here
	stateDone
)

var stateNames = [...]string{"new", "reserved", "computing", "computed", "done"}

func (s jobState) String() string { return stateNames[s] }

// Job is one unit of GPU work walking the protocol's order. A Job is used by
// one goroutine; jobs of one device run concurrently.
type Job struct {
	d          *Device
	state      jobState
	bytes      int64
	reservedAt time.Time
	computeAt  time.Time
}

// NewJob starts a job on d.
func (d *Device) NewJob() *Job { return &Job{d: d} }

func (j *Job) expect(s jobState, step string) error {
	if j.state != s {
		return fmt.Errorf("%w: %s on device %d while %s (want %s)", ErrOrder, step, j.d.ordinal, j.state, s)
	}
	return nil
}

// Reserve blocks until bytes of the device's budget are free for this job,
// first come first served, or ctx ends. The bytes stay reserved until Done.
func (j *Job) Reserve(ctx context.Context, bytes int64) error {
	if err := j.expect(stateNew, "Reserve"); err != nil {
		return err
	}
	d := j.d
	if bytes < 0 {
		return fmt.Errorf("gpulock: device %d: negative reservation %d", d.ordinal, bytes)
	}
	if bytes > d.memoryLimit {
		return fmt.Errorf("%w: device %d: %d bytes asked, memory limit %d", ErrTooLarge, d.ordinal, bytes, d.memoryLimit)
	}
	start := time.Now()
	if err := d.mem.Acquire(ctx, bytes); err != nil {
		return fmt.Errorf("gpulock: device %d: waiting for %d bytes: %w", d.ordinal, bytes, err)
	}
	now := time.Now()
	d.transition(func() {
		wait := now.Sub(start)
		d.m.Reservations++
		d.m.ReserveWait += wait
		d.m.ReserveWaitMax = max(d.m.ReserveWaitMax, wait)
		d.reservedNow += bytes
		d.m.ReservedBytes = d.reservedNow
		d.m.PeakReservedBytes = max(d.m.PeakReservedBytes, d.reservedNow)
	})
	j.state, j.bytes, j.reservedAt = stateReserved, bytes, now
	return nil
}

// TryReserve reserves bytes only if they are free now and nobody waits
// before this job; it never blocks. For long-lived reservations (a resident
// key) that must not queue ahead of proofs.
func (j *Job) TryReserve(bytes int64) (bool, error) {
	if err := j.expect(stateNew, "TryReserve"); err != nil {
		return false, err
	}
	d := j.d
	if bytes < 0 {
		return false, fmt.Errorf("gpulock: device %d: negative reservation %d", d.ordinal, bytes)
	}
	if bytes > d.memoryLimit {
		return false, fmt.Errorf("%w: device %d: %d bytes asked, memory limit %d", ErrTooLarge, d.ordinal, bytes, d.memoryLimit)
	}
	if !d.mem.TryAcquire(bytes) {
		return false, nil
	}
	now := time.Now()
	d.transition(func() {
		d.m.Reservations++
		d.reservedNow += bytes
		d.m.ReservedBytes = d.reservedNow
		d.m.PeakReservedBytes = max(d.m.PeakReservedBytes, d.reservedNow)
	})
	j.state, j.bytes, j.reservedAt = stateReserved, bytes, now
	return true, nil
}

// Upload runs fn, the job's host-to-device copies, and counts its time as
// upload time (overlapping other jobs' compute is the point of the protocol).
func (j *Job) Upload(fn func() error) error {
	if err := j.expect(stateReserved, "Upload"); err != nil {
		return err
	}
	return j.copying(fn)
}

// copying runs fn, counted as copy-engine work (upload time, and overlap
// with other jobs' compute).
func (j *Job) copying(fn func() error) error {
	d := j.d
	start := time.Now()
	d.transition(func() { d.uploading++ })
	err := fn()
	d.transition(func() {
		d.uploading--
		d.m.UploadTime += time.Since(start)
	})
	return err
}

// Compute blocks until the job may run kernels, or ctx ends.
func (j *Job) Compute(ctx context.Context) error {
	if err := j.expect(stateReserved, "Compute"); err != nil {
		return err
	}
	d := j.d
	start := time.Now()
	if err := d.compute.Acquire(ctx, 1); err != nil {
		return fmt.Errorf("gpulock: device %d: waiting for compute: %w", d.ordinal, err)
	}
	now := time.Now()
	d.transition(func() {
		wait := now.Sub(start)
		d.m.ComputeAcquisitions++
		d.m.ComputeWait += wait
		d.m.ComputeWaitMax = max(d.m.ComputeWaitMax, wait)
		d.computing++
	})
	j.state, j.computeAt = stateComputing, now
	return nil
}

// EndCompute releases the compute lock; the reservation stays for read-back.
func (j *Job) EndCompute() error {
	if err := j.expect(stateComputing, "EndCompute"); err != nil {
		return err
	}
	j.releaseCompute()
	j.state = stateComputed
	return nil
}

func (j *Job) releaseCompute() {
	d := j.d
	d.transition(func() {
		d.computing--
		d.m.ComputeHold += time.Since(j.computeAt)
	})
	d.compute.Release(1)
}

// Suspend releases the compute lock, runs fn (copies that the job's next
// kernels wait for, such as the third of H's vectors on a device that holds
// two) and takes the lock back, queueing behind the jobs that asked for it
// meanwhile, or until ctx ends (the job then holds only its reservation).
// Another job computes while fn waits on the copy engine, which the lock
// would otherwise hold idle. fn's time counts as upload time.
func (j *Job) Suspend(ctx context.Context, fn func() error) error {
	if err := j.expect(stateComputing, "Suspend"); err != nil {
		return err
	}
	j.releaseCompute()
	j.state = stateReserved
	if err := j.copying(fn); err != nil {
		return err
	}
	return j.Compute(ctx)
}

// Stream runs fn after the job's compute: work bounded by the copy engine
// (an MSM over points streamed from host memory, whose kernels are small
// beside its copies), done without the compute lock so that it overlaps
// the next job's kernels. Its time counts as upload time.
func (j *Job) Stream(fn func() error) error {
	if err := j.expect(stateComputed, "Stream"); err != nil {
		return err
	}
	return j.copying(fn)
}

// ReadBack runs fn, the job's device-to-host copies, after its compute.
func (j *Job) ReadBack(fn func() error) error {
	if err := j.expect(stateComputed, "ReadBack"); err != nil {
		return err
	}
	return fn()
}

// Done releases whatever the job still holds — the compute lock first, then
// the reservation — once its buffers are freed. It is idempotent, so it can
// be deferred right after NewJob.
func (j *Job) Done() {
	if j.state == stateComputing {
		j.releaseCompute()
	}
	if j.state == stateReserved || j.state == stateComputing || j.state == stateComputed {
		d := j.d
		d.transition(func() {
			d.reservedNow -= j.bytes
			d.m.ReservedBytes = d.reservedNow
			d.m.ReserveHold += time.Since(j.reservedAt)
		})
		d.mem.Release(j.bytes)
	}
	j.state = stateDone
}

// Metrics are a device's counters since it was created.
type Metrics struct {
	Ordinal           int
	MemoryLimitBytes  int64 // the ledger's size: Config.MemoryLimit
	ReservedBytes     int64 // now
	PeakReservedBytes int64
	Reservations      int64
	ReserveWait       time.Duration // total time jobs waited for memory
	ReserveWaitMax    time.Duration
	ReserveHold       time.Duration // total time reservations were held (released ones)

	ComputeAcquisitions int64
	ComputeWait         time.Duration
	ComputeWaitMax      time.Duration
	ComputeHold         time.Duration

	UploadTime           time.Duration // total time inside Upload, all jobs
	ComputeBusy          time.Duration // wall time with at least one job computing
	UploadComputeOverlap time.Duration // wall time with a job uploading while another computes
	Elapsed              time.Duration // wall time since the device was created
}

// BusyFraction is the share of wall time the device had a job computing.
func (m Metrics) BusyFraction() float64 {
	if m.Elapsed <= 0 {
		return 0
	}
	return float64(m.ComputeBusy) / float64(m.Elapsed)
}

// OverlapFraction is the share of upload time hidden behind other jobs' compute.
func (m Metrics) OverlapFraction() float64 {
	if m.UploadTime <= 0 {
		return 0
	}
	return float64(m.UploadComputeOverlap) / float64(m.UploadTime)
}
