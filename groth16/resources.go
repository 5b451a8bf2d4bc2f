package groth16

import (
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/synth"
)

// The host side of the resource model: what a key and a partition hold in
// host memory, from section counts and circuit sizes (groth16/gpu has the
// device side).

// In-memory sizes: an Fr element, and affine G1/G2 points as gnark-crypto
// lays them out (also their uncompressed size on disk).
const (
	frSize  = int64(unsafe.Sizeof(fr.Element{}))
	g1Bytes = int64(unsafe.Sizeof(bls12381.G1Affine{}))
	g2Bytes = int64(unsafe.Sizeof(bls12381.G2Affine{}))
)

// KeyBytes is the memory a key with these counts occupies decoded: its
// points as affine G1/G2, on the host or on a device.
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

// WitnessHostBytes is one partition's host working set when its a, b, c
// are evaluated on the device from the circuit's matrices (WithMatrices):
// the witness alone, inputs and aux (the densities are the matrices').
func WitnessHostBytes(sz synth.Sizes) int64 {
	return int64(sz.Inputs+sz.Aux) * frSize
}

// LargestSectionBytes is the largest of a key's five sections decoded (at
// 32 GiB h's, 12.9 GB): what a resident upload that drops each host section
// once it is on the device (DropHostSections) holds of the key at a time.
func LargestSectionBytes(c SectionCounts) int64 {
	return max(int64(max(c.H, c.L, c.A, c.B))*g1Bytes, int64(c.B)*g2Bytes)
}

// AssignmentBytes is what a full proving assignment holds on the host
// once synthesized for a GPU (the GPU computes H, so no quotient scratch):
// a, b, c over the domain, the inputs and aux. A check of recorded
// matrices holds one too (on the heap).
func AssignmentBytes(sz synth.Sizes) int64 {
	return 3*int64(sz.Domain())*frSize + int64(sz.Inputs+sz.Aux)*frSize
}
