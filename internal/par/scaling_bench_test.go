package par_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/internal/par"
)

// BenchmarkHostScaling measures what the host itself allows N goroutines:
// "compute" is a chain of Fr multiplications in registers (no memory
// traffic), "write" stores 32-byte elements into a private 256 MiB buffer
// per goroutine, as synthesis writes its a, b, c and aux vectors. Each
// reports its total rate; divide by the workers=1 figure for the scaling a
// perfectly parallel program could reach on this machine.
func BenchmarkHostScaling(b *testing.B) {
	var ws []int
	for n := 1; n <= runtime.GOMAXPROCS(0); n *= 2 {
		ws = append(ws, n)
	}
	const mulsPerOp = 1 << 20
	for _, n := range ws {
		b.Run(fmt.Sprintf("compute/workers=%d", n), func(b *testing.B) {
			for b.Loop() {
				run(n, func(w int) {
					var x, y fr.Element
					x.SetUint64(uint64(w) + 3)
					y.SetUint64(7)
					for range mulsPerOp {
						x.Mul(&x, &y)
					}
					sink(x)
				})
			}
			b.ReportMetric(float64(n*mulsPerOp)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mmul/s")
		})
	}
	const elems = 256 << 20 / 32
	for _, n := range ws {
		b.Run(fmt.Sprintf("write/workers=%d", n), func(b *testing.B) {
			bufs := make([][]fr.Element, n)
			run(n, func(w int) { bufs[w] = make([]fr.Element, elems) }) // faulted in here, not timed
			var v fr.Element
			v.SetUint64(5)
			b.ResetTimer()
			for b.Loop() {
				run(n, func(w int) {
					buf := bufs[w]
					for i := range buf {
						buf[i] = v
					}
				})
			}
			b.ReportMetric(float64(n*elems*32)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
}

// run runs f(0) … f(n-1) on n goroutines at once (n ≤ GOMAXPROCS).
func run(n int, f func(w int)) {
	_ = par.Chunks(context.Background(), n, 1, func(w, _ int) error { f(w); return nil })
}

var sinkMu sync.Mutex
var sunk fr.Element

func sink(x fr.Element) { sinkMu.Lock(); sunk = x; sinkMu.Unlock() }
