package gpu

import (
	"runtime/debug"
	"sync"

	"github.com/gpuc2/gpuc2/groth16"
)

// HostSections drops a file-backed key's decoded host sections as the
// devices that preload it are done with them: a section once every one of
// devices has it on the device (or needs it no more), so that devices
// preloading the key at the same time hold the sections in flight on the
// host, not the whole key (44 GiB at 32 GiB). Each device's Preload of the
// one key joins with ShareHostSections. An in-memory key keeps its
// sections.
type HostSections struct {
	mu   sync.Mutex
	left [groth16.NumSections]int // devices that have not yet marked the section
}

// NewHostSections returns the host sections shared by the preloads of a
// key on that many devices.
func NewHostSections(devices int) *HostSections {
	hs := &HostSections{}
	for s := range hs.left {
		hs.left[s] = devices
	}
	return hs
}

// ShareHostSections makes Preload one of hs's devices: each section it
// uploads resident counts as done once on the device, and when the
// preload ends (streaming, a key already resident, a failure) every
// section it has not marked counts as done too.
func ShareHostSections(hs *HostSections) PreloadOption {
	return func(c *preloadConfig) { c.hosts = hs }
}

// DropHostSections makes a resident upload drop each decoded host section
// of a file-backed key once it is on the device, so that the host holds
// one section at a time instead of the whole key: HostSections of one
// device. A streamed key is decoded straight into pinned memory and holds
// no host sections anyway.
func DropHostSections() PreloadOption {
	return func(c *preloadConfig) { c.hosts = NewHostSections(1) }
}

// hostTicket is one device's share of a HostSections for pk: the sections
// it has marked done (under hs.mu: an upload may outlive its cancelled
// preload).
type hostTicket struct {
	hs   *HostSections
	pk   *groth16.ProvingKey
	done [groth16.NumSections]bool
}

// join returns a device's ticket for pk (nil when hs is nil: the sections
// stay).
func (hs *HostSections) join(pk *groth16.ProvingKey) *hostTicket {
	if hs == nil {
		return nil
	}
	return &hostTicket{hs: hs, pk: pk}
}

// mark counts section s done for t's device; the last device's mark drops
// the section and gives its heap back at once, before the next section's
// decode would grow the heap past it. A nil ticket does nothing.
func (t *hostTicket) mark(s int) {
	if t == nil {
		return
	}
	hs := t.hs
	hs.mu.Lock()
	last := false
	if !t.done[s] {
		t.done[s] = true
		hs.left[s]--
		last = hs.left[s] == 0
	}
	hs.mu.Unlock()
	if last && t.pk.EvictSection(s) {
		debug.FreeOSMemory()
	}
}

// close marks every section t has not.
func (t *hostTicket) close() {
	for s := range groth16.NumSections {
		t.mark(s)
	}
}
