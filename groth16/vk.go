package groth16

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/gpuc2/gpuc2/internal/zcash"
)

// Sizes of the ZCash point encodings used by bellperson.
const (
	g1Uncompressed = bls12381.SizeOfG1AffineUncompressed // x ‖ y
	g2Uncompressed = bls12381.SizeOfG2AffineUncompressed // x.c1 ‖ x.c0 ‖ y.c1 ‖ y.c0
	g1Compressed   = bls12381.SizeOfG1AffineCompressed
	g2Compressed   = bls12381.SizeOfG2AffineCompressed

	// vkPointsSize is alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2.
	vkPointsSize = 3*g1Uncompressed + 3*g2Uncompressed // 864
	// vkHeaderSize adds the u32 IC count; a .vk file is vkHeaderSize + 96·|ic|.
	vkHeaderSize = vkPointsSize + 4 // 868
)

// vkField is one of the six fixed points at the start of a .vk file.
type vkField struct {
	name string
	g1   *bls12381.G1Affine
	g2   *bls12381.G2Affine
}

func (vk *VerifyingKey) fields() []vkField {
	return []vkField{
		{name: "vk.alpha_g1", g1: &vk.AlphaG1},
		{name: "vk.beta_g1", g1: &vk.BetaG1},
		{name: "vk.beta_g2", g2: &vk.BetaG2},
		{name: "vk.gamma_g2", g2: &vk.GammaG2},
		{name: "vk.delta_g1", g1: &vk.DeltaG1},
		{name: "vk.delta_g2", g2: &vk.DeltaG2},
	}
}

// parseVK decodes, checked, the verifying key at the start of b (a .vk file
// or the head of a .params file) and returns it with the offset just past it.
// Identity points are rejected everywhere: a real key never has them.
func parseVK(b []byte) (*VerifyingKey, int64, error) {
	vk := new(VerifyingKey)
	var off int64
	size := int64(len(b))
	for _, f := range vk.fields() {
		n := int64(g1Uncompressed)
		if f.g2 != nil {
			n = g2Uncompressed
		}
		if size-off < n {
			return nil, 0, keyError(f.name, -1, off, "truncated: need %d bytes, %d remain", n, size-off)
		}
		var err error
		if f.g1 != nil {
			err = zcash.DecodeUncompressedG1(f.g1, b[off:], zcash.RefuseIdentity, zcash.CheckSubgroup)
		} else {
			err = zcash.DecodeUncompressedG2(f.g2, b[off:], zcash.RefuseIdentity, zcash.CheckSubgroup)
		}
		if err != nil {
			return nil, 0, keyError(f.name, -1, off, "%v", err)
		}
		off += n
	}
	if size-off < 4 {
		return nil, 0, keyError("ic", -1, off, "count truncated: need 4 bytes, %d remain", size-off)
	}
	count := int64(binary.BigEndian.Uint32(b[off:]))
	if count == 0 {
		return nil, 0, keyError("ic", -1, off, "count is 0, but ONE always has a point")
	}
	off += 4
	if err := checkRoom("ic", count, g1Uncompressed, off, size); err != nil {
		return nil, 0, err
	}
	vk.IC = make([]bls12381.G1Affine, count)
	for i := range vk.IC {
		if err := zcash.DecodeUncompressedG1(&vk.IC[i], b[off:], zcash.RefuseIdentity, zcash.CheckSubgroup); err != nil {
			return nil, 0, keyError("ic", i, off, "%v", err)
		}
		off += g1Uncompressed
	}
	return vk, off, nil
}

// checkRoom reports whether count points of elemSize bytes starting at off
// fit in a file of size bytes; the error names the first missing element.
func checkRoom(section string, count, elemSize, off, size int64) error {
	if need := count * elemSize; size-off < need {
		have := (size - off) / elemSize
		return keyError(section, int(have), off+have*elemSize,
			"truncated: %d points need %d bytes from offset %d, %d remain", count, need, off, size-off)
	}
	return nil
}

// ReadVerifyingKey reads a verifying key in bellperson's .vk format: the six
// uncompressed points, a u32 big-endian IC count and the IC points. Every point
// is checked (field encoding, curve, subgroup); identity points are rejected.
// It reads r to its end: a .vk holds the key alone, so bytes after it are an
// error wrapping ErrMalformedKey, as in a .params file.
func ReadVerifyingKey(r io.Reader) (*VerifyingKey, error) {
	b := make([]byte, vkHeaderSize)
	n, err := io.ReadFull(r, b)
	if err != nil {
		if !isEOF(err) {
			return nil, fmt.Errorf("groth16: reading verifying key: %w", err)
		}
		_, _, perr := parseVK(b[:n])
		return nil, perr
	}
	// Grow with the bytes that actually arrive, so a forged count cannot
	// force a large allocation.
	const chunk = 1 << 16
	remaining := int64(binary.BigEndian.Uint32(b[vkPointsSize:])) * g1Uncompressed
	for remaining > 0 {
		m := min(remaining, chunk)
		start := len(b)
		b = append(b, make([]byte, m)...)
		got, err := io.ReadFull(r, b[start:])
		if err != nil {
			if !isEOF(err) {
				return nil, fmt.Errorf("groth16: reading verifying key: %w", err)
			}
			b = b[:start+got]
			break
		}
		remaining -= m
	}
	vk, off, err := parseVK(b)
	if err != nil {
		return nil, err
	}
	const maxTrailing = 1 << 16 // counted exactly up to here
	extra, err := io.Copy(io.Discard, io.LimitReader(r, maxTrailing))
	if err != nil {
		return nil, fmt.Errorf("groth16: reading verifying key: %w", err)
	}
	if extra > 0 {
		more := ""
		if extra == maxTrailing {
			more = " or more"
		}
		return nil, keyError("ic", -1, off, "file too long: %d%s bytes follow the last IC point", extra, more)
	}
	return vk, nil
}

// ReadVerifyingKeyFile reads the .vk file at path (ReadVerifyingKey). As
// for OpenProvingKeyContext, a path that is not a regular file is refused
// at once, ctx bounds the open, and WithDigestCheck checks the file's
// digest first; errors name the file.
func ReadVerifyingKeyFile(ctx context.Context, path string, opts ...OpenOption) (*VerifyingKey, error) {
	f, _, _, err := openKeyFile(ctx, path, "verifying key", opts)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	vk, err := ReadVerifyingKey(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return vk, nil
}

func isEOF(err error) bool { return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) }

// encodedSize is the .vk size: 868 + 96·|ic|.
func (vk *VerifyingKey) encodedSize() int { return vkHeaderSize + g1Uncompressed*len(vk.IC) }

// appendTo appends the exact .vk bytes of vk to b.
func (vk *VerifyingKey) appendTo(b []byte) ([]byte, error) {
	if len(vk.IC) == 0 || uint64(len(vk.IC)) > math.MaxUint32 {
		return b, fmt.Errorf("groth16: verifying key has %d IC points, need 1 to 2³²−1: %w", len(vk.IC), ErrInvalidInput)
	}
	for _, f := range vk.fields() {
		if f.g1 != nil {
			p := f.g1.RawBytes()
			b = append(b, p[:]...)
		} else {
			p := f.g2.RawBytes()
			b = append(b, p[:]...)
		}
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(vk.IC)))
	for i := range vk.IC {
		p := vk.IC[i].RawBytes()
		b = append(b, p[:]...)
	}
	return b, nil
}

// WriteTo writes vk in bellperson's .vk format (868 + 96·|ic| bytes).
func (vk *VerifyingKey) WriteTo(w io.Writer) (int64, error) {
	b, err := vk.appendTo(make([]byte, 0, vk.encodedSize()))
	if err != nil {
		return 0, err
	}
	n, err := w.Write(b)
	return int64(n), err
}

// Equal reports whether vk and o hold the same points.
func (vk *VerifyingKey) Equal(o *VerifyingKey) bool {
	if vk == nil || o == nil {
		return vk == o
	}
	if !vk.AlphaG1.Equal(&o.AlphaG1) || !vk.BetaG1.Equal(&o.BetaG1) || !vk.BetaG2.Equal(&o.BetaG2) ||
		!vk.GammaG2.Equal(&o.GammaG2) || !vk.DeltaG1.Equal(&o.DeltaG1) || !vk.DeltaG2.Equal(&o.DeltaG2) ||
		len(vk.IC) != len(o.IC) {
		return false
	}
	for i := range vk.IC {
		if !vk.IC[i].Equal(&o.IC[i]) {
			return false
		}
	}
	return true
}

// WriteVerifyingKeyFile writes vk to path in .vk format, through path+".tmp"
// and a rename so readers never see a partial file, and its digest beside
// it as WriteParams does.
func WriteVerifyingKeyFile(path string, vk *VerifyingKey) error {
	return writeFileAtomic(path, vk.WriteTo)
}
