package aggregate

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"golang.org/x/sync/errgroup"

	"github.com/gpuc2/gpuc2/internal/subgroup"
	"github.com/gpuc2/gpuc2/internal/zcash"
)

// ErrSRS reports SRS bytes that are short, corrupt or too long, and a proof
// count the SRS cannot serve.
var ErrSRS = errors.New("aggregate: invalid SRS")

const (
	// MaxSRSSize is bellperson's MAX_SRS_SIZE: the most points one vector of
	// an SRS file may declare.
	MaxSRSSize = (2 << 19) + 1
	// FilecoinSRSMaxLen is the prefix of each vector filecoin-proofs reads
	// from v28-fil-inner-product-v1.srs (read_cached_srs_key's max_len). The
	// verifier key depends on it: h_alpha_d is h^{alpha^(L-n)} with L the
	// number of g_alpha powers read.
	FilecoinSRSMaxLen = (2 << 14) + 1

	// lenSize is the big-endian u32 count before each vector.
	lenSize = 4
)

// The four vectors in file order (not GenericSRS's field order).
const (
	vecGAlpha = iota
	vecGBeta
	vecHAlpha
	vecHBeta
	numVecs
)

var vecNames = [numVecs]string{"g_alpha_powers", "g_beta_powers", "h_alpha_powers", "h_beta_powers"}

func vecPointSize(v int) int {
	if v < vecHAlpha {
		return g1Size
	}
	return g2Size
}

// GenericSRS is bellperson's GenericSRS: powers of two secrets alpha and beta
// in both groups, from g^{alpha^0} = g on. Its binary form (WriteTo,
// ReadGenericSRS) is bellperson's: for g_alpha, g_beta, h_alpha, h_beta in
// that order, a big-endian u32 count then the points compressed.
type GenericSRS struct {
	GAlphaPowers []bls12381.G1Affine
	GBetaPowers  []bls12381.G1Affine
	HAlphaPowers []bls12381.G2Affine
	HBetaPowers  []bls12381.G2Affine
}

// Key is bellperson's commitment key: A holds powers of alpha, B of beta.
type Key[P bls12381.G1Affine | bls12381.G2Affine] struct {
	A, B []P
}

// VKey is the key of the single (MIPP) commitment: h^{alpha^i}, h^{beta^i}
// for i in [0, n).
type VKey = Key[bls12381.G2Affine]

// WKey is the key of the pair (TIPP) commitment: g^{alpha^i}, g^{beta^i} for
// i in [n, 2n).
type WKey = Key[bls12381.G1Affine]

// ProverSRS is bellperson's ProverSRS for n proofs, with the powers as points
// rather than bellperson's precomputed tables.
type ProverSRS struct {
	N int
	// GAlphaPowers and GBetaPowers are indices [0, 2n): the KZG opening
	// needs the whole degree-(2n-1) range, not only WKey's half.
	GAlphaPowers []bls12381.G1Affine
	GBetaPowers  []bls12381.G1Affine
	// HAlphaPowers and HBetaPowers are indices [0, n).
	HAlphaPowers []bls12381.G2Affine
	HBetaPowers  []bls12381.G2Affine
	VKey         VKey
	WKey         WKey
	// GAlphaPowersEnd is g^{alpha^i} for i in [L-n, L), L the number of
	// g_alpha powers loaded: bellperson's ProverSRSInputAggregation adds it
	// for aggregating public inputs.
	GAlphaPowersEnd []bls12381.G1Affine
}

// VerifierSRS is bellperson's VerifierSRS for n proofs.
type VerifierSRS struct {
	N       int
	G       bls12381.G1Affine // g^{alpha^0}
	H       bls12381.G2Affine // h^{alpha^0}
	GAlpha  bls12381.G1Affine
	GBeta   bls12381.G1Affine
	HAlpha  bls12381.G2Affine
	HBeta   bls12381.G2Affine
	HAlphaD bls12381.G2Affine // h^{alpha^(L-n)}, L as in GAlphaPowersEnd
}

func srsError(format string, args ...any) error {
	return fmt.Errorf("aggregate: SRS %s: %w", fmt.Sprintf(format, args...), ErrSRS)
}

// powerSource gives ranges of the four vectors; lens are the lengths loaded.
type powerSource struct {
	lens [numVecs]int
	g1   func(v, lo, hi int) ([]bls12381.G1Affine, error)
	g2   func(v, lo, hi int) ([]bls12381.G2Affine, error)
}

// Specialize returns the prover and verifier SRS for n proofs, as
// bellperson's specialize (with specialize_input_aggregation's extra
// powers). n must be a power of two and every vector hold at least 2n
// powers.
func (s *GenericSRS) Specialize(n int) (*ProverSRS, *VerifierSRS, error) {
	src := powerSource{
		lens: [numVecs]int{len(s.GAlphaPowers), len(s.GBetaPowers), len(s.HAlphaPowers), len(s.HBetaPowers)},
		g1: func(v, lo, hi int) ([]bls12381.G1Affine, error) {
			if v == vecGAlpha {
				return slices.Clone(s.GAlphaPowers[lo:hi]), nil
			}
			return slices.Clone(s.GBetaPowers[lo:hi]), nil
		},
		g2: func(v, lo, hi int) ([]bls12381.G2Affine, error) {
			if v == vecHAlpha {
				return slices.Clone(s.HAlphaPowers[lo:hi]), nil
			}
			return slices.Clone(s.HBetaPowers[lo:hi]), nil
		},
	}
	return specialize(&src, n)
}

func specialize(src *powerSource, n int) (*ProverSRS, *VerifierSRS, error) {
	if n < 1 || n&(n-1) != 0 {
		return nil, nil, srsError("proof count %d is not a power of two", n)
	}
	for v, l := range src.lens {
		if l/2 < n {
			return nil, nil, srsError("proof count %d too large: %s has %d powers, need %d", n, vecNames[v], l, 2*n)
		}
	}
	// bellperson indexes h_alpha with g_alpha's length.
	l := src.lens[vecGAlpha]
	if l > src.lens[vecHAlpha] {
		return nil, nil, srsError("h_alpha_powers has %d powers, fewer than g_alpha_powers' %d", src.lens[vecHAlpha], l)
	}
	var (
		p   = &ProverSRS{N: n}
		err error
		hd  []bls12381.G2Affine
	)
	if p.GAlphaPowers, err = src.g1(vecGAlpha, 0, 2*n); err != nil {
		return nil, nil, err
	}
	if p.GBetaPowers, err = src.g1(vecGBeta, 0, 2*n); err != nil {
		return nil, nil, err
	}
	if p.HAlphaPowers, err = src.g2(vecHAlpha, 0, n); err != nil {
		return nil, nil, err
	}
	if p.HBetaPowers, err = src.g2(vecHBeta, 0, n); err != nil {
		return nil, nil, err
	}
	if p.GAlphaPowersEnd, err = src.g1(vecGAlpha, l-n, l); err != nil {
		return nil, nil, err
	}
	if hd, err = src.g2(vecHAlpha, l-n, l-n+1); err != nil {
		return nil, nil, err
	}
	p.VKey = VKey{A: p.HAlphaPowers, B: p.HBetaPowers}
	p.WKey = WKey{A: p.GAlphaPowers[n:], B: p.GBetaPowers[n:]}
	vk := &VerifierSRS{
		N:       n,
		G:       p.GAlphaPowers[0],
		H:       p.HAlphaPowers[0],
		GAlpha:  p.GAlphaPowers[1],
		GBeta:   p.GBetaPowers[1],
		HAlphaD: hd[0],
	}
	// n = 1 leaves index 1 of the h vectors out of the prover's range.
	h1, err := src.g2(vecHAlpha, 1, 2)
	if err != nil {
		return nil, nil, err
	}
	vk.HAlpha = h1[0]
	if h1, err = src.g2(vecHBeta, 1, 2); err != nil {
		return nil, nil, err
	}
	vk.HBeta = h1[0]
	return p, vk, nil
}

// WriteTo writes s in bellperson's GenericSRS::write format.
func (s *GenericSRS) WriteTo(w io.Writer) (int64, error) {
	var total int64
	put := func(b []byte) error {
		k, err := w.Write(b)
		total += int64(k)
		return err
	}
	writeLen := func(v, l int) error {
		if l > MaxSRSSize {
			return srsError("%s has %d points, more than %d", vecNames[v], l, MaxSRSSize)
		}
		return put(binary.BigEndian.AppendUint32(nil, uint32(l)))
	}
	// Points go out in batches to keep writes few without one huge buffer.
	const batch = 4096
	for v, ps := range [][]bls12381.G1Affine{s.GAlphaPowers, s.GBetaPowers} {
		if err := writeLen(v, len(ps)); err != nil {
			return total, err
		}
		for lo := 0; lo < len(ps); lo += batch {
			b := make([]byte, 0, batch*g1Size)
			for i := lo; i < min(lo+batch, len(ps)); i++ {
				e := ps[i].Bytes()
				b = append(b, e[:]...)
			}
			if err := put(b); err != nil {
				return total, err
			}
		}
	}
	for k, ps := range [][]bls12381.G2Affine{s.HAlphaPowers, s.HBetaPowers} {
		if err := writeLen(vecHAlpha+k, len(ps)); err != nil {
			return total, err
		}
		for lo := 0; lo < len(ps); lo += batch {
			b := make([]byte, 0, batch*g2Size)
			for i := lo; i < min(lo+batch, len(ps)); i++ {
				e := ps[i].Bytes()
				b = append(b, e[:]...)
			}
			if err := put(b); err != nil {
				return total, err
			}
		}
	}
	return total, nil
}

// Hash is bellperson's GenericSRS::hash: SHA-256 of the written form.
func (s *GenericSRS) Hash() ([sha256.Size]byte, error) {
	h := sha256.New()
	if _, err := s.WriteTo(h); err != nil {
		return [sha256.Size]byte{}, err
	}
	return [sha256.Size]byte(h.Sum(nil)), nil
}

// srsLayout is where the four vectors of an SRS file lie.
type srsLayout struct {
	r    io.ReaderAt
	off  [numVecs]int64 // first point of each vector
	lens [numVecs]int   // points loaded: min(declared, maxLen)
}

// parseLayout reads the four counts as bellperson's read_mmap does: each
// vector is skipped by its declared count, only its first maxLen points are
// loaded. Unlike read_mmap, every declared point must be inside size. maxLen
// <= 0 loads whole vectors (bellperson's read).
func parseLayout(r io.ReaderAt, size int64, maxLen int) (*srsLayout, error) {
	if maxLen <= 0 {
		maxLen = MaxSRSSize
	}
	lay := &srsLayout{r: r}
	var off int64
	for v := range numVecs {
		var lb [lenSize]byte
		if off+lenSize > size {
			return nil, srsError("short file: %s count at offset %d, file is %d bytes", vecNames[v], off, size)
		}
		if _, err := r.ReadAt(lb[:], off); err != nil {
			return nil, fmt.Errorf("aggregate: SRS %s count at offset %d: %v: %w", vecNames[v], off, err, ErrSRS)
		}
		declared := int64(binary.BigEndian.Uint32(lb[:]))
		if declared > MaxSRSSize {
			return nil, srsError("%s count %d at offset %d exceeds %d", vecNames[v], declared, off, MaxSRSSize)
		}
		off += lenSize
		end := off + declared*int64(vecPointSize(v))
		if end > size {
			return nil, srsError("short file: %s declares %d points ending at offset %d, file is %d bytes", vecNames[v], declared, end, size)
		}
		lay.off[v] = off
		lay.lens[v] = int(min(declared, int64(maxLen)))
		off = end
	}
	return lay, nil
}

func (lay *srsLayout) source() *powerSource {
	return &powerSource{
		lens: lay.lens,
		g1: func(v, lo, hi int) ([]bls12381.G1Affine, error) {
			return decodeRange[bls12381.G1Affine](lay, v, lo, hi, g1Size, decodeSRSG1, subgroup.FirstOutsideG1)
		},
		g2: func(v, lo, hi int) ([]bls12381.G2Affine, error) {
			return decodeRange[bls12381.G2Affine](lay, v, lo, hi, g2Size, decodeSRSG2, subgroup.FirstOutsideG2)
		},
	}
}

// ReadGenericSRS reads an SRS in bellperson's format from r (size bytes), at
// most maxLen points of each vector as bellperson's read_mmap (filecoin-proofs
// uses FilecoinSRSMaxLen); maxLen <= 0 reads whole vectors. Every point must
// be a compressed non-identity point of the prime-order subgroup. Errors wrap
// ErrSRS and name the vector, index and offset.
func ReadGenericSRS(r io.ReaderAt, size int64, maxLen int) (*GenericSRS, error) {
	lay, err := parseLayout(r, size, maxLen)
	if err != nil {
		return nil, err
	}
	src := lay.source()
	s := &GenericSRS{}
	if s.GAlphaPowers, err = src.g1(vecGAlpha, 0, lay.lens[vecGAlpha]); err != nil {
		return nil, err
	}
	if s.GBetaPowers, err = src.g1(vecGBeta, 0, lay.lens[vecGBeta]); err != nil {
		return nil, err
	}
	if s.HAlphaPowers, err = src.g2(vecHAlpha, 0, lay.lens[vecHAlpha]); err != nil {
		return nil, err
	}
	if s.HBetaPowers, err = src.g2(vecHBeta, 0, lay.lens[vecHBeta]); err != nil {
		return nil, err
	}
	return s, nil
}

// ReadSpecializedSRS returns what ReadGenericSRS(r, size, maxLen) then
// Specialize(n) return, decoding only the points n needs: about 2n per vector
// instead of maxLen.
func ReadSpecializedSRS(r io.ReaderAt, size int64, maxLen, n int) (*ProverSRS, *VerifierSRS, error) {
	lay, err := parseLayout(r, size, maxLen)
	if err != nil {
		return nil, nil, err
	}
	return specialize(lay.source(), n)
}

// decodeRange decodes points [lo, hi) of vector v, in parallel chunks, then
// checks the subgroup in one batch per chunk.
func decodeRange[P any](lay *srsLayout, v, lo, hi, size int,
	decode func(*P, []byte) error, firstOutside func([]P) int) ([]P, error) {
	out := make([]P, hi-lo)
	workers := runtime.GOMAXPROCS(0)
	chunk := max(256, (len(out)+workers-1)/workers)
	var g errgroup.Group
	for c := 0; c < len(out); c += chunk {
		g.Go(func() error {
			end := min(c+chunk, len(out))
			base := lay.off[v] + int64(lo+c)*int64(size)
			buf := make([]byte, (end-c)*size)
			if _, err := lay.r.ReadAt(buf, base); err != nil {
				return fmt.Errorf("aggregate: SRS %s points %d..%d at offset %d: %v: %w", vecNames[v], lo+c, lo+end, base, err, ErrSRS)
			}
			for i := c; i < end; i++ {
				b := buf[(i-c)*size : (i-c+1)*size]
				if err := decode(&out[i], b); err != nil {
					return pointError(v, lo+i, base+int64(i-c)*int64(size), err)
				}
			}
			if k := firstOutside(out[c:end]); k >= 0 {
				return pointError(v, lo+c+k, base+int64(k)*int64(size), zcash.ErrNotInSubgroup)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

func pointError(v, i int, off int64, reason error) error {
	return fmt.Errorf("aggregate: SRS %s element %d at offset %d: %v: %w", vecNames[v], i, off, reason, ErrSRS)
}

// decodeSRSG1 and decodeSRSG2 leave the subgroup to decodeRange's batch
// test and refuse the identity: no power of a nonzero secret is the
// identity, so one marks a corrupt or forged SRS.
func decodeSRSG1(p *bls12381.G1Affine, b []byte) error {
	return zcash.DecodeCompressed(p, b, zcash.RefuseIdentity, zcash.SkipSubgroup)
}

func decodeSRSG2(p *bls12381.G2Affine, b []byte) error {
	return zcash.DecodeCompressed(p, b, zcash.RefuseIdentity, zcash.SkipSubgroup)
}

// TestOnlySRS makes a TEST-ONLY GenericSRS from secrets alpha and beta drawn
// from rng and then discarded: whoever ran it could have kept them and
// forge aggregate proofs, so it is never valid on chain. It mirrors
// bellperson's setup_fake_srs(rng, n): 2n powers in each vector, enough to
// specialize for up to n proofs.
func TestOnlySRS(rng io.Reader, n int) (*GenericSRS, error) {
	if n < 1 || 2*n > MaxSRSSize {
		return nil, srsError("TEST-ONLY size %d out of range [1, %d]", n, MaxSRSSize/2)
	}
	secret := func() (fr.Element, error) {
		var b [2 * fr.Bytes]byte // wide, so the reduction mod r is nearly uniform
		for {
			if _, err := io.ReadFull(rng, b[:]); err != nil {
				return fr.Element{}, fmt.Errorf("aggregate: TEST-ONLY SRS randomness: %w", err)
			}
			var x fr.Element
			x.SetBytes(b[:])
			if !x.IsZero() {
				return x, nil
			}
		}
	}
	alpha, err := secret()
	if err != nil {
		return nil, err
	}
	beta, err := secret()
	if err != nil {
		return nil, err
	}
	powers := func(x fr.Element) []fr.Element {
		ps := make([]fr.Element, 2*n)
		ps[0].SetOne()
		for i := 1; i < len(ps); i++ {
			ps[i].Mul(&ps[i-1], &x)
		}
		return ps
	}
	pa, pb := powers(alpha), powers(beta)
	_, _, g, h := bls12381.Generators()
	return &GenericSRS{
		GAlphaPowers: bls12381.BatchScalarMultiplicationG1(&g, pa),
		GBetaPowers:  bls12381.BatchScalarMultiplicationG1(&g, pb),
		HAlphaPowers: bls12381.BatchScalarMultiplicationG2(&h, pa),
		HBetaPowers:  bls12381.BatchScalarMultiplicationG2(&h, pb),
	}, nil
}
