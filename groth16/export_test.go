package groth16

import (
	"context"
	"errors"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/gpuc2/gpuc2/native"
	"github.com/gpuc2/gpuc2/synth"
)

// Test-only access to the resident path, for the GPU benchmarks.

// DeviceKey is a proving key's points resident on one GPU.
type DeviceKey = deviceKey

// Counts returns the key's section sizes.
func (dk *deviceKey) Counts() SectionCounts { return dk.counts }

// Free releases the key's device memory and reservation.
func (dk *deviceKey) Free() { dk.free() }

// NewTiledDeviceKey fills a key of counts c on p's device by repeating
// tile1 (G1) and tile2 (G2), waiting for room in p's ledger: the right
// sizes for timing, NOT a proving key. Proofs made with it do not verify.
func (p *CUDAProver) NewTiledDeviceKey(ctx context.Context, c SectionCounts, tile1 []bls12381.G1Affine, tile2 []bls12381.G2Affine) (*DeviceKey, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	if len(tile1) == 0 || len(tile2) == 0 {
		return nil, errors.New("groth16: tiled key needs non-empty tiles")
	}
	dk, err := p.newDeviceKey(ctx, c, residentProofBytes(p.device, c), true, func(_ context.Context, i int) ([]byte, error) {
		if i == 4 {
			return native.AsBytes(tile2), nil
		}
		return native.AsBytes(tile1), nil
	}, true)
	return dk, classifyDevice(err)
}

// ProveResident proves w (its input rows already appended) with dk, a key
// resident on p's device, walking p's gate; vk supplies the proof's
// constant points.
func (p *CUDAProver) ProveResident(ctx context.Context, dk *DeviceKey, vk *VerifyingKey, w *synth.ProvingAssignment, opts ...ProveOption) (*Proof, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	cfg := configure(opts)
	proof, err := p.proveResident(ctx, dk, vk, w, &cfg)
	return proof, classifyDevice(err)
}
