package par

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestRangeCoversEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 1000, 1 << 16} {
		for _, minChunk := range []int{0, 1, 3, 1 << 20} {
			seen := make([]int32, n)
			err := Range(context.Background(), n, minChunk, func(lo, hi int) error {
				for i := lo; i < hi; i++ {
					atomic.AddInt32(&seen[i], 1)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range seen {
				if c != 1 {
					t.Fatalf("n %d, minChunk %d: index %d seen %d times", n, minChunk, i, c)
				}
			}
		}
	}
}

func TestChunksErrorsAndCancel(t *testing.T) {
	boom := errors.New("boom")
	if err := Chunks(context.Background(), 100, 10, func(lo, hi int) error {
		if lo == 50 {
			return boom
		}
		return nil
	}); !errors.Is(err, boom) {
		t.Fatalf("error not returned: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	if err := Chunks(ctx, 100, 10, func(lo, hi int) error { ran = true; return nil }); !errors.Is(err, context.Canceled) || ran {
		t.Fatalf("cancelled: err %v, ran %v", err, ran)
	}
	if err := Range(ctx, 5, 1, func(lo, hi int) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Range: %v", err)
	}
}

// Yield holds other work while urgent work is under way (two here,
// overlapping), lets the urgent work through, and returns when the last
// ends or its context is cancelled.
func TestYieldWaitsForUrgentWork(t *testing.T) {
	if err := Yield(context.Background()); err != nil {
		t.Fatal(err)
	}
	u1, end1 := Urgent(context.Background())
	u2, end2 := Urgent(context.Background())
	if err := Yield(u1); err != nil {
		t.Fatal(err)
	}
	if err := Yield(u2); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Yield(cctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: got %v", err)
	}
	done := make(chan error)
	go func() { done <- Yield(context.Background()) }()
	end1()
	end1() // once only: u2's work is still under way
	select {
	case err := <-done:
		t.Fatalf("Yield returned (%v) while urgent work was under way", err)
	case <-time.After(20 * time.Millisecond):
	}
	end2()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Yield still waits after the urgent work ended")
	}
	if err := Yield(context.Background()); err != nil {
		t.Fatal(err)
	}
}
