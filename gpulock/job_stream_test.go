package gpulock

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Stream runs after EndCompute only, without the compute lock: another
// job computes meanwhile; its time counts as upload time.
func TestJobStream(t *testing.T) {
	d, err := NewDevice(Config{TotalBytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a, b := d.NewJob(), d.NewJob()
	defer a.Done()
	defer b.Done()
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
	err = a.Stream(func() error {
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
