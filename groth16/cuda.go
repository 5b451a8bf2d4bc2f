package groth16

import (
	"context"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/gpulock"
	"github.com/gpuc2/gpuc2/msm"
	"github.com/gpuc2/gpuc2/native"
	"github.com/gpuc2/gpuc2/synth"
)

// CUDAProver runs H and the five MSMs on one GPU through the native library;
// synthesis and the final assembly stay on the CPU. Its proofs equal the
// CPU prover's for the same r and s.
//
// This first version calls the library's synchronous entries, which upload
// their inputs (the SRS sections included) on every call; keeping the SRS
// resident, pinned buffers and overlapped uploads are the next step.
type CUDAProver struct {
	Device int
	// Gate, if set, admits the proof through the device's VRAM ledger and
	// compute lock. The reservation is an estimate of what the native calls
	// allocate, since they manage their own buffers in this version.
	Gate *gpulock.Device
}

var _ Prover = (*CUDAProver)(nil)

// Prove implements Prover.
func (p *CUDAProver) Prove(ctx context.Context, pk *ProvingKey, w *synth.ProvingAssignment, opts ...ProveOption) (*Proof, error) {
	if !native.Available() {
		return nil, fmt.Errorf("groth16: CUDA prover: %w", native.ErrNotAvailable)
	}
	if p.Gate != nil {
		job := p.Gate.NewJob()
		defer job.Done()
		if err := job.Reserve(ctx, cudaBytes(pk, w)); err != nil {
			return nil, err
		}
		if err := job.Compute(ctx); err != nil {
			return nil, err
		}
	}
	h := func(ctx context.Context, a, b, c []fr.Element, m int) ([]fr.Element, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out := make([]fr.Element, m)
		if err := native.H(p.Device, a, b, c, out); err != nil {
			return nil, err
		}
		return out, ctx.Err()
	}
	return prove(ctx, pk, w, msm.CUDA{Device: p.Device}, h, opts)
}

// cudaBytes estimates the device memory of the largest native call: the H
// pipeline (a, b, c and the result, m elements each) or the largest MSM
// (points, scalars and buckets).
func cudaBytes(pk *ProvingKey, w *synth.ProvingAssignment) int64 {
	const frBytes, g1, g2 = 32, 96, 192
	n := int64(w.NumRows() + len(w.Inputs))
	m := int64(1)
	for m < n {
		m <<= 1
	}
	c := pk.Counts()
	hBytes := 4 * m * frBytes
	msmBytes := max(int64(c.H), int64(c.L), int64(c.A))*(g1+frBytes) + int64(c.B)*(g2+frBytes)
	return max(hBytes, msmBytes) + 256<<20
}
