package groth16

import (
	"math/bits"
	"testing"
)

// msmBucketBytes follows the native library's window choice (choose_window
// in native/cuda/msm.cu): the windows the H200 traces printed
// (GPUC2_MSM_TRACE, BENCHMARKS.md) — c = 16 at 2^20 and 2^22, c = 20
// (13 windows) from 2^24 up — times 2^(c-1) buckets of XYZZ points.
func TestMSMBucketBytesFollowsWindowChoice(t *testing.T) {
	g1, g2 := 2*g1Bytes, 2*g2Bytes // XYZZ: four coordinates
	for _, tc := range []struct {
		n          int
		windows, c int64
		point      int64
	}{
		{n: 1 << 20, windows: 16, c: 16, point: g1},
		{n: 1 << 22, windows: 16, c: 16, point: g2},
		{n: 1 << 24, windows: 13, c: 20, point: g1},
		{n: 1 << 25, windows: 13, c: 20, point: g2},
		{n: 1 << 27, windows: 13, c: 20, point: g1},
	} {
		want := tc.windows << (tc.c - 1) * tc.point
		if got := msmBucketBytes(tc.n, tc.point); got != want {
			t.Errorf("n = 2^%d: %d bytes, want %d (c = %d)", bits.Len(uint(tc.n))-1, got, want, tc.c)
		}
	}
	if got := msmBucketBytes(0, g1); got != 0 {
		t.Errorf("no points: %d bytes", got)
	}
}
