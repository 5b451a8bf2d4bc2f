package groth16

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gpuc2/gpuc2/gpulock"
	"github.com/gpuc2/gpuc2/native"
)

// Device errors callers can test with errors.Is.
var (
	// ErrCUDAUnavailable reports that the native CUDA library is not loaded
	// or sees no GPU. It is native.ErrNotAvailable.
	ErrCUDAUnavailable = native.ErrNotAvailable
	// ErrOutOfDeviceMemory reports a GPU that cannot hold a proof's work:
	// the native library's out-of-memory status, or a reservation larger
	// than the device's VRAM budget.
	ErrOutOfDeviceMemory = errors.New("groth16: out of device memory")
	// ErrProverClosed reports use of a CUDAProver after Close.
	ErrProverClosed = errors.New("groth16: CUDA prover is closed")
)

// DeviceMetrics are a GPU's ledger and compute-lock counters.
type DeviceMetrics = gpulock.Metrics

// DeviceInfo describes one CUDA device.
type DeviceInfo struct {
	Ordinal    int
	Name       string
	TotalBytes int64
}

// CUDAAvailable reports whether the native library is loaded and sees a GPU.
func CUDAAvailable() bool { return native.Available() }

// CUDAUnavailable says why the CUDA backend is unavailable (where the
// library was looked for, or that no device was found), wrapping
// ErrCUDAUnavailable; nil when it is available.
func CUDAUnavailable() error { return native.Load() }

// CUDADevices lists the visible CUDA devices.
func CUDADevices() ([]DeviceInfo, error) {
	devs, err := native.Devices()
	if err != nil {
		return nil, fmt.Errorf("groth16: listing CUDA devices: %w", err)
	}
	out := make([]DeviceInfo, len(devs))
	for i, d := range devs {
		out[i] = DeviceInfo{Ordinal: d.Index, Name: d.Name, TotalBytes: int64(d.TotalMemory)}
	}
	return out, nil
}

// CUDAConfig configures the prover of one GPU.
type CUDAConfig struct {
	Device int // the CUDA ordinal
	// NoResident keeps keys in host memory (the streaming path) even when
	// they would fit on the device.
	NoResident bool
	// ComputeWidth is how many proofs run kernels at once (gpulock's
	// compute width); 0 means 1.
	ComputeWidth int
}

// NewCUDAProver returns the prover of one GPU: its VRAM ledger and compute
// lock (gpulock), with the device margin of the resource model, its
// resident keys and its pinned staging. Share it between the device's
// workers; Close it when done.
func NewCUDAProver(cfg CUDAConfig) (*CUDAProver, error) {
	if !native.Available() {
		return nil, fmt.Errorf("groth16: CUDA prover: %w", ErrCUDAUnavailable)
	}
	devs, err := CUDADevices()
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(devs, func(d DeviceInfo) bool { return d.Ordinal == cfg.Device })
	if i < 0 {
		return nil, fmt.Errorf("groth16: no CUDA device %d (%d visible)", cfg.Device, len(devs))
	}
	total := devs[i].TotalBytes
	gate, err := gpulock.NewDevice(gpulock.Config{Ordinal: cfg.Device, TotalBytes: total,
		MarginBytes: deviceMarginBytes(total), ComputeWidth: cfg.ComputeWidth})
	if err != nil {
		return nil, fmt.Errorf("groth16: device %d: %w", cfg.Device, err)
	}
	return newCUDAProver(cfg, gate), nil
}

// Device returns the prover's CUDA ordinal.
func (p *CUDAProver) Device() int { return p.device }

// Metrics returns the device's ledger and compute-lock counters (zero for
// a CUDAProver not made by NewCUDAProver).
func (p *CUDAProver) Metrics() DeviceMetrics {
	if p.gate == nil {
		return DeviceMetrics{}
	}
	return p.gate.Metrics()
}
