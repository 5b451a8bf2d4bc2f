package gpu

import (
	"errors"
	"fmt"

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
	ErrOutOfDeviceMemory = errors.New("gpu: out of device memory")
	// ErrClosed reports use of Devices (or one of its provers) after Close.
	ErrClosed = errors.New("gpu: devices are closed")
)

// errPinnedHost marks a failure to pin host memory: not the device's
// memory, whatever status the library gave.
var errPinnedHost = errors.New("gpu: pinning host memory")

// classifyDevice wraps a device out-of-memory error with
// ErrOutOfDeviceMemory. Every error leaving the package's methods goes
// through it.
func classifyDevice(err error) error {
	if err != nil && !errors.Is(err, ErrOutOfDeviceMemory) && !errors.Is(err, errPinnedHost) &&
		(errors.Is(err, native.ErrOutOfMemory) || errors.Is(err, gpulock.ErrTooLarge)) {
		return fmt.Errorf("%w: %w", ErrOutOfDeviceMemory, err)
	}
	return err
}
