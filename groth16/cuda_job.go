package groth16

import (
	"context"
	"fmt"
	"time"

	"github.com/gpuc2/gpuc2/gpulock"
)

// deviceJob is one proof's walk through its device's gate, each wait
// reported as a phase.
type deviceJob struct {
	job    *gpulock.Job
	device int
	cfg    *proveConfig
}

func (p *CUDAProver) deviceJob(cfg *proveConfig) deviceJob {
	return deviceJob{job: p.gate.NewJob(), device: p.device, cfg: cfg}
}

// done releases what the job still holds.
func (d deviceJob) done() { d.job.Done() }

func (d deviceJob) reserve(ctx context.Context, bytes int64) error {
	begin := time.Now()
	if err := d.job.Reserve(ctx, bytes); err != nil {
		return fmt.Errorf("groth16: %w", err)
	}
	d.cfg.report("wait_vram", begin, "device", d.device, "bytes", bytes)
	return nil
}

func (d deviceJob) compute(ctx context.Context) error {
	begin := time.Now()
	if err := d.job.Compute(ctx); err != nil {
		return fmt.Errorf("groth16: %w", err)
	}
	d.cfg.report("wait_compute", begin, "device", d.device)
	return nil
}
