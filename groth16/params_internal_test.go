package groth16

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/internal/zcash"
)

// A caller waiting on another's fill takes over when that fill is cancelled,
// and the cancelled attempt leaves nothing cached.
func TestLazyCancelledFillIsRetried(t *testing.T) {
	var z lazy[int]
	var calls atomic.Int32
	started := make(chan struct{})
	fill := func(ctx context.Context) ([]int, error) {
		if calls.Add(1) == 1 {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return []int{42}, nil
	}
	leaderCtx, cancel := context.WithCancel(context.Background())
	leaderErr := make(chan error, 1)
	go func() {
		_, err := z.get(leaderCtx, fill)
		leaderErr <- err
	}()
	<-started
	follower := make(chan []int, 1)
	go func() {
		v, err := z.get(context.Background(), fill)
		assert.NoError(t, err)
		follower <- v
	}()
	time.Sleep(10 * time.Millisecond) // let the follower start waiting
	cancel()
	require.ErrorIs(t, <-leaderErr, context.Canceled)
	assert.Equal(t, []int{42}, <-follower)
	assert.EqualValues(t, 2, calls.Load())

	v, err := z.get(context.Background(), fill)
	require.NoError(t, err)
	assert.Equal(t, []int{42}, v)
	assert.EqualValues(t, 2, calls.Load(), "cached after success")
}

// A waiter whose own context ends stops waiting without disturbing the fill.
func TestLazyWaiterCancelled(t *testing.T) {
	var z lazy[int]
	release := make(chan struct{})
	started := make(chan struct{})
	go func() {
		_, _ = z.get(context.Background(), func(context.Context) ([]int, error) {
			close(started)
			<-release
			return []int{1}, nil
		})
	}()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, err := z.get(ctx, nil)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	close(release)
	v, err := z.get(context.Background(), func(context.Context) ([]int, error) { return nil, errors.New("not called") })
	require.NoError(t, err)
	assert.Equal(t, []int{1}, v)
}

// Decode errors are cached; evict clears them, and a fill that straddles an
// evict does not repopulate the cache.
func TestLazyErrorsAndEvict(t *testing.T) {
	var z lazy[int]
	bad := errors.New("bad")
	var calls int
	fill := func(context.Context) ([]int, error) { calls++; return nil, bad }
	for range 2 {
		_, err := z.get(context.Background(), fill)
		require.ErrorIs(t, err, bad)
	}
	assert.Equal(t, 1, calls)
	z.evict()
	_, err := z.get(context.Background(), func(context.Context) ([]int, error) {
		z.evict()
		return []int{7}, nil
	})
	require.NoError(t, err)
	assert.False(t, z.done, "stale fill not cached")

	z.pin([]int{3})
	z.evict()
	v, err := z.get(context.Background(), fill)
	require.NoError(t, err)
	assert.Equal(t, []int{3}, v, "pinned values survive evict")
}

func TestCheckParamsShape(t *testing.T) {
	ok := []SectionCounts{{H: 0, L: 0, A: 1, B: 0}, {H: 1, L: 1, A: 2, B: 2}, {H: 134217727, L: 130169893, A: 129753620, B: 33112282}}
	for _, c := range ok {
		nIC := 1
		if c.H == 134217727 {
			nIC = 328 // 32 GiB PoRep: .vk is 32,356 = 868 + 96·328 bytes
		}
		_, err := checkParamsShape(c, nIC)
		assert.NoError(t, err, "%+v", c)
	}
}

// The layout parse at open reads the mapping too: a file that shrinks
// between its fstat and the parse gives an error, not SIGBUS.
func TestOpenMappedShrunkBeforeParse(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("mapping is Linux-tested")
	}
	path := filepath.Join(t.TempDir(), "key.params")
	b := make([]byte, 1<<16)
	binary.BigEndian.PutUint32(b[vkPointsSize:], 1) // no valid points needed: the fault comes first
	require.NoError(t, os.WriteFile(path, b, 0o644))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, os.Truncate(path, 0))
	_, err = openMapped(f, path, int64(len(b)), openConfig{})
	require.ErrorIs(t, err, ErrMalformedKey)
	assert.Contains(t, err.Error(), path+": groth16: reading the layout: the file shrank while mapped")
}

// Only a fault on the mapped bytes becomes an error: any other panic in a
// guarded read is a bug and goes on.
func TestReadMappedPassesOtherPanics(t *testing.T) {
	data := make([]byte, 8)
	var nilSlice []byte
	assert.Panics(t, func() { _ = readMapped(data, func() error { _ = nilSlice[3]; return nil }) })
	assert.Panics(t, func() { _ = readMapped(data, func() error { panic("bug") }) })
	sentinel := errors.New("x")
	assert.Equal(t, sentinel, readMapped(data, func() error { return sentinel }))
}

// BenchmarkSectionRead compares two ways of reading a key file's points for
// decoding, with the same decoder and chunks: from the mapping, guarded by
// readMapped (what OpenProvingKey does), and by pread into per-worker
// buffers (the alternative, which cannot fault). It reads every section of
// $GPUC2_BENCH_PARAMS (BenchmarkProvingKeyLoad makes one) and discards the
// points; drop the file's cached pages first (dd if=FILE iflag=nocache
// count=0) to measure a cold read.
func BenchmarkSectionRead(b *testing.B) {
	path := os.Getenv("GPUC2_BENCH_PARAMS")
	if path == "" {
		b.Skip("GPUC2_BENCH_PARAMS names no .params file")
	}
	pk, err := OpenProvingKey(path)
	require.NoError(b, err)
	defer pk.Close()
	f, err := os.Open(path)
	require.NoError(b, err)
	defer f.Close()
	mapped := func(s, lo, hi int, _ []byte) []byte {
		size := sectionElemSize(s)
		return pk.data[pk.offsets[s]+int64(lo)*size : pk.offsets[s]+int64(hi)*size]
	}
	pread := func(s, lo, hi int, buf []byte) []byte {
		size := sectionElemSize(s)
		buf = buf[:int64(hi-lo)*size]
		if _, err := f.ReadAt(buf, pk.offsets[s]+int64(lo)*size); err != nil {
			panic(err)
		}
		return buf
	}
	for _, how := range []struct {
		name string
		read func(s, lo, hi int, buf []byte) []byte
	}{{"mmap", mapped}, {"pread", pread}} {
		b.Run(how.name, func(b *testing.B) {
			var points int
			for b.Loop() {
				points = 0
				for s := range NumSections {
					n := pk.counts.Section(s)
					points += n
					require.NoError(b, readSectionChunks(pk.data, s, n, how.read))
				}
			}
			b.SetBytes(int64(len(pk.data)))
			b.ReportMetric(float64(points)*float64(b.N)/b.Elapsed().Seconds(), "points/s")
		})
	}
}

// readSectionChunks decodes n points of section s over GOMAXPROCS workers,
// each chunk's bytes got from read, inside readMapped as decodeSection does.
func readSectionChunks(data []byte, s, n int, read func(s, lo, hi int, buf []byte) []byte) error {
	chunks := (n + decodeChunk - 1) / decodeChunk
	var next atomic.Int64
	errs := make(chan error, runtime.GOMAXPROCS(0))
	for range cap(errs) {
		go func() {
			buf := make([]byte, decodeChunk*sectionElemSize(s))
			g1 := make([]bls12381.G1Affine, decodeChunk)
			g2 := make([]bls12381.G2Affine, decodeChunk)
			errs <- readMapped(data, func() error {
				for c := int(next.Add(1) - 1); c < chunks; c = int(next.Add(1) - 1) {
					lo, hi := c*decodeChunk, min(n, (c+1)*decodeChunk)
					b := read(s, lo, hi, buf)
					for i := range hi - lo {
						var err error
						if s == SectionBG2 {
							err = zcash.DecodeUncompressedG2(&g2[i], b[i*g2Uncompressed:], zcash.AcceptIdentity, zcash.SkipSubgroup)
						} else {
							err = zcash.DecodeUncompressedG1(&g1[i], b[i*g1Uncompressed:], zcash.AcceptIdentity, zcash.SkipSubgroup)
						}
						if err != nil {
							return err
						}
					}
				}
				return nil
			})
		}()
	}
	var first error
	for range cap(errs) {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}
