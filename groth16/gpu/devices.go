package gpu

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/par"
	"github.com/gpuc2/gpuc2/native"
	"github.com/gpuc2/gpuc2/synth/pce"
)

// Config configures the GPUs of a process.
type Config struct {
	// Ordinals are the CUDA devices to prove on, at least one.
	Ordinals []int
	// MemoryLimit is the device memory each GPU may use, in bytes: its
	// ledger's budget, which every allocation (a resident key, each proof's
	// working set, MSM scratch, chunk buffers) is counted against. 0: the
	// device's free memory when Open runs, less the resource model's
	// margin. Set it lower to share the GPU (WindowPoSt beside C2) or to
	// model a smaller card; a limit above a device's memory is refused.
	MemoryLimit int64
	// NoResident keeps keys in host memory (the streaming path) even when
	// they would fit on a device.
	NoResident bool
	// ComputeWidth is how many proofs run kernels at once on a device
	// (gpulock's compute width); 0 means 1.
	ComputeWidth int
	// VectorStage: proofs' c may lie on the heap (a, b, c evaluated on the
	// host), so a streaming preload readies each device's pinned stage for
	// it (StreamingStageBytes) off the first proof's path.
	VectorStage bool
}

// Devices owns the GPUs of a process: each device's prover and ledger,
// and the pinned host copies they share (streamed keys and matrices, the
// witnesses' vectors). Its methods act on every device at once; Prove runs
// on one device, through Workers. Safe for concurrent use.
type Devices struct {
	cfg   Config
	infos map[int]DeviceInfo // each device's name and memory, as Open found them
	list  []*Device          // by Config.Ordinals
	host  *hostState
}

// hostState is the pinned host memory the devices of one Devices share:
// one copy of a streamed key or matrices per process, whatever the
// devices, and the registry of PinnedVectors' blocks.
type hostState struct {
	keys     *hostCopies[*groth16.ProvingKey, *pinnedKey]
	matrices *hostCopies[pce.ID, *pinnedMatrices]
	vectors  *pinnedRegistry
}

func newHostState() *hostState {
	return &hostState{
		keys:     newHostCopies[*groth16.ProvingKey](func(k *pinnedKey) { k.free() }),
		matrices: newHostCopies[pce.ID](func(hm *pinnedMatrices) { hm.free() }),
		vectors:  &pinnedRegistry{},
	}
}

// Open makes the prover of each GPU in cfg.Ordinals. It fails with
// ErrCUDAUnavailable without the native library, and for an unknown device
// or a limit its device cannot give.
func Open(cfg Config) (*Devices, error) {
	if len(cfg.Ordinals) == 0 {
		return nil, fmt.Errorf("%w: no GPU to open", groth16.ErrInvalidInput)
	}
	d := &Devices{cfg: cfg, host: newHostState(), infos: map[int]DeviceInfo{}}
	for _, ord := range cfg.Ordinals {
		dev, err := openDevice(deviceConfig{Device: ord, NoResident: cfg.NoResident, ComputeWidth: cfg.ComputeWidth,
			MemoryLimit: cfg.MemoryLimit}, d.host)
		if err != nil {
			d.Close()
			return nil, classifyDevice(err)
		}
		d.list = append(d.list, dev)
	}
	infos, _ := CUDADevices() // names only: a failure leaves them empty
	for _, info := range infos {
		d.infos[info.Ordinal] = info
	}
	return d, nil
}

// Close closes every device (Device.Close); later calls fail with
// ErrClosed.
func (d *Devices) Close() error {
	var errs []error
	for _, dev := range d.list {
		errs = append(errs, dev.Close())
	}
	return errors.Join(errs...)
}

// Worker is one prover worker of a device: proofs given to it run there.
type Worker struct {
	Ordinal int
	Prover  groth16.Prover
}

// Workers returns perDevice workers for each device, sharing its prover.
func (d *Devices) Workers(perDevice int) []Worker {
	var out []Worker
	for _, dev := range d.list {
		for range perDevice {
			out = append(out, Worker{Ordinal: dev.device, Prover: dev})
		}
	}
	return out
}

// Device returns the prover of the device with that ordinal, or nil.
func (d *Devices) Device(ordinal int) *Device {
	i := slices.IndexFunc(d.list, func(dev *Device) bool { return dev.device == ordinal })
	if i < 0 {
		return nil
	}
	return d.list[i]
}

// Vectors allocates the witnesses' vectors in pinned host memory that
// every device uploads with one DMA each.
func (d *Devices) Vectors() PinnedVectors { return PinnedVectors{reg: d.host.vectors} }

// MemoryLimit is the least of the devices' memory limits.
func (d *Devices) MemoryLimit() int64 {
	limit := int64(0)
	for i, dev := range d.list {
		if l := dev.MemoryLimit(); i == 0 || l < limit {
			limit = l
		}
	}
	return limit
}

// CheckKey fails with ErrOutOfDeviceMemory, naming the device and the
// least limit that would do, when a device's limit allows proofs with pk
// in neither mode; it queries nothing on the devices.
func (d *Devices) CheckKey(pk *groth16.ProvingKey) error {
	for _, dev := range d.list {
		if err := dev.CheckKey(pk); err != nil {
			return err
		}
	}
	return nil
}

// Preload readies pk on every device at once (Device.Preload): resident
// devices upload it, sharing its decoded host sections, each dropped once
// the last device has it, so that the host holds the sections in flight
// rather than the whole key; streaming ones decode it once into pinned
// memory. resident says whether every device holds it.
func (d *Devices) Preload(ctx context.Context, pk *groth16.ProvingKey, opts ...PreloadOption) (resident bool, err error) {
	hosts := NewHostSections(len(d.list))
	opts = append(slices.Clip(opts), ShareHostSections(hosts))
	if !d.cfg.VectorStage {
		opts = append(opts, NoVectorStage())
	}
	g, gctx := errgroup.WithContext(ctx)
	for _, dev := range d.list {
		g.Go(par.Guard(func() error { return dev.Preload(gctx, pk, opts...) }))
	}
	if err := g.Wait(); err != nil {
		return false, err
	}
	return !slices.ContainsFunc(d.list, func(dev *Device) bool { return dev.Mode(pk) != ModeResident }), nil
}

// Evict drops pk's copies, and ms's (nil: none), from every device and
// the pinned host memory (Device.Evict, Device.EvictMatrices).
func (d *Devices) Evict(pk *groth16.ProvingKey, ms *pce.Matrices) {
	for _, dev := range d.list {
		dev.Evict(pk)
		if ms != nil {
			dev.EvictMatrices(ms)
		}
	}
}

// KeyHeld says where the devices hold pk: onAll, in every device's memory;
// pinned, in the page-locked host copy streaming devices use.
func (d *Devices) KeyHeld(pk *groth16.ProvingKey) (onAll, pinned bool) {
	onAll = true
	for _, dev := range d.list {
		on, pin := dev.KeyHeld(pk)
		onAll = onAll && on
		pinned = pinned || pin
	}
	return onAll, pinned
}

// MatricesFit says whether every device evaluates a, b, c from compiled
// matrices of bytes with pk (Device.MatricesFit).
func (d *Devices) MatricesFit(pk *groth16.ProvingKey, bytes int64) bool {
	return !slices.ContainsFunc(d.list, func(dev *Device) bool { return !dev.MatricesFit(pk, bytes) })
}

// MatricesPlacement is where PreloadMatrices put a circuit's matrices.
type MatricesPlacement struct {
	// OnAll: every device evaluates a, b, c from them (on the device, or
	// streamed from the pinned copy).
	OnAll bool
	// PinnedBytes is the pinned host copy streaming devices use (one per
	// process), 0 without one.
	PinnedBytes int64
	// Refused holds, for each device that keeps them on the host, why
	// (errors wrapping ErrOutOfDeviceMemory).
	Refused []error
}

// PreloadMatrices readies ms, the compiled matrices of pk's circuit, on
// every device (Device.PreloadMatrices). A device without room for them
// is named in Refused; any other failure is returned.
func (d *Devices) PreloadMatrices(ctx context.Context, pk *groth16.ProvingKey, ms *pce.Matrices) (MatricesPlacement, error) {
	place := MatricesPlacement{OnAll: true}
	for _, dev := range d.list {
		n, err := dev.PreloadMatrices(ctx, pk, ms)
		switch {
		case errors.Is(err, ErrOutOfDeviceMemory):
			place.OnAll = false
			place.Refused = append(place.Refused, fmt.Errorf("GPU %d: %w", dev.device, err))
		case err != nil:
			return MatricesPlacement{}, err
		}
		place.PinnedBytes = max(place.PinnedBytes, n)
	}
	return place, nil
}

// DeviceState is one device's state for a status report.
type DeviceState struct {
	Info DeviceInfo
	// Mode is how the device proves with the key asked about (empty
	// without one); PoolHighWater the most
	// the native pool has held allocated at once on it (proofs' working
	// sets; a resident key is outside the pool).
	Mode          DeviceMode
	PoolHighWater int64
	Metrics       DeviceMetrics
}

// States describes each device, in Config.Ordinals' order, its mode with
// pk (nil: none).
func (d *Devices) States(pk *groth16.ProvingKey) []DeviceState {
	var out []DeviceState
	for _, dev := range d.list {
		st := DeviceState{Info: d.infos[dev.device], Metrics: dev.Metrics()}
		st.Info.Ordinal = dev.device
		if pk != nil {
			st.Mode = dev.Mode(pk)
		}
		if hw, err := dev.PoolHighWater(); err == nil {
			st.PoolHighWater = hw
		}
		out = append(out, st)
	}
	return out
}

// PinnedHostBytes is the page-locked host memory the process holds through
// the native library now: upload staging, c's stages, PinnedVectors, and
// streamed keys' and matrices' copies.
func PinnedHostBytes() int64 { return native.PinnedHostBytes() }

// DefaultMemoryLimitOfFirst is the default memory limit of the first
// visible GPU (its free memory less the margin, as Open would set it), or
// 0 without one: the limit a plan is for when no Devices are open.
func DefaultMemoryLimitOfFirst() int64 {
	devs, err := CUDADevices()
	if err != nil || len(devs) == 0 {
		return 0
	}
	limit, err := DefaultMemoryLimit(devs[0].Ordinal)
	if err != nil {
		return 0
	}
	return limit
}
