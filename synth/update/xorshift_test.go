package update_test

import (
	"encoding/binary"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// xorShift is rand_xorshift 0.3's XorShiftRng, which rust-fil-proofs'
// tests seed with TEST_SEED: reproducing it lets these tests pin the
// values its tests hard-code.
type xorShift struct{ x, y, z, w uint32 }

// testSeed is storage-proofs-core's TEST_SEED.
var testSeed = [16]byte{0x59, 0x62, 0xbe, 0x5d, 0x76, 0x3d, 0x31, 0x8d, 0x17, 0xdb, 0x37, 0x32, 0x54, 0x06, 0xbc, 0xe5}

func newXorShift(seed [16]byte) *xorShift {
	le := binary.LittleEndian
	return &xorShift{le.Uint32(seed[0:]), le.Uint32(seed[4:]), le.Uint32(seed[8:]), le.Uint32(seed[12:])}
}

func (r *xorShift) next32() uint32 {
	t := r.x ^ r.x<<11
	r.x, r.y, r.z = r.y, r.z, r.w
	r.w = r.w ^ r.w>>19 ^ (t ^ t>>8)
	return r.w
}

// next64 is rand_core's next_u64_via_u32: low word first.
func (r *xorShift) next64() uint64 {
	lo := uint64(r.next32())
	return uint64(r.next32())<<32 | lo
}

// fr is blstrs' Scalar::random: four u64 (little-endian limbs), the top
// bit cleared, retried until below r.
func (r *xorShift) fr() fr.Element {
	for {
		var b [32]byte
		for i := 0; i < 4; i++ {
			binary.LittleEndian.PutUint64(b[8*i:], r.next64())
		}
		b[31] &= 0x7f
		if e, err := fr.LittleEndian.Element(&b); err == nil {
			return e
		}
	}
}
