package porep

import (
	"encoding/binary"
	"math/bits"
)

// The DRG's bucket sampling draws from rand_chacha's ChaCha8Rng: ChaCha with
// 8 rounds and a 64-bit block counter. golang.org/x/crypto/chacha20 has only
// 20 rounds and a 32-bit counter, so this one generator is written here; the
// synthetic-PoRep challenges use x/crypto's ChaCha20 (challenges.go), and a
// test holds this block function at 20 rounds to x/crypto's keystream.

// chachaBlock computes one ChaCha block with the given number of rounds
// (8 or 20) from a 16-word input state.
func chachaBlock(out *[64]byte, in *[16]uint32, rounds int) {
	x := *in
	qr := func(a, b, c, d int) {
		x[a] += x[b]
		x[d] = bits.RotateLeft32(x[d]^x[a], 16)
		x[c] += x[d]
		x[b] = bits.RotateLeft32(x[b]^x[c], 12)
		x[a] += x[b]
		x[d] = bits.RotateLeft32(x[d]^x[a], 8)
		x[c] += x[d]
		x[b] = bits.RotateLeft32(x[b]^x[c], 7)
	}
	for r := 0; r < rounds; r += 2 {
		qr(0, 4, 8, 12)
		qr(1, 5, 9, 13)
		qr(2, 6, 10, 14)
		qr(3, 7, 11, 15)
		qr(0, 5, 10, 15)
		qr(1, 6, 11, 12)
		qr(2, 7, 8, 13)
		qr(3, 4, 9, 14)
	}
	for k := range x {
		binary.LittleEndian.PutUint32(out[4*k:], x[k]+in[k])
	}
}

func chachaKeyState(key *[32]byte) [16]uint32 {
	var s [16]uint32
	s[0], s[1], s[2], s[3] = 0x61707865, 0x3320646e, 0x79622d32, 0x6b206574
	for k := 0; k < 8; k++ {
		s[4+k] = binary.LittleEndian.Uint32(key[4*k:])
	}
	return s
}

// chacha8Rng is rand_chacha 0.3's ChaCha8Rng seeded with from_seed: key =
// seed, 64-bit block counter from 0, stream 0. nextU64 reads two keystream
// words, low first, as rand_core's BlockRng does from an even position.
type chacha8Rng struct {
	state [16]uint32
	buf   [64]byte
	pos   int
}

func newChaCha8Rng(seed *[32]byte) *chacha8Rng {
	r := &chacha8Rng{state: chachaKeyState(seed), pos: 64}
	return r
}

func (r *chacha8Rng) nextU64() uint64 {
	if r.pos >= 64 {
		chachaBlock(&r.buf, &r.state, 8)
		r.state[12]++
		if r.state[12] == 0 {
			r.state[13]++
		}
		r.pos = 0
	}
	v := binary.LittleEndian.Uint64(r.buf[r.pos:])
	r.pos += 8
	return v
}
