package stacked_test

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/pce"
	"github.com/gpuc2/gpuc2/synth/stacked"
	"github.com/gpuc2/gpuc2/synth/stacked/stackedtest"
)

var bench32 = flag.Bool("bench32", false, "also benchmark whole 32 GiB partitions (about 35 GiB of memory)")

// BenchmarkWitness synthesizes a partition (synthetic witness) into a
// ProvingAssignment, sequentially and on several goroutines: a full one
// (witness, a, b, c, densities: the prover without the recorded matrices)
// and, in the "-witness" cases, a witness-only one (the prover with them). "32GiB-1ch" is the 32 GiB shape with one challenge
// (7,238,236 rows: the 571 top-level rows and one 7,237,665-row challenge):
// 18 × its CPU time estimates a partition's. Whole 32 GiB partitions run
// with -bench32 only. cpu-s/op is the process's user+system CPU time per
// operation; peak-GiB its peak resident memory so far. "reuse" runs keep one
// ProvingAssignment and Reset it between operations, as the prover's
// pipeline does, so they exclude faulting in fresh memory.
func BenchmarkWitness(b *testing.B) {
	one32 := stacked.Params32GiB
	one32.Challenges = 1
	type bc struct {
		name    string
		p       stacked.Params
		workers []int
		reuse   bool
		witness bool // witness-only
	}
	cases := []bc{
		{"2KiB", stacked.Params2KiB, []int{1, 2}, false, false},
		{"32GiB-1ch", one32, []int{1}, false, false},
		{"32GiB-1ch-reuse", one32, []int{1}, true, false},
		{"32GiB-1ch-witness", one32, []int{1}, false, true},
	}
	if *bench32 {
		var ws []int
		for n := 1; n <= runtime.GOMAXPROCS(0); n *= 2 {
			ws = append(ws, n)
		}
		cases = append(cases, bc{"32GiB", stacked.Params32GiB, ws, false, false}, bc{"32GiB-reuse", stacked.Params32GiB, ws, true, false},
			bc{"32GiB-witness-reuse", stacked.Params32GiB, ws, true, true})
	}
	for _, bc := range cases {
		w, err := stackedtest.Partition(bc.p, 1)
		if err != nil {
			b.Fatal(err)
		}
		hint := bc.p.Sizes()
		for _, n := range bc.workers {
			b.Run(fmt.Sprintf("%s/workers=%d", bc.name, n), func(b *testing.B) {
				// The time from the last challenge's end to the end of
				// synthesis is the join (the serial copy into the parent).
				var last time.Time
				c := &stacked.Circuit{Params: bc.p, Witness: w, Workers: n,
					Progress: func(int, int) { last = time.Now() }}
				var tail time.Duration
				newAssignment := synth.NewProvingAssignment
				if bc.witness {
					newAssignment = synth.NewWitnessAssignment
				}
				var pa *synth.ProvingAssignment
				if bc.reuse {
					pa = newAssignment(hint)
					if err := c.Synthesize(context.Background(), pa); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportAllocs()
				cpu0 := cpuSeconds()
				b.ResetTimer()
				for b.Loop() {
					if bc.reuse {
						pa.Reset()
					} else {
						pa = newAssignment(hint)
					}
					if err := c.Synthesize(context.Background(), pa); err != nil {
						b.Fatal(err)
					}
					tail += time.Since(last)
				}
				b.StopTimer()
				if n > 1 {
					b.ReportMetric(tail.Seconds()/float64(b.N), "join-s/op")
				}
				b.ReportMetric(float64(hint.Rows)*float64(b.N)/b.Elapsed().Seconds(), "constraints/s")
				if cpu := cpuSeconds(); cpu > 0 {
					b.ReportMetric((cpu-cpu0)/float64(b.N), "cpu-s/op")
					b.ReportMetric(peakGiB(), "peak-GiB")
				}
				runtime.GC()
			})
		}
	}
}

// BenchmarkRecord records and compiles a partition's constraint matrices
// as the prover does on a parameter file's first proof (the facade's
// recording), with a recorder that grows its slices as the terms come
// ("unsized") and one sized from the circuit's shape and
// MatricesProfile.RecordingTerms ("sized"). B/op counts every allocation, the garbage
// of each growth included; peak-MiB is the most memory the Go runtime held
// from the OS during the operations, sampled every 2 ms, over what it held
// before them. Run it with -benchtime 1x, one case per process: the
// prover records once, and in a loop one recording's garbage is still
// held when the next one's room is made.
func BenchmarkRecord(b *testing.B) {
	one32 := stacked.Params32GiB
	one32.Challenges = 1
	for _, sized := range []bool{false, true} {
		name := "32GiB-1ch/unsized"
		if sized {
			name = "32GiB-1ch/sized"
		}
		b.Run(name, func(b *testing.B) {
			w, err := stackedtest.Partition(one32, 1)
			if err != nil {
				b.Fatal(err)
			}
			sz := one32.Sizes()
			c := &stacked.Circuit{Params: one32, Witness: w, Workers: 1}
			runtime.GC()
			debug.FreeOSMemory()
			base := goHeld()
			var peak atomic.Int64
			stop, done := make(chan struct{}), make(chan struct{})
			go func() {
				defer close(done)
				for {
					peak.Store(max(peak.Load(), goHeld()))
					select {
					case <-stop:
						return
					case <-time.After(2 * time.Millisecond):
					}
				}
			}()
			b.ReportAllocs()
			for b.Loop() {
				rec := synth.NewRecorder()
				if sized {
					rec = synth.NewRecorderSized(sz, stacked.MatricesProfile.RecordingTerms(sz))
				}
				if err := c.Synthesize(context.Background(), rec); err != nil {
					b.Fatal(err)
				}
				synth.AppendInputRows(rec, len(rec.Inputs))
				if _, err := pce.Compile(rec); err != nil {
					b.Fatal(err)
				}
			}
			close(stop)
			<-done
			b.ReportMetric(float64(peak.Load()-base)/(1<<20), "peak-MiB")
		})
	}
}

// goHeld is the memory the Go runtime holds from the OS now.
func goHeld() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}
