package gpu

import (
	"fmt"
	"slices"

	"github.com/gpuc2/gpuc2/groth16"

	"github.com/gpuc2/gpuc2/gpulock"
	"github.com/gpuc2/gpuc2/native"
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
		return nil, fmt.Errorf("gpu: listing CUDA devices: %w", err)
	}
	out := make([]DeviceInfo, len(devs))
	for i, d := range devs {
		out[i] = DeviceInfo{Ordinal: d.Index, Name: d.Name, TotalBytes: int64(d.TotalMemory)}
	}
	return out, nil
}

// deviceConfig configures the prover of one GPU.
type deviceConfig struct {
	Device int // the CUDA ordinal
	// NoResident keeps keys in host memory (the streaming path) even when
	// they would fit on the device.
	NoResident bool
	// ComputeWidth is how many proofs run kernels at once (gpulock's
	// compute width); 0 means 1.
	ComputeWidth int
	// MemoryLimit is the device memory the prover may use, in bytes: its
	// ledger's budget, which every allocation (a resident key, each proof's
	// working set, MSM scratch, chunk buffers) is counted against. 0: the
	// device's free memory when openDevice runs, less the resource
	// model's margin. Set it lower to share the GPU (WindowPoSt beside C2)
	// or to model a smaller card; a limit above the device's memory is
	// refused.
	MemoryLimit int64
}

// openDevice returns the prover of one GPU: its VRAM ledger and compute
// lock (gpulock), with the device margin of the resource model, its
// resident keys and its pinned staging. Share it between the device's
// workers; Close it when done.
func openDevice(cfg deviceConfig, host *hostState) (*Device, error) {
	if !native.Available() {
		return nil, fmt.Errorf("gpu: CUDA prover: %w", ErrCUDAUnavailable)
	}
	devs, err := CUDADevices()
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(devs, func(d DeviceInfo) bool { return d.Ordinal == cfg.Device })
	if i < 0 {
		return nil, fmt.Errorf("gpu: no CUDA device %d (%d visible)", cfg.Device, len(devs))
	}
	limit, err := memoryLimit(cfg, devs[i].TotalBytes)
	if err != nil {
		return nil, err
	}
	gate, err := gpulock.NewDevice(gpulock.Config{Ordinal: cfg.Device, MemoryLimit: limit,
		ComputeWidth: cfg.ComputeWidth})
	if err != nil {
		return nil, fmt.Errorf("gpu: device %d: %w", cfg.Device, err)
	}
	return newDevice(cfg, gate, host), nil
}

// DefaultMemoryLimit is the memory limit openDevice gives device
// without deviceConfig.MemoryLimit: its free memory now less the margin.
func DefaultMemoryLimit(device int) (int64, error) {
	devs, err := CUDADevices()
	if err != nil {
		return 0, err
	}
	i := slices.IndexFunc(devs, func(d DeviceInfo) bool { return d.Ordinal == device })
	if i < 0 {
		return 0, fmt.Errorf("gpu: no CUDA device %d (%d visible)", device, len(devs))
	}
	return memoryLimit(deviceConfig{Device: device}, devs[i].TotalBytes)
}

// memoryLimit is cfg's device memory limit on a device of total bytes:
// MemoryLimit, else the free memory now less the margin (asked once, here,
// never on the proving path).
func memoryLimit(cfg deviceConfig, total int64) (int64, error) {
	switch {
	case cfg.MemoryLimit < 0 || cfg.MemoryLimit > total:
		return 0, fmt.Errorf("%w: GPU %d: a memory limit of %d bytes on a device of %d",
			groth16.ErrInvalidInput, cfg.Device, cfg.MemoryLimit, total)
	case cfg.MemoryLimit > 0:
		return cfg.MemoryLimit, nil
	}
	free, _, err := native.MemInfo(cfg.Device)
	if err != nil {
		return 0, fmt.Errorf("gpu: device %d: %w", cfg.Device, err)
	}
	limit := int64(free) - deviceMarginBytes(total)
	if limit <= 0 {
		return 0, fmt.Errorf("%w: GPU %d: %d bytes free, less a margin of %d",
			ErrOutOfDeviceMemory, cfg.Device, free, deviceMarginBytes(total))
	}
	return limit, nil
}

// CheckKey fails with ErrOutOfDeviceMemory, naming the least limit that
// would do, when the device's memory limit allows proofs with pk in
// neither mode; it queries nothing on the device.
func (p *Device) CheckKey(pk *groth16.ProvingKey) error {
	kp, limit := p.plan(pk), p.MemoryLimit()
	if kp.ResidentBytes > limit && kp.streamed.after > limit {
		return fmt.Errorf("GPU %d: %w: a device memory limit of %d bytes is below the %d bytes one streamed proof needs",
			p.device, ErrOutOfDeviceMemory, limit, kp.streamed.after)
	}
	return nil
}

// MemoryLimit returns the device memory the prover's ledger allows.
func (p *Device) MemoryLimit() int64 {
	if p.gate == nil {
		return 0
	}
	return p.gate.MemoryLimit()
}

// PoolHighWater is the most device memory the prover's process has had
// allocated at once from the device's pool (every proof's working set; a
// resident key is allocated outside the pool).
func (p *Device) PoolHighWater() (int64, error) {
	hw, err := native.PoolHighWater(p.device)
	return int64(hw), err
}

// Mode says how the device proves with pk: resident while pk is on the
// device, streaming once it was found too large (or with NoResident), else
// what its plan gives for the limit ("" if pk cannot be proved here).
func (p *Device) Mode(pk *groth16.ProvingKey) DeviceMode {
	if p.gate == nil {
		return ""
	}
	switch kp := p.plan(pk); {
	case p.keys.ready(pk):
		return ModeResident
	case p.noResident || p.isUnfit(pk):
		return ModeStreaming
	case kp.ResidentBytes <= p.gate.MemoryLimit():
		return ModeResident
	case kp.streamed.after <= p.gate.MemoryLimit():
		return ModeStreaming
	}
	return ""
}

// Ordinal returns the prover's CUDA ordinal.
func (p *Device) Ordinal() int { return p.device }

// Metrics returns the device's ledger and compute-lock counters (zero for
// a Device not made by openDevice).
func (p *Device) Metrics() DeviceMetrics {
	if p.gate == nil {
		return DeviceMetrics{}
	}
	return p.gate.Metrics()
}

// KeyHeld says where the device holds pk now: onDevice, its points in the
// device's memory (resident), or pinned, a page-locked host copy it streams
// from (streaming, after a first proof or preload). Neither: pk is only in
// host memory (mapped, decoded on demand).
func (p *Device) KeyHeld(pk *groth16.ProvingKey) (onDevice, pinned bool) {
	if p.gate == nil {
		return false, false
	}
	return p.keys.ready(pk), p.host.keys.uses(p, pk)
}
