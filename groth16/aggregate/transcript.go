package aggregate

import (
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"hash"
	"slices"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// transcriptPrefix is bellperson's PREFIX, hashed before every tag.
const transcriptPrefix = "snarkpack-v1"

// Transcript is bellperson's SnarkPack Fiat–Shamir transcript: SHA-256 over
// "snarkpack-v1" ‖ tag ‖ each written element as bincode 1 serializes the
// blstrs type. Element encodings:
//   - G1, G2: compressed (48, 96 bytes), as blstrs' serde;
//   - Fr: 32 bytes canonical little-endian (blstrs' [u64; 4] little-endian);
//   - GT: the 12 Fp coefficients c0.c0.c0, c0.c0.c1, c0.c1.c0, … c1.c2.c1,
//     each 48 bytes canonical little-endian;
//   - bytes: a u64 little-endian length then the bytes (bincode's slice).
//
// Challenge and Sum leave the transcript as it was (bellperson's
// into_challenge and into_bytes consume it; each of its uses takes one).
type Transcript struct {
	h hash.Hash
}

// NewTranscript starts a transcript for tag ("hcom", "random-r", "gipa-0", …).
func NewTranscript(tag string) *Transcript {
	t := &Transcript{h: sha256.New()}
	t.h.Write([]byte(transcriptPrefix))
	t.h.Write([]byte(tag))
	return t
}

func (t *Transcript) write(b []byte) *Transcript {
	t.h.Write(b)
	return t
}

// fork is a copy of the hash state, for Challenge's counters.
func (t *Transcript) fork() hash.Hash {
	state, _ := t.h.(encoding.BinaryMarshaler).MarshalBinary() // sha256's state always marshals
	h := sha256.New()
	_ = h.(encoding.BinaryUnmarshaler).UnmarshalBinary(state)
	return h
}

// WriteG1 appends p compressed.
func (t *Transcript) WriteG1(p *bls12381.G1Affine) *Transcript {
	b := p.Bytes()
	return t.write(b[:])
}

// WriteG2 appends p compressed.
func (t *Transcript) WriteG2(p *bls12381.G2Affine) *Transcript {
	b := p.Bytes()
	return t.write(b[:])
}

// WriteFr appends x, 32 bytes little-endian.
func (t *Transcript) WriteFr(x *fr.Element) *Transcript {
	b := x.Bytes() // big-endian
	slices.Reverse(b[:])
	return t.write(b[:])
}

// WriteGT appends x coefficient by coefficient. gnark-crypto's tower
// (u² = -1, v³ = u+1, w² = v) is blstrs', so the coefficients correspond.
func (t *Transcript) WriteGT(x *bls12381.GT) *Transcript {
	b := make([]byte, 0, 12*fp.Bytes)
	for _, e6 := range [...]*bls12381.E6{&x.C0, &x.C1} {
		for _, e2 := range [...]*bls12381.E2{&e6.B0, &e6.B1, &e6.B2} {
			for _, c := range [...]*fp.Element{&e2.A0, &e2.A1} {
				le := c.Bytes()
				slices.Reverse(le[:])
				b = append(b, le[:]...)
			}
		}
	}
	return t.write(b)
}

// WriteBytes appends b with bincode's u64 little-endian length prefix, as
// bellperson writes transcript_include.
func (t *Transcript) WriteBytes(b []byte) *Transcript {
	t.write(binary.LittleEndian.AppendUint64(nil, uint64(len(b))))
	return t.write(b)
}

// Sum returns the transcript's SHA-256 (bellperson's into_bytes).
func (t *Transcript) Sum() []byte { return t.h.Sum(nil) }

// Challenge derives a challenge as bellperson's
// into_challenge: for counter 1, 2, …, append the counter (u64 big-endian,
// usize on a 64-bit host) and hash everything so far; read the digest
// little-endian with its top bit cleared (Fr has 255 bits); take the first
// value below r that is neither 0 nor 1, so every challenge is invertible.
// Counters accumulate: the second try hashes … ‖ 1 ‖ 2.
func (t *Transcript) Challenge() fr.Element {
	h := t.fork()
	for counter := uint64(1); ; counter++ {
		h.Write(binary.BigEndian.AppendUint64(nil, counter))
		d := h.Sum(nil) // Sum leaves the state as it was, like Rust's clone then finalize
		d[len(d)-1] &= 0xff >> (8*fr.Bytes - fr.Bits)
		slices.Reverse(d)
		var c fr.Element
		if c.SetBytesCanonical(d) != nil || c.IsZero() || c.IsOne() {
			continue
		}
		return c
	}
}

// writeCommitment appends both GT elements of c: bincode writes the tuple
// commit::Output as its fields in order.
func (t *Transcript) writeCommitment(c *Commitment) *Transcript {
	return t.WriteGT(&c[0]).WriteGT(&c[1])
}
