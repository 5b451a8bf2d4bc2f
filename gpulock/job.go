package gpulock

import (
	"context"
	"fmt"
	"time"
)

type jobState int

const (
	stateNew       jobState = iota
	stateUploading          // holds its upload's memory and the ledger's turn (ReserveUpload); uploads happen here
	stateReserved           // holds memory; uploads happen here
	stateComputing          // holds memory and the compute lock
	stateComputed           // holds memory; read-back happens here
	stateDone
)

var stateNames = [...]string{"new", "uploading", "reserved", "computing", "computed", "done"}

func (s jobState) String() string { return stateNames[s] }

// Job is one unit of GPU work walking the protocol's order. A Job is used by
// one goroutine; jobs of one device run concurrently.
type Job struct {
	d          *Device
	state      jobState
	bytes      int64 // reserved now
	rest       int64 // still to reserve at Extend
	reservedAt time.Time
	computeAt  time.Time
	held       bool // Hold: long-lived, counted in the device's heldNow
	aside      bool // SetAside: lent to the jobs above the default priority
	priority   int
	turn       bool // holds the ledger's turn (from ReserveUpload to Extend)
}

// NewJob starts a job on d, of the default priority (0).
func (d *Device) NewJob() *Job { return &Job{d: d} }

// NewPriorityJob starts a job on d whose waits are served before those of
// jobs of a lower priority (then first come first served): a WinningPoSt's
// proof is the next to get device memory (above 0 it never takes the
// ledger's turn: Reserve) and the next to compute. It still waits for its
// bytes to be free and for the job computing to end or yield (Yield).
func (d *Device) NewPriorityJob(priority int) *Job { return &Job{d: d, priority: priority} }

func (j *Job) expect(s jobState, step string) error {
	if j.state != s {
		return fmt.Errorf("%w: %s on device %d while %s (want %s)", ErrOrder, step, j.d.ordinal, j.state, s)
	}
	return nil
}

// Reserve blocks until bytes of the device's budget are free for this job,
// first come first served, or ctx ends. The bytes stay reserved until Done.
// A job of a priority above 0 never takes the ledger's turn: it waits in
// the ledger for all it needs at once, ahead of the turn's holder and of
// jobs of a lower priority, and takes bytes free now at once. It holds no
// part while it waits for more, so the jobs it passes only wait longer,
// never for ever.
func (j *Job) Reserve(ctx context.Context, bytes int64) error {
	if err := j.expect(stateNew, "Reserve"); err != nil {
		return err
	}
	if err := j.checkSize(bytes, 0); err != nil {
		return err
	}
	d := j.d
	start := time.Now()
	if j.priority > 0 { // without the turn (urgent)
		if err := j.take(ctx, bytes, start); err != nil {
			return err
		}
		j.state = stateReserved
		return nil
	}
	if err := d.turn.acquire(ctx, j.priority); err != nil {
		return fmt.Errorf("gpulock: device %d: waiting for %d bytes: %w", d.ordinal, bytes, err)
	}
	defer d.turn.release(j.priority)
	if err := j.checkSize(bytes, 0); err != nil { // a hold taken while this job waited for its turn
		return err
	}
	if err := j.take(ctx, bytes, start); err != nil {
		return err
	}
	j.state = stateReserved
	return nil
}

// ReserveUpload reserves, first come first served, the bytes of the
// job's upload, ahead of the rest bytes its compute needs beside them,
// which Extend reserves: the upload can then overlap another job's compute
// while that job still holds memory the rest needs. Between the two the
// job holds the ledger's turn: other jobs wait to reserve, so that the
// rest waits only on jobs that need nothing more. upload+rest larger than
// the budget fails at once with ErrTooLarge. A job of a priority above 0
// reserves both at once, as Reserve does, and its Extend waits for nothing.
func (j *Job) ReserveUpload(ctx context.Context, upload, rest int64) error {
	if err := j.expect(stateNew, "ReserveUpload"); err != nil {
		return err
	}
	if err := j.checkSize(upload, rest); err != nil {
		return err
	}
	d := j.d
	start := time.Now()
	if j.priority > 0 { // all of it at once, without the turn (urgent): Extend waits for nothing
		if err := j.take(ctx, upload+rest, start); err != nil {
			return err
		}
		d.transition(func() { d.m.UploadsAhead++ })
		j.state = stateUploading
		return nil
	}
	if err := d.turn.acquire(ctx, j.priority); err != nil {
		return fmt.Errorf("gpulock: device %d: waiting for %d bytes: %w", d.ordinal, upload, err)
	}
	if err := j.checkSize(upload, rest); err != nil { // a hold taken while this job waited for its turn
		d.turn.release(j.priority)
		return err
	}
	if err := j.take(ctx, upload, start); err != nil {
		d.turn.release(j.priority)
		return err
	}
	d.transition(func() { d.m.UploadsAhead++ })
	j.state, j.rest, j.turn = stateUploading, rest, true
	return nil
}

// Extend reserves the rest bytes ReserveUpload named, waiting until they
// are free or ctx ends, and gives the ledger's turn to the next job.
func (j *Job) Extend(ctx context.Context) error {
	if err := j.expect(stateUploading, "Extend"); err != nil {
		return err
	}
	if j.turn {
		if err := j.take(ctx, j.rest, time.Now()); err != nil {
			return err
		}
		j.d.turn.release(j.priority)
	}
	j.state, j.rest, j.turn = stateReserved, 0, false
	return nil
}

// checkSize refuses a reservation of bytes and rest more that could never
// fit: beyond the budget, or beyond what the held reservations (Hold)
// leave of it, which end only when they are evicted: waiting for them
// would wait for ever.
func (j *Job) checkSize(bytes, rest int64) error {
	d := j.d
	if bytes < 0 || rest < 0 {
		return fmt.Errorf("gpulock: device %d: negative reservation %d+%d", d.ordinal, bytes, rest)
	}
	if bytes+rest > d.memoryLimit {
		return fmt.Errorf("%w: device %d: %d bytes asked, memory limit %d", ErrTooLarge, d.ordinal, bytes+rest, d.memoryLimit)
	}
	d.mu.Lock()
	held := d.heldNow
	if j.priority > 0 { // what is set aside is held for it
		held -= d.asideNow
	}
	d.mu.Unlock()
	if bytes+rest > d.memoryLimit-held {
		return fmt.Errorf("%w: device %d: %d bytes asked, memory limit %d of which %d are held by resident keys and matrices",
			ErrTooLarge, d.ordinal, bytes+rest, d.memoryLimit, held)
	}
	return nil
}

// Hold marks the job's reservation long-lived (a resident key or
// matrices, kept until evicted): a later reservation that cannot fit
// beside every held one fails at once with ErrTooLarge instead of
// waiting for an eviction that may never come. Call it once reserved.
func (j *Job) Hold() error {
	if err := j.expect(stateReserved, "Hold"); err != nil {
		return err
	}
	if !j.held {
		d := j.d
		d.transition(func() { d.heldNow += j.bytes })
		j.held = true
	}
	return nil
}

// SetAside lends the job's held reservation (Hold) to the jobs of a
// priority above 0: their reservations take from it before the memory
// free beside it, so that one of them (a WinningPoSt's proof beside its
// resident key) never waits for memory other jobs hold. The bytes stay
// held, so other jobs find them taken; Done ends the loan. Call it once.
func (j *Job) SetAside() error {
	if !j.held || j.aside || j.state != stateReserved {
		return fmt.Errorf("%w: SetAside on device %d of a reservation not held (%s)", ErrOrder, j.d.ordinal, j.state)
	}
	d := j.d
	d.transition(func() { d.asideNow += j.bytes })
	d.mem.setAside(j.bytes)
	j.aside = true
	return nil
}

// take waits in the ledger for bytes more (the caller holds the turn, or
// is urgent) and counts them; start is when the job began to wait.
func (j *Job) take(ctx context.Context, bytes int64, start time.Time) error {
	d := j.d
	if err := d.mem.acquire(ctx, claim{n: bytes, holding: j.bytes, priority: j.priority}); err != nil {
		return fmt.Errorf("gpulock: device %d: waiting for %d bytes: %w", d.ordinal, bytes, err)
	}
	now := time.Now()
	first := j.state == stateNew
	d.transition(func() {
		wait := now.Sub(start)
		if first {
			d.m.Reservations++
		}
		d.m.ReserveWait += wait
		d.m.ReserveWaitMax = max(d.m.ReserveWaitMax, wait)
		d.reserved(bytes)
	})
	if first {
		j.reservedAt = now
	}
	j.bytes += bytes
	return nil
}

// reserved counts bytes more reserved now. Called with mu held.
func (d *Device) reserved(bytes int64) {
	d.reservedNow += bytes
	d.m.ReservedBytes = d.reservedNow
	d.m.PeakReservedBytes = max(d.m.PeakReservedBytes, d.reservedNow)
}

// released counts bytes fewer reserved now. Called with mu held.
func (d *Device) released(bytes int64) {
	d.reservedNow -= bytes
	d.m.ReservedBytes = d.reservedNow
}

// TryReserve reserves bytes only if they are free now and nobody waits
// before this job (a job between ReserveUpload and Extend is waiting); it
// never blocks. For long-lived reservations (a resident key) that must not
// queue ahead of proofs.
func (j *Job) TryReserve(bytes int64) (bool, error) {
	if err := j.expect(stateNew, "TryReserve"); err != nil {
		return false, err
	}
	if err := j.checkSize(bytes, 0); err != nil {
		return false, err
	}
	d := j.d
	if !d.turn.tryAcquire() {
		return false, nil
	}
	defer d.turn.release(0)
	if !d.mem.tryAcquire(bytes) {
		return false, nil
	}
	now := time.Now()
	d.transition(func() {
		d.m.Reservations++
		d.reserved(bytes)
	})
	j.state, j.bytes, j.reservedAt = stateReserved, bytes, now
	return true, nil
}

// Shrink gives back bytes of the job's reservation before Done: memory
// whose buffers the job has already freed (and whose frees have completed
// on the device), such as H's inputs once H has run, so that the next
// job's upload can start beside its compute.
func (j *Job) Shrink(bytes int64) error {
	if j.state != stateReserved && j.state != stateComputing && j.state != stateComputed {
		return fmt.Errorf("%w: Shrink on device %d while %s", ErrOrder, j.d.ordinal, j.state)
	}
	if j.held {
		return fmt.Errorf("%w: Shrink on device %d of a held reservation", ErrOrder, j.d.ordinal)
	}
	d := j.d
	if bytes < 0 || bytes > j.bytes {
		return fmt.Errorf("gpulock: device %d: shrinking a reservation of %d bytes by %d", d.ordinal, j.bytes, bytes)
	}
	d.transition(func() { d.released(bytes) })
	j.bytes -= bytes
	d.mem.release(bytes, j.priority)
	return nil
}

// Upload runs fn, the job's host-to-device copies, and counts its time as
// upload time (overlapping other jobs' compute is the point of the protocol).
func (j *Job) Upload(fn func() error) error {
	if j.state != stateUploading {
		if err := j.expect(stateReserved, "Upload"); err != nil {
			return err
		}
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
	return j.compute(ctx, false)
}

// compute takes the compute lock (front: ahead of the waiters of the job's
// priority).
func (j *Job) compute(ctx context.Context, front bool) error {
	d := j.d
	start := time.Now()
	acquire := d.compute.acquire
	if front {
		acquire = d.compute.acquireFront
	}
	if err := acquire(ctx, j.priority); err != nil {
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
	d.compute.release(j.priority)
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

// Yield lets a job of a higher priority that waits for the compute lock
// run first: the job gives the lock up and queues for it again, behind
// that one and ahead of those of its own priority; with none waiting, it
// keeps the lock. Call it between kernels (a proof's sections): the job's
// memory stays its own, so the other job costs it only the time of its
// kernels. yielded says whether it did; a
// job not computing does nothing. On an error (ctx ended) the job holds
// only its reservation.
func (j *Job) Yield(ctx context.Context) (yielded bool, err error) {
	if j.state != stateComputing || !j.d.compute.waitingAbove(j.priority) {
		return false, nil
	}
	j.releaseCompute()
	j.state = stateReserved
	return true, j.compute(ctx, true)
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
	if j.state == stateUploading || j.state == stateReserved || j.state == stateComputing || j.state == stateComputed {
		d := j.d
		d.transition(func() {
			d.released(j.bytes)
			d.m.ReserveHold += time.Since(j.reservedAt)
			if j.held {
				d.heldNow -= j.bytes
			}
			if j.aside {
				d.asideNow -= j.bytes
			}
		})
		if j.aside {
			d.mem.setAside(-j.bytes)
			j.aside = false
		}
		d.mem.release(j.bytes, j.priority)
		if j.turn {
			d.turn.release(j.priority)
			j.turn = false
		}
	}
	j.state = stateDone
}

// Metrics are a device's counters since it was created.
type Metrics struct {
	Ordinal           int
	MemoryLimitBytes  int64 // the ledger's size: Config.MemoryLimit
	ReservedBytes     int64 // now
	PeakReservedBytes int64
	Reservations      int64         // jobs granted memory (an Extend is not another)
	UploadsAhead      int64         // ReserveUpload's reservations: uploads reserved ahead of their compute's memory
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
