package gpulock

import (
	"context"
	"errors"
	"testing"
	"time"
)

// twoJobs returns a device of 100 bytes and two new jobs on it, done at
// the test's end.
func twoJobs(t *testing.T) (*Device, *Job, *Job) {
	d, err := NewDevice(Config{MemoryLimit: 100})
	if err != nil {
		t.Fatal(err)
	}
	a, b := d.NewJob(), d.NewJob()
	t.Cleanup(a.Done)
	t.Cleanup(b.Done)
	return d, a, b
}

// Stream runs after EndCompute only, without the compute lock: another
// job computes meanwhile; its time counts as upload time.
func TestJobStream(t *testing.T) {
	d, a, b := twoJobs(t)
	ctx := context.Background()
	if err := a.Reserve(ctx, 10); err != nil {
		t.Fatal(err)
	}
	if err := a.Stream(func() error { return nil }); !errors.Is(err, ErrOrder) {
		t.Fatalf("Stream before compute: %v, want ErrOrder", err)
	}
	if err := a.Compute(ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.EndCompute(); err != nil {
		t.Fatal(err)
	}
	if err := b.Reserve(ctx, 10); err != nil {
		t.Fatal(err)
	}
	err := a.Stream(func() error {
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		if err := b.Compute(cctx); err != nil { // the lock is free while a streams
			return err
		}
		time.Sleep(time.Millisecond)
		return b.EndCompute()
	})
	if err != nil {
		t.Fatal(err)
	}
	if d.Metrics().UploadTime <= 0 {
		t.Error("stream time not counted as upload time")
	}
	if err := a.ReadBack(func() error { return nil }); err != nil {
		t.Fatal(err)
	}
}

// Suspend releases the compute lock while fn runs, so another job computes
// meanwhile, and takes it back after that job; only a computing job may
// suspend, and a job whose ctx ends while it waits to compute again holds
// only its reservation.
func TestJobSuspend(t *testing.T) {
	d, a, b := twoJobs(t)
	ctx := context.Background()
	for _, j := range []*Job{a, b} {
		if err := j.Reserve(ctx, 10); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Suspend(ctx, func() error { return nil }); !errors.Is(err, ErrOrder) {
		t.Fatalf("Suspend before compute: %v, want ErrOrder", err)
	}
	if err := a.Compute(ctx); err != nil {
		t.Fatal(err)
	}
	bComputing := make(chan struct{})
	bDone := make(chan error, 1)
	var order []string
	err := a.Suspend(ctx, func() error {
		go func() {
			if err := b.Compute(ctx); err != nil {
				bDone <- err
				return
			}
			close(bComputing)
			time.Sleep(20 * time.Millisecond) // a asks for the lock back meanwhile
			order = append(order, "b")
			bDone <- b.EndCompute()
		}()
		select {
		case <-bComputing: // the lock is free while a is suspended
		case <-time.After(5 * time.Second):
			return errors.New("b did not get the compute lock while a was suspended")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	order = append(order, "a") // a computes again only after b released the lock
	if err := <-bDone; err != nil {
		t.Fatal(err)
	}
	if len(order) != 2 || order[0] != "b" {
		t.Fatalf("order %v, want b before a", order)
	}
	if m := d.Metrics(); m.ComputeAcquisitions != 3 || m.UploadTime <= 0 {
		t.Errorf("metrics %+v: want 3 acquisitions and the suspension counted as upload time", m)
	}
	if err := a.EndCompute(); err != nil {
		t.Fatal(err)
	}

	// A job cancelled while it waits for the lock again keeps its reservation only.
	c := d.NewJob()
	defer c.Done()
	if err := c.Reserve(ctx, 10); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	if err := c.Compute(cctx); err != nil {
		t.Fatal(err)
	}
	holder := d.NewJob()
	defer holder.Done()
	if err := holder.Reserve(ctx, 10); err != nil {
		t.Fatal(err)
	}
	err = c.Suspend(cctx, func() error {
		if err := holder.Compute(ctx); err != nil { // holds the lock: c cannot take it back
			return err
		}
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Suspend with ctx cancelled while waiting: %v, want context.Canceled", err)
	}
	if err := c.EndCompute(); !errors.Is(err, ErrOrder) {
		t.Fatalf("EndCompute after a failed Suspend: %v, want ErrOrder (the job does not compute)", err)
	}
	if got := d.Metrics().ReservedBytes; got != 40 {
		t.Fatalf("reserved %d, want 40 (a, b, c, holder)", got)
	}
}
