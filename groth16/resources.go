package groth16

import (
	"math"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

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
func ProofDeviceBytes(c SectionCounts, m, nAux int) int64 { return proofDeviceBytes(c, m, nAux) }

// proofDeviceBytes estimates one proof's device memory beside the key: a,
// b, c over the domain, the aux and input scalars, and the largest MSM's
// temporaries (sort entries of up to 2^28 digits, buckets).
func proofDeviceBytes(c SectionCounts, m, nAux int) int64 {
	abc := 3 * int64(m) * frSize
	scalars := int64(nAux+1024) * frSize
	largest := int64(max(c.H, c.L, c.A, c.B))
	sortEntries := min(16*largest, 1<<28)
	// XYZZ buckets: 4 coordinates of 48 bytes (G1) or 96 (G2)
	buckets := max(msmBucketBytes(max(c.H, c.L, c.A), 2*g1Bytes), msmBucketBytes(c.B, 2*g2Bytes))
	msmTemp := sortEntries*20 + buckets + 512<<20
	return abc + scalars + msmTemp
}

// msmBucketBytes is the bucket table of a Pippenger MSM over n points with
// XYZZ points of pointBytes: the window the native library picks for n
// (native/cuda/msm.cu, choose_window) times its 2^(c-1) buckets per window.
func msmBucketBytes(n int, pointBytes int64) int64 {
	if n == 0 {
		return 0
	}
	best, bestCost := 4, math.Inf(1)
	for c := 4; c <= 20; c++ {
		w := float64((256 + c - 1) / c)
		if cost := w * (float64(n) + 4*float64(int64(1)<<(c-1))); cost < bestCost {
			best, bestCost = c, cost
		}
	}
	return int64((256+best-1)/best) << (best - 1) * pointBytes
}

// residentKeyBytes is the budget a device needs to keep a key resident: the
// key and one proof beside it (a key leaving no room for a proof would make
// every proof wait for memory forever).
func residentKeyBytes(c SectionCounts) int64 {
	return KeyBytes(c) + proofDeviceBytes(c, c.H+1, c.L)
}

// streamingBytes estimates the device memory of the largest synchronous
// call of a proof over domain m with a key of counts c: the H pipeline (a,
// b, c and the result, m elements each) or the largest MSM (points, scalars
// and temporaries).
func streamingBytes(c SectionCounts, m int) int64 {
	hBytes := 4 * int64(m) * frSize
	msmBytes := max(int64(c.H), int64(c.L), int64(c.A))*(g1Bytes+frSize) + int64(c.B)*(g2Bytes+frSize)
	return max(hBytes, msmBytes) + proofDeviceBytes(c, 0, 0)
}

// deviceMarginBytes is the VRAM a device's ledger leaves unbudgeted beside
// gpuc2's own reservations (the CUDA context, the driver, fragmentation):
// a sixteenth of the device, at least 1 GiB.
func deviceMarginBytes(total int64) int64 { return max(total/16, 1<<30) }
