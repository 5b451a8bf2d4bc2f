package gpu

import (
	"context"
	"fmt"
	"time"

	"github.com/gpuc2/gpuc2/gpulock"
	"github.com/gpuc2/gpuc2/groth16/internal/prover"
	"github.com/gpuc2/gpuc2/native"
)

// Both kinds of proof let an urgent one compute between their sections.
var (
	_ prover.Yielder = (*residentProof)(nil)
	_ prover.Yielder = (*streamedProof)(nil)
)

// deviceJob is one proof's walk through its device's gate, each wait
// reported as a phase.
type deviceJob struct {
	job    *gpulock.Job
	device int
	cfg    *prover.Settings
}

func (p *Device) deviceJob(cfg *prover.Settings) deviceJob {
	return deviceJob{job: p.gate.NewPriorityJob(cfg.Priority), device: p.device, cfg: cfg}
}

// done releases what the job still holds.
func (d deviceJob) done() { d.job.Done() }

func (d deviceJob) reserve(ctx context.Context, bytes int64) error {
	begin := time.Now()
	if err := d.job.Reserve(ctx, bytes); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	d.cfg.Report("wait_vram", begin, "device", d.device, "bytes", bytes)
	return nil
}

// reserveUpload reserves a proof's upload ahead of the rest it computes
// with (gpulock's ReserveUpload), extend the rest; each wait is reported
// as wait_vram.
func (d deviceJob) reserveUpload(ctx context.Context, upload, rest int64) error {
	begin := time.Now()
	if err := d.job.ReserveUpload(ctx, upload, rest); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	d.cfg.Report("wait_vram", begin, "device", d.device, "bytes", upload)
	return nil
}

func (d deviceJob) extend(ctx context.Context, rest int64) error {
	begin := time.Now()
	if err := d.job.Extend(ctx); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	d.cfg.Report("wait_vram", begin, "device", d.device, "bytes", rest)
	return nil
}

func (d deviceJob) compute(ctx context.Context) error {
	begin := time.Now()
	if err := d.job.Compute(ctx); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	d.cfg.Report("wait_compute", begin, "device", d.device)
	return nil
}

// yield lets a proof of a higher priority waiting for the compute lock
// compute first (gpulock's Yield); the wait is reported as "yield".
func (d deviceJob) yield(ctx context.Context) error {
	begin := time.Now()
	yielded, err := d.job.Yield(ctx)
	if err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	if yielded {
		d.cfg.Report("yield", begin, "device", d.device)
	}
	return nil
}

// suspend runs upload without the compute lock (gpulock's Suspend), then
// waits to compute again, each reported as a phase.
func (d deviceJob) suspend(ctx context.Context, upload func() error) error {
	var uploaded time.Time
	err := d.job.Suspend(ctx, func() error {
		begin := time.Now()
		defer func() {
			uploaded = time.Now()
			d.cfg.Report("upload", begin, "device", d.device)
		}()
		return upload()
	})
	if err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	d.cfg.Report("wait_compute", uploaded, "device", d.device)
	return nil
}

// proofMemory is one proof's stream and the device buffers it allocates
// from the pool in that stream's order, freed together.
type proofMemory struct {
	st   *native.Stream
	bufs []*native.Buffer
}

// alloc allocates bytes from the device's pool in the stream's order.
func (pm *proofMemory) alloc(bytes int64) (*native.Buffer, error) {
	b, err := native.Alloc(pm.st.Device(), pm.st, bytes)
	if err == nil {
		pm.bufs = append(pm.bufs, b)
	}
	return b, err
}

// freeBuffers frees every buffer in stream order (a freed one again is a
// no-op).
func (pm *proofMemory) freeBuffers() {
	for _, b := range pm.bufs {
		b.Free()
	}
	pm.bufs = nil
}

// readBack frees the buffers and waits for the stream, so that a
// reservation released after it ends once the memory is back in the pool.
func (pm *proofMemory) readBack() error {
	pm.freeBuffers()
	return pm.st.Sync()
}
