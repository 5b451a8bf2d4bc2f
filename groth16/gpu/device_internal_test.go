package gpu

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/gpulock"
	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/testcircuit"
	"github.com/gpuc2/gpuc2/internal/testprove"
	"github.com/gpuc2/gpuc2/native"
)

func TestClassifyDevice(t *testing.T) {
	other := errors.New("some failure")
	for _, tc := range []struct {
		name string
		err  error
		oom  bool
	}{
		{"nil", nil, false},
		{"native out of memory", fmt.Errorf("native: device_alloc: %w", native.ErrOutOfMemory), true},
		{"native error code", &native.Error{Op: "device_alloc", Code: native.CodeOutOfMemory, Msg: "out of memory"}, true},
		{"larger than the budget", fmt.Errorf("gpu: %w", gpulock.ErrTooLarge), true},
		{"already classified", fmt.Errorf("%w: GPU 0: too large", ErrOutOfDeviceMemory), true},
		{"cancelled", fmt.Errorf("gpulock: waiting: %w", context.Canceled), false},
		{"not available", ErrCUDAUnavailable, false},
		{"other", other, false},
		{"pinning host memory", fmt.Errorf("%w: 8 bytes for the key: %w", errPinnedHost, native.ErrOutOfMemory), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := classifyDevice(tc.err)
			assert.Equal(t, tc.oom, errors.Is(got, ErrOutOfDeviceMemory))
			if tc.err == nil {
				assert.NoError(t, got)
				return
			}
			assert.ErrorIs(t, got, tc.err, "the cause stays visible")
			if !tc.oom || errors.Is(tc.err, ErrOutOfDeviceMemory) {
				assert.Same(t, tc.err, got, "left as it is")
			}
		})
	}
}

// testProver is a device's prover over a ledger of budget bytes, with no
// GPU behind it: the paths that fail or wait in the ledger before any
// native call run anywhere.
func testProver(t *testing.T, budget int64) *Device {
	return testProverWith(t, budget, deviceConfig{})
}

// testProverWith is testProver under cfg, with host state of its own.
func testProverWith(t *testing.T, budget int64, cfg deviceConfig) *Device {
	t.Helper()
	gate, err := gpulock.NewDevice(gpulock.Config{MemoryLimit: budget})
	require.NoError(t, err)
	p := newDevice(cfg, gate, newHostState())
	t.Cleanup(func() { _ = p.Close() })
	return p
}

var cubicKey = testprove.CubicKey

// A key that, with one proof, exceeds the budget fails Preload with
// ErrOutOfDeviceMemory, and proofs stream it from pinned host memory when
// the streaming path fits the budget, else fail with ErrOutOfDeviceMemory
// too (a key this small may need less resident than streamed: then the
// streaming budgets come from NoResident provers). Nothing stays reserved.
func TestCUDAProverKeyTooLarge(t *testing.T) {
	pk, c := cubicKey(t)
	counts := pk.Counts()
	m := counts.H + 1
	resident := residentKeyBytes(anyDevice, counts)
	streaming, _ := streamingProofBytes(anyDevice, counts, m, counts.L, len(pk.VerifyingKey().IC))
	for _, tc := range []struct {
		budget     int64
		noResident bool
	}{{resident - 1, false}, {streaming - 1, true}, {streaming, true}} {
		t.Run(fmt.Sprintf("budget=%d/noResident=%v", tc.budget, tc.noResident), func(t *testing.T) {
			p := testProverWith(t, tc.budget, deviceConfig{NoResident: tc.noResident})
			if !tc.noResident {
				require.ErrorIs(t, p.Preload(context.Background(), pk), ErrOutOfDeviceMemory)
				assert.True(t, p.isUnfit(pk))
			}
			proof, err := groth16.Prove(context.Background(), p, pk, c)
			switch {
			case tc.budget < streaming:
				require.ErrorIs(t, err, ErrOutOfDeviceMemory)
				assert.ErrorIs(t, err, gpulock.ErrTooLarge, "the streaming reservation")
			case CUDAAvailable():
				require.NoError(t, err)
				ok, err := groth16.Verify(pk.VerifyingKey(), proof, []fr.Element{c.(*testcircuit.Cubic).Out()})
				require.NoError(t, err)
				assert.True(t, ok)
			default: // the key's pinned copy needs the library
				require.ErrorIs(t, err, ErrCUDAUnavailable)
			}
			assert.Zero(t, p.Metrics().ReservedBytes)
		})
	}
}

// fullLedger reserves all of p's budget but room bytes, until the test ends.
func fullLedger(t *testing.T, p *Device, room int64) {
	t.Helper()
	job := p.gate.NewJob()
	require.NoError(t, job.Reserve(context.Background(), p.gate.MemoryLimit()-room))
	t.Cleanup(job.Done)
}

// preloadAsync runs Preload in the background and waits until its upload
// waits for room in the ledger.
func preloadAsync(t *testing.T, p *Device, pk *groth16.ProvingKey) <-chan error {
	t.Helper()
	before := p.gate.Metrics().Reservations
	errc := make(chan error, 1)
	go func() { errc <- p.Preload(context.Background(), pk) }()
	// The key's job reserves only once room appears: wait until the
	// upload is in flight (its slot exists) instead.
	require.Eventually(t, func() bool {
		p.keys.mu.Lock()
		defer p.keys.mu.Unlock()
		return p.keys.slots[pk] != nil
	}, 10*time.Second, time.Millisecond)
	require.Equal(t, before, p.gate.Metrics().Reservations, "the key waits for room")
	return errc
}

// While one caller's key upload waits for room in the ledger, another
// proof with that key waits for it but returns as soon as its context ends.
func TestCUDAProverKeyWaitIsCancellable(t *testing.T) {
	pk, c := cubicKey(t)
	p := testProver(t, 2*residentKeyBytes(anyDevice, pk.Counts()))
	fullLedger(t, p, 0)
	preload := preloadAsync(t, p, pk)

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := groth16.Prove(ctx, p, pk, c)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 5*time.Second, "the proof did not wait out the upload")

	p.Evict(pk)
	require.NoError(t, <-preload, "an evicted Preload is loaded-then-evicted")
}

// Evict and Close of a key whose upload waits in the ledger end the upload
// without leaving its reservation behind.
func TestCUDAProverEvictDuringUpload(t *testing.T) {
	for _, closing := range []bool{false, true} {
		pk, _ := cubicKey(t)
		p := testProver(t, 2*residentKeyBytes(anyDevice, pk.Counts()))
		fullLedger(t, p, groth16.KeyBytes(pk.Counts())-1)
		reserved := p.Metrics().ReservedBytes
		preload := preloadAsync(t, p, pk)
		if closing {
			require.NoError(t, p.Close())
			require.ErrorIs(t, <-preload, ErrClosed)
			require.ErrorIs(t, p.Preload(context.Background(), pk), ErrClosed)
		} else {
			p.Evict(pk)
			require.NoError(t, <-preload)
		}
		assert.Equal(t, reserved, p.Metrics().ReservedBytes, "closing %v: no reservation left by the upload", closing)
		p.keys.mu.Lock()
		assert.Empty(t, p.keys.slots)
		p.keys.mu.Unlock()
	}
}

// residentKeyBytes is the budget a device needs for a resident key of
// counts c and one proof beside it, as uploadKey checks it.
func residentKeyBytes(device int, c groth16.SectionCounts) int64 {
	return groth16.KeyBytes(c) + residentProofBytes(device, c)
}
