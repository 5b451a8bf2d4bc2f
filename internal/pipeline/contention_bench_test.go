package pipeline_test

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/internal/par"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/post"
	"github.com/gpuc2/gpuc2/synth/stacked"
	"github.com/gpuc2/gpuc2/synth/stacked/stackedtest"
)

var (
	contenders = flag.Int("contenders", 3, "BenchmarkUrgentSynthesis: PoRep syntheses running beside the WinningPoSt's")
	porepShape = flag.String("porep", "32GiB-1ch", "BenchmarkUrgentSynthesis: the contenders' partitions: 8MiB, or 32GiB-1ch (the 32 GiB shape with one challenge, witness only)")
)

// BenchmarkUrgentSynthesis synthesizes a WinningPoSt (synthetic vanilla
// proofs) alone and while -contenders goroutines synthesize PoRep
// partitions back to back, each on every core, as the pipeline's synthesis
// workers do for the proofs in flight. "urgent" runs mark the WinningPoSt's
// context as the pipeline marks a job above the default priority. It
// reports the WinningPoSt's wall time (ns/op), the contenders' partitions
// per second, and from runtime/metrics per operation: the goroutines' time
// runnable but not running (sched-wait), GC assist and mutex wait CPU time,
// and GC cycles.
//
//	go test -run '^$' -bench UrgentSynthesis -benchtime 20x ./internal/pipeline
func BenchmarkUrgentSynthesis(b *testing.B) {
	if testing.Short() {
		b.Skip("synthesizes PoRep partitions")
	}
	for _, size := range []abi.RegisteredPoStProof{abi.RegisteredPoStProof_StackedDrgWinning8MiBV1, abi.RegisteredPoStProof_StackedDrgWinning32GiBV1} {
		winning := winningCircuit(b, size)
		name := map[abi.RegisteredPoStProof]string{abi.RegisteredPoStProof_StackedDrgWinning8MiBV1: "8MiB", abi.RegisteredPoStProof_StackedDrgWinning32GiBV1: "32GiB"}[size]
		for _, mode := range []struct {
			name       string
			contenders int
			urgent     bool
		}{{"alone", 0, false}, {"contended", *contenders, false}, {"contended-urgent", *contenders, true}} {
			b.Run(fmt.Sprintf("winning=%s/%s/GOMAXPROCS=%d", name, mode.name, runtime.GOMAXPROCS(0)), func(b *testing.B) {
				stop, done := contend(b, mode.contenders)
				time.Sleep(200 * time.Millisecond) // the contenders under way
				sizes := winning.Sizes()
				m0 := sample()
				b.ResetTimer()
				for b.Loop() {
					ctx, end := context.Background(), func() {}
					if mode.urgent { // as the pipeline's synthesize marks it
						ctx, end = par.Urgent(ctx)
					}
					err := winning.Synthesize(ctx, synth.NewWitnessAssignment(sizes))
					end()
					if err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				m1 := sample()
				parts := stop()
				n := float64(b.N)
				b.ReportMetric((m1.schedWait-m0.schedWait)/n*1e3, "sched-wait-ms/op")
				b.ReportMetric((m1.assist-m0.assist)/n*1e3, "gc-assist-ms/op")
				b.ReportMetric((m1.mutex-m0.mutex)/n*1e3, "mutex-ms/op")
				b.ReportMetric((m1.gcs-m0.gcs)/n, "gc/op")
				if mode.contenders > 0 {
					b.ReportMetric(float64(parts)/b.Elapsed().Seconds(), "porep-partitions/s")
				}
				<-done
			})
		}
	}
}

// BenchmarkPoRepThroughput synthesizes the contenders' partitions alone,
// -contenders at a time: the throughput the urgent gate must leave alone.
//
//	go test -run '^$' -bench PoRepThroughput -benchtime 10s ./internal/pipeline
func BenchmarkPoRepThroughput(b *testing.B) {
	if testing.Short() {
		b.Skip("synthesizes PoRep partitions")
	}
	c := porepCircuit(b)
	sizes := c.Params.Sizes()
	b.ResetTimer()
	var wg sync.WaitGroup
	var next atomic.Int64
	for range max(*contenders, 1) {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				if err := c.Synthesize(context.Background(), synth.NewWitnessAssignment(sizes)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "partitions/s")
}

// winningCircuit is a WinningPoSt of size's over synthetic vanilla proofs.
func winningCircuit(b *testing.B, size abi.RegisteredPoStProof) *post.Circuit {
	b.Helper()
	p, err := post.ParamsFor(size)
	if err != nil {
		b.Fatal(err)
	}
	randomness := [32]byte{1, 2, 3, 31: 0x2a}
	proofs, err := post.SyntheticSectorProofs(context.Background(), p, randomness, []uint64{7}, 1)
	if err != nil {
		b.Fatal(err)
	}
	w, err := post.WitnessFor(p, proofs)
	if err != nil {
		b.Fatal(err)
	}
	return &post.Circuit{Params: p, Witness: w, Verify: true}
}

var porepCache struct {
	sync.Mutex
	c map[string]*stacked.Circuit
}

// porepCircuit is a synthetic partition of -porep's shape.
func porepCircuit(b *testing.B) *stacked.Circuit {
	b.Helper()
	porepCache.Lock()
	defer porepCache.Unlock()
	if c := porepCache.c[*porepShape]; c != nil {
		return c
	}
	var p stacked.Params
	switch *porepShape {
	case "8MiB":
		p = stacked.Params8MiB
	case "32GiB-1ch":
		p = stacked.Params32GiB
		p.Challenges = 1
	default:
		b.Fatalf("-porep %q: want 8MiB or 32GiB-1ch", *porepShape)
	}
	w, err := stackedtest.Partition(p, 1)
	if err != nil {
		b.Fatal(err)
	}
	c := &stacked.Circuit{Params: p, Witness: w}
	if porepCache.c == nil {
		porepCache.c = map[string]*stacked.Circuit{}
	}
	porepCache.c[*porepShape] = c
	return c
}

// contend starts n goroutines synthesizing PoRep partitions back to back
// (witness only, on every core each) until stop, which returns how many
// they finished; done closes once they have all returned.
func contend(b *testing.B, n int) (stop func() int64, done chan struct{}) {
	done = make(chan struct{})
	if n == 0 {
		close(done)
		return func() int64 { return 0 }, done
	}
	c := porepCircuit(b)
	sizes := c.Params.Sizes()
	ctx, cancel := context.WithCancel(context.Background())
	var finished atomic.Int64
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for ctx.Err() == nil {
				if err := c.Synthesize(ctx, synth.NewWitnessAssignment(sizes)); err == nil {
					finished.Add(1)
				}
			}
		})
	}
	go func() { wg.Wait(); close(done) }()
	return func() int64 { cancel(); return finished.Load() }, done
}

type sampled struct{ schedWait, assist, mutex, gcs float64 }

// sample reads the runtime's totals: the goroutines' time runnable but
// not running (the /sched/latencies histogram's sum, from bucket
// midpoints), GC assist CPU time, mutex wait time, GC cycles.
func sample() sampled {
	s := []metrics.Sample{{Name: "/sched/latencies:seconds"}, {Name: "/cpu/classes/gc/mark/assist:cpu-seconds"},
		{Name: "/sync/mutex/wait/total:seconds"}, {Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	var out sampled
	h := s[0].Value.Float64Histogram()
	for i, c := range h.Counts {
		lo, hi := h.Buckets[i], h.Buckets[i+1]
		if lo < 0 || hi > 1e9 {
			continue
		}
		out.schedWait += 8 * float64(c) * (lo + hi) / 2 // the runtime samples one scheduling in 8
	}
	out.assist = s[1].Value.Float64()
	out.mutex = s[2].Value.Float64()
	out.gcs = float64(s[3].Value.Uint64())
	return out
}
