package par

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
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
