package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"sync"
	"time"
)

// memSample is the process's memory at one moment.
type memSample struct {
	at          time.Duration // since the sampler started
	rss         int64         // resident set (VmRSS)
	heapObjects int64         // the Go heap's objects, live or not yet swept
	goOther     int64         // the rest the Go runtime holds from the OS
	pinned      int64         // page-locked host memory for the GPUs
}

// memSampler samples the process's memory every interval until stop and
// keeps the sample of the largest resident set, so that a run's peak RSS
// splits into the Go heap, the Go runtime's other memory, pinned memory and
// the rest (the native library, mapped files). With profile set it writes
// the heap profile (as of the last GC) to profile whenever the resident set
// has grown by step since the last one it wrote.
type memSampler struct {
	pinned   func() int64
	profile  string
	step     int64
	interval time.Duration

	start    time.Time
	stopc    chan struct{}
	stopOnce sync.Once
	done     chan struct{}

	mu       sync.Mutex
	peak     memSample
	profiled int64 // the resident set when the profile was last written
	err      error // the first failure to write the profile
}

// startMemSampler starts sampling; pinned reports the pinned host bytes.
// It returns nil where the resident set cannot be read (no /proc).
func startMemSampler(pinned func() int64, profile string, step int64, interval time.Duration) *memSampler {
	if _, err := residentSet(); err != nil {
		return nil
	}
	s := &memSampler{pinned: pinned, profile: profile, step: step, interval: interval, start: time.Now(),
		stopc: make(chan struct{}), done: make(chan struct{})}
	go s.run()
	return s
}

func (s *memSampler) run() {
	defer close(s.done)
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		s.sample()
		select {
		case <-s.stopc:
			return
		case <-t.C:
		}
	}
}

func (s *memSampler) sample() {
	rss, err := residentSet()
	if err != nil {
		return
	}
	m := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(m)
	objects, total, released := int64(m[0].Value.Uint64()), int64(m[1].Value.Uint64()), int64(m[2].Value.Uint64())
	x := memSample{at: time.Since(s.start), rss: rss, heapObjects: objects, goOther: total - released - objects, pinned: s.pinned()}
	s.mu.Lock()
	defer s.mu.Unlock()
	if x.rss <= s.peak.rss {
		return
	}
	s.peak = x
	if s.profile != "" && s.err == nil && x.rss >= s.profiled+s.step {
		s.profiled = x.rss
		s.err = writeProfile(s.profile)
	}
}

// stop ends the sampling after one last sample and returns the peak and the
// first failure to write the profile. Calling it again only reports.
func (s *memSampler) stop() (memSample, error) {
	s.stopOnce.Do(func() {
		close(s.stopc)
		<-s.done
		s.sample()
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak, s.err
}

// String says where the peak's bytes were.
func (x memSample) String() string {
	rest := x.rss - x.heapObjects - x.goOther - x.pinned
	return fmt.Sprintf("%.1f GiB %.0f s in: Go heap objects %.1f GiB, the Go runtime's other memory %.1f GiB, "+
		"pinned %.1f GiB, the rest %.1f GiB (the native library, mapped files)",
		gib(x.rss), x.at.Seconds(), gib(x.heapObjects), gib(x.goOther), gib(x.pinned), gib(rest))
}

// writeProfile writes the heap profile as of the last GC (none is forced:
// at the peak that would change what is measured).
func writeProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// residentSet is the process's resident set now (VmRSS of /proc/self/status; Linux).
func residentSet() (int64, error) { return procStatus("VmRSS:") }

// procStatus reads one "kB" field of /proc/self/status.
func procStatus(field string) (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err != nil {
				return 0, err
			}
			return kb << 10, nil
		}
	}
	return 0, errors.New("no " + field + " in /proc/self/status")
}
