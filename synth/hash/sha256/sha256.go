package sha256

import (
	stdsha "crypto/sha256"
	"errors"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// ErrNotCanonical is returned for 32 bytes that are not a field element below r.
var ErrNotCanonical = errors.New("sha256: value is not a canonical field element")

// Sum254 is SHA-256 with the top two bits of byte 31 cleared (trim_to_fr32).
func Sum254(data []byte) [32]byte {
	d := stdsha.Sum256(data)
	d[31] &= 0x3f
	return d
}

// HashNodes is the tree-D node hash: Sum254(left ‖ right).
func HashNodes(left, right [32]byte) [32]byte {
	var buf [64]byte
	copy(buf[:32], left[:])
	copy(buf[32:], right[:])
	return Sum254(buf[:])
}

// ToFr reads 32 little-endian bytes as a field element.
func ToFr(b [32]byte) (fr.Element, error) {
	var be [32]byte
	for i := range b {
		be[i] = b[31-i]
	}
	var x fr.Element
	if err := x.SetBytesCanonical(be[:]); err != nil {
		return fr.Element{}, ErrNotCanonical
	}
	return x, nil
}

// FromFr returns the 32 little-endian bytes of x.
func FromFr(x *fr.Element) [32]byte {
	be := x.Bytes()
	var b [32]byte
	for i := range b {
		b[i] = be[31-i]
	}
	return b
}

// HashFr is the tree-D node hash on field elements: the digest of their
// little-endian bytes, which is below 2^254 and so always a field element.
func HashFr(left, right *fr.Element) fr.Element {
	d := HashNodes(FromFr(left), FromFr(right))
	x, _ := ToFr(d) // cannot fail: d < 2^254 < r
	return x
}
