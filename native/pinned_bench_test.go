package native_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gpuc2/gpuc2/native"
)

// BenchmarkPinnedAllocBeside times what allocating and freeing a large
// block of pinned host memory (4 GiB: a 32 GiB PoRep partition's witness)
// does to the process's other CUDA calls. Another goroutine repeats what a
// WinningPoSt's proof does with its 12 MiB witness: a pinned allocation,
// its upload, a free. Reported: the large allocation's and free's times,
// and the small round's median alone and its slowest beside them (the
// pipeline keeps spares so that proving never allocates: issue 56).
//
//	go test -run XX -bench PinnedAllocBeside -benchtime 3x ./native
func BenchmarkPinnedAllocBeside(b *testing.B) {
	requireGPU(b)
	const large, small = 4 << 30, 12 << 20
	st, err := native.NewStream(0)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	dst, err := native.Alloc(0, nil, small)
	if err != nil {
		b.Fatal(err)
	}
	defer dst.Free()
	round := func() time.Duration {
		start := time.Now()
		pin, err := native.AllocPinned(small)
		if err == nil {
			err = st.CopyToDeviceAsync(dst, 0, pin, 0, small)
		}
		if err == nil {
			err = st.Sync()
		}
		if ferr := pin.Free(); err == nil {
			err = ferr
		}
		if err != nil {
			b.Error(err)
		}
		return time.Since(start)
	}
	var alone []time.Duration
	for range 20 {
		alone = append(alone, round())
	}
	slices.Sort(alone)
	var allocT, freeT, worst time.Duration
	b.ResetTimer()
	for range b.N {
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var mu sync.Mutex
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				d := round()
				mu.Lock()
				worst = max(worst, d)
				mu.Unlock()
			}
		}()
		time.Sleep(20 * time.Millisecond)
		start := time.Now()
		big, err := native.AllocPinned(large)
		if err != nil {
			b.Fatal(err)
		}
		allocT += time.Since(start)
		start = time.Now()
		if err := big.Free(); err != nil {
			b.Fatal(err)
		}
		freeT += time.Since(start)
		close(stop)
		wg.Wait()
	}
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	b.ReportMetric(ms(allocT)/float64(b.N), "alloc4GiB-ms")
	b.ReportMetric(ms(freeT)/float64(b.N), "free4GiB-ms")
	b.ReportMetric(ms(alone[len(alone)/2]), "small-alone-ms")
	b.ReportMetric(ms(worst), "small-beside-max-ms")
}
