package groth16

import (
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/native"
	"github.com/gpuc2/gpuc2/synth"
)

// The resource model: every size the facade, the pipeline and the provers
// budget by is computed here, from section counts and circuit sizes.

// In-memory sizes: an Fr element, and affine G1/G2 points as gnark-crypto
// lays them out (also their uncompressed size on disk).
const (
	frSize  = int64(unsafe.Sizeof(fr.Element{}))
	g1Bytes = int64(unsafe.Sizeof(bls12381.G1Affine{}))
	g2Bytes = int64(unsafe.Sizeof(bls12381.G2Affine{}))
)

// Uploads of the witness go through pinned staging chunks: copies from
// pageable memory run at a fraction of the bus speed and block the calling
// thread, while a pinned chunk is filled by several cores and copied by DMA
// as the next one fills. The chunks are allocated once and kept (allocating
// or freeing pinned memory synchronizes the device).
const stageChunkBytes = 128 << 20

// UploadStagingBytes is the pinned host memory one proof's upload holds
// (two staging chunks); the chunks are kept for reuse across proofs.
const UploadStagingBytes = 2 * stageChunkBytes

// KeyBytes is the device memory a key with these counts occupies.
func KeyBytes(c SectionCounts) int64 {
	return int64(c.H+c.L+c.A+c.B)*g1Bytes + int64(c.B)*g2Bytes
}

// ParamsFileBytes is the size of a bellperson .params file with these
// section counts and ic public inputs: the verifying key, then five
// length-prefixed sections of uncompressed points (h, l, a, b_g1, b_g2).
func ParamsFileBytes(c SectionCounts, ic int) int64 {
	return vkHeaderSize + int64(ic)*g1Uncompressed + 5*4 +
		int64(c.H+c.L+c.A+c.B)*g1Uncompressed + int64(c.B)*g2Uncompressed
}

// PartitionHostBytes is one partition's host working set: a, b, c sized to
// the domain, the quotient's output or FFT tables (another domain), the
// inputs and aux, and the density bitmaps.
func PartitionHostBytes(sz synth.Sizes) int64 {
	m := int64(sz.Domain())
	vars := int64(sz.Inputs + sz.Aux)
	return 4*m*frSize + vars*frSize + 3*((vars+63)/64)*8
}

// ProofDeviceBytes is the device memory one proof reserves beside its
// resident key (counts c, domain m, nAux aux variables): what a scheduler
// should budget per GPU worker.
func ProofDeviceBytes(c SectionCounts, m, nAux int) int64 {
	return proofDeviceBytes(anyDevice, c, m, nAux)
}

// proofDeviceBytes is one proof's device memory beside the key on device
// (anyDevice: the most any device needs): a, b, c over the domain, the aux
// and input scalars, and the largest MSM's scratch (ProveResident runs one
// MSM at a time).
func proofDeviceBytes(device int, c SectionCounts, m, nAux int) int64 {
	abc := 3 * int64(m) * frSize
	scalars := int64(nAux+1024) * frSize
	return abc + scalars + msmScratchBytes(device, c, nAux)
}

// anyDevice asks the resource model for the most any device needs.
const anyDevice = -1

// msmScratchBytes is the largest device scratch of ProveResident's MSMs
// (canonical scalars): h over H points, then l, a, b (G1) and b (G2) over
// the nAux aux scalars with a density bitmap (the inputs' MSMs are far
// smaller). A section's size stands in for nAux when it is larger (nAux 0:
// unknown). With the library loaded it is the library's answer on device
// (anyDevice: the device that needs the most; native.MSMScratchBytes: what
// the MSM really allocates, with the library's window choice); without, or
// if a query fails, native.MSMScratchBound, an upper bound on any device.
func msmScratchBytes(device int, c SectionCounts, nAux int) int64 {
	aux := func(points int) native.DeviceMSM {
		return native.DeviceMSM{NBases: points, NScalars: max(points, nAux), Canonical: true}
	}
	msms := []struct {
		g native.Group
		m native.DeviceMSM
	}{
		{native.G1, native.DeviceMSM{NBases: c.H, NScalars: c.H, Canonical: true}},
		{native.G1, aux(c.L)}, {native.G1, aux(c.A)}, {native.G1, aux(c.B)}, {native.G2, aux(c.B)},
	}
	var devices []int
	if device != anyDevice {
		devices = []int{device}
	} else if n, err := native.DeviceCount(); err == nil { // none without the library
		for d := range n {
			devices = append(devices, d)
		}
	}
	var most int64
	for _, x := range msms {
		b := native.MSMScratchBound(x.g, x.m)
		if len(devices) > 0 {
			b = 0
			for _, d := range devices {
				q, err := native.MSMScratchBytes(d, x.g, x.m)
				if err != nil {
					q = native.MSMScratchBound(x.g, x.m)
				}
				b = max(b, q)
			}
		}
		most = max(most, b)
	}
	return most
}

// residentProofBytes is what one proof with a resident key of counts c
// reserves on device: its domain is c.H+1 and its aux variables c.L (as
// checkCounts requires), so a key computes it once, at upload.
func residentProofBytes(device int, c SectionCounts) int64 {
	return proofDeviceBytes(device, c, c.H+1, c.L)
}

// streamingBytes estimates the device memory of the largest synchronous
// call of a proof on device over domain m with a key of counts c: the H
// pipeline (a, b, c and the result, m elements each) or the largest MSM
// (points, scalars and temporaries).
func streamingBytes(device int, c SectionCounts, m int) int64 {
	hBytes := 4 * int64(m) * frSize
	msmBytes := max(int64(c.H), int64(c.L), int64(c.A))*(g1Bytes+frSize) + int64(c.B)*(g2Bytes+frSize)
	return max(hBytes, msmBytes) + proofDeviceBytes(device, c, 0, 0)
}

// deviceMarginBytes is the VRAM a device's ledger leaves unbudgeted beside
// gpuc2's own reservations (the CUDA context, the driver, fragmentation):
// a sixteenth of the device, at least 1 GiB.
func deviceMarginBytes(total int64) int64 { return max(total/16, 1<<30) }
