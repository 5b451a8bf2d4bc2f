package groth16

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/bits"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/gpuc2/gpuc2/internal/iocount"
	"github.com/gpuc2/gpuc2/internal/par"

	"github.com/gpuc2/gpuc2/internal/subgroup"
	"github.com/gpuc2/gpuc2/internal/zcash"
)

// Sections of a .params file after the verifying key, in file order: the
// numbers that ProvingKey.SectionG1Into and EvictSection and
// SectionCounts.Section take.
const (
	// SectionH is the h query (G1, SectionCounts.H points).
	SectionH = iota
	// SectionL is the l query (G1, SectionCounts.L points).
	SectionL
	// SectionA is the a query (G1, SectionCounts.A points).
	SectionA
	// SectionBG1 is the b query in G1 (SectionCounts.B points).
	SectionBG1
	// SectionBG2 is the b query in G2 (SectionCounts.B points).
	SectionBG2
	// NumSections is the number of sections.
	NumSections
)

var sectionNames = [NumSections]string{"h", "l", "a", "b_g1", "b_g2"}

func sectionElemSize(s int) int64 {
	if s == SectionBG2 {
		return g2Uncompressed
	}
	return g1Uncompressed
}

// ProvingKey is a Groth16 proving key: bellperson's Parameters. A key opened
// from a .params file keeps the file mapped and decodes each section on
// first use; a key built with NewProvingKey holds its sections in memory.
//
// All methods are safe for concurrent use. Slices returned by the section
// accessors are shared and must not be modified.
type ProvingKey struct {
	vk      *VerifyingKey
	counts  SectionCounts
	checked bool

	mu      sync.RWMutex // held for reading while the mapping is in use
	closed  bool
	data    []byte             // the whole .params file; nil when in memory
	release func() error       // unmaps data, if it is mapped
	offsets [NumSections]int64 // byte offset of each section's first point
	cleanup runtime.Cleanup    // unmaps a mapping whose key was never closed

	h, l, a, bg1 lazy[bls12381.G1Affine]
	bg2          lazy[bls12381.G2Affine]
}

type openConfig struct {
	checked bool
	digest  bool
}

// OpenOption configures OpenProvingKey and ReadVerifyingKeyFile.
type OpenOption func(*openConfig)

// WithChecked adds the prime-order subgroup test to the decoding of every
// section point, in batches (probabilistic, error below 2⁻⁶⁴; a failing
// batch is searched point by point to name the element), as bellperson's
// checked read does. Without it points are checked for flags, field
// encodings and the curve equation, which finds any flipped byte at a
// small fraction of the subgroup test's cost (BENCHMARKS.md, "Parameter
// integrity checks"); Filecoin's loader reads unchecked (not even the
// curve) and relies on the file's digest instead (WithDigestCheck).
func WithChecked(checked bool) OpenOption {
	return func(c *openConfig) { c.checked = checked }
}

// WithDigestCheck refuses a key file whose digest (see CheckDigest) is not
// the one ExpectedDigest gives for it: Filecoin's published digest, or the
// sidecar this package's writers leave beside a file. The bytes hashed are
// those of the open file that is then read, so a file renamed into place
// meanwhile is not mistaken for the checked one. Errors wrap
// ErrMalformedKey.
func WithDigestCheck() OpenOption {
	return func(c *openConfig) { c.digest = true }
}

// OpenProvingKey is OpenProvingKeyContext without cancellation.
func OpenProvingKey(path string, opts ...OpenOption) (*ProvingKey, error) {
	return OpenProvingKeyContext(context.Background(), path, opts...)
}

// OpenProvingKeyContext maps the .params file at path (reading it into
// memory where mapping is not possible) and parses its verifying key and
// section counts. The section points are not decoded here; the file length
// must equal what the counts imply and the counts must fit a bellperson
// key's shape, else the error wraps ErrMalformedKey, as it does for a path
// that is not a regular file (refused at once: a FIFO never blocks the
// open). ctx bounds the open and the digest check (WithDigestCheck).
//
// The mapping stays valid until Close. Truncating the file underneath a
// live key makes later reads of the missing part fail with an error
// wrapping ErrMalformedKey (not the SIGBUS that would kill the process);
// replace parameter files by rename (WriteParams does) instead of
// rewriting them in place.
func OpenProvingKeyContext(ctx context.Context, path string, opts ...OpenOption) (*ProvingKey, error) {
	f, st, cfg, err := openKeyFile(ctx, path, "proving key", opts)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return openMapped(f, path, st.Size(), cfg)
}

// openKeyFile opens the key file at path with openRegular, an error naming
// it what ("proving key", "verifying key"), and checks its digest first if
// opts ask (WithDigestCheck). The caller closes f.
func openKeyFile(ctx context.Context, path, what string, opts []OpenOption) (f *os.File, st fs.FileInfo, cfg openConfig, err error) {
	for _, o := range opts {
		o(&cfg)
	}
	f, st, err = openRegular(ctx, path)
	if err != nil {
		return nil, nil, cfg, fmt.Errorf("groth16: open %s: %w", what, err)
	}
	if cfg.digest {
		if err := checkOpenDigest(ctx, f, st, path); err != nil {
			f.Close()
			return nil, nil, cfg, err
		}
	}
	return f, st, cfg, nil
}

// openMapped maps size bytes of f (the file at path) and parses the key's
// layout. The file may shrink at any moment, so even the parse reads the
// mapping through readMapped.
func openMapped(f *os.File, path string, size int64, cfg openConfig) (*ProvingKey, error) {
	data, unmap, err := mapFile(f, size)
	if err != nil {
		// Mapping fails for empty files and on platforms without mmap.
		unmap = nil
		if data, err = readFile(f, size); err != nil {
			return nil, fmt.Errorf("groth16: read proving key %s: %w", path, err)
		}
	}
	var pk *ProvingKey
	err = readMapped(data, func() (err error) {
		pk, err = parseParams(data, cfg.checked)
		return err
	})
	if errors.Is(err, errFileShrank) {
		err = fmt.Errorf("groth16: reading the layout: %v: %w", err, ErrMalformedKey)
	}
	if err != nil {
		if unmap != nil {
			_ = unmap(data)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if unmap != nil {
		pk.release = func() error { return unmap(data) }
		pk.cleanup = runtime.AddCleanup(pk, func(b []byte) { _ = unmap(b) }, data)
	}
	return pk, nil
}

// readFile reads all of f, sized by its (trusted, local) stat size.
func readFile(f *os.File, size int64) ([]byte, error) {
	if size <= 0 || int64(int(size)) != size {
		return io.ReadAll(f)
	}
	b := make([]byte, size)
	n, err := io.ReadFull(f, b)
	if err == io.ErrUnexpectedEOF {
		err = nil // the file shrank; the layout check reports it
	}
	return b[:n], err
}

// parseParams validates the layout of a .params image without decoding the
// section points.
func parseParams(data []byte, checked bool) (*ProvingKey, error) {
	vk, off, err := parseVK(data)
	if err != nil {
		return nil, err
	}
	pk := &ProvingKey{vk: vk, checked: checked, data: data}
	size := int64(len(data))
	var counts [NumSections]int
	var countOff [NumSections]int64
	for s := range NumSections {
		name := sectionNames[s]
		if size-off < 4 {
			return nil, keyError(name, -1, off, "count truncated: need 4 bytes, %d remain", size-off)
		}
		n := int64(binary.BigEndian.Uint32(data[off:]))
		countOff[s] = off
		off += 4
		if err := checkRoom(name, n, sectionElemSize(s), off, size); err != nil {
			return nil, err
		}
		counts[s] = int(n) // fits: n points fit in the file
		pk.offsets[s] = off
		off += n * sectionElemSize(s)
	}
	if off != size {
		return nil, keyError("b_g2", -1, off, "file too long: %d bytes follow the last section", size-off)
	}
	if counts[SectionBG1] != counts[SectionBG2] {
		return nil, keyError("b_g2", -1, countOff[SectionBG2], "count %d differs from b_g1 count %d", counts[SectionBG2], counts[SectionBG1])
	}
	pk.counts = SectionCounts{H: counts[SectionH], L: counts[SectionL], A: counts[SectionA], B: counts[SectionBG1]}
	if s, err := checkParamsShape(pk.counts, len(vk.IC)); err != nil {
		return nil, keyError(sectionNames[s], -1, countOff[s], "%v", err)
	}
	return pk, nil
}

// checkParamsShape applies the count relations every bellperson key satisfies:
// h has m−1 points for a power-of-two domain size m; a holds every input
// (each has an input constraint) and at most all variables; b at most all
// variables. It returns the section at fault.
func checkParamsShape(c SectionCounts, numIC int) (int, error) {
	vars := numIC + c.L
	switch {
	case bits.OnesCount64(uint64(c.H)+1) != 1:
		return SectionH, fmt.Errorf("count %d is not 2^k−1", c.H)
	case c.A < numIC:
		return SectionA, fmt.Errorf("count %d is below the %d inputs", c.A, numIC)
	case c.A > vars:
		return SectionA, fmt.Errorf("count %d exceeds the %d variables (ic + l)", c.A, vars)
	case c.B > vars:
		return SectionBG1, fmt.Errorf("count %d exceeds the %d variables (ic + l)", c.B, vars)
	}
	return 0, nil
}

// NewProvingKey builds an in-memory key, e.g. from a test setup. The key
// keeps the slices it is given; callers must not modify them afterwards.
// Sections must have the shape of a bellperson key (see OpenProvingKey) so
// that the key survives WriteTo and OpenProvingKey; errors wrap ErrInvalidInput.
func NewProvingKey(vk *VerifyingKey, h, l, a, bg1 []bls12381.G1Affine, bg2 []bls12381.G2Affine) (*ProvingKey, error) {
	if vk == nil || len(vk.IC) == 0 {
		return nil, fmt.Errorf("groth16: verifying key missing or without IC: %w", ErrInvalidInput)
	}
	if len(bg1) != len(bg2) {
		return nil, fmt.Errorf("groth16: b_g1 has %d points, b_g2 %d: %w", len(bg1), len(bg2), ErrInvalidInput)
	}
	for _, n := range []int{len(vk.IC), len(h), len(l), len(a), len(bg1)} {
		if uint64(n) > math.MaxUint32 {
			return nil, fmt.Errorf("groth16: section of %d points exceeds the u32 count: %w", n, ErrInvalidInput)
		}
	}
	c := SectionCounts{H: len(h), L: len(l), A: len(a), B: len(bg1)}
	if s, err := checkParamsShape(c, len(vk.IC)); err != nil {
		return nil, fmt.Errorf("groth16: section %s: %v: %w", sectionNames[s], err, ErrInvalidInput)
	}
	pk := &ProvingKey{vk: vk, counts: c}
	pk.h.pin(h)
	pk.l.pin(l)
	pk.a.pin(a)
	pk.bg1.pin(bg1)
	pk.bg2.pin(bg2)
	return pk, nil
}

// VerifyingKey returns the key's verifying key; it is shared, not copied.
func (pk *ProvingKey) VerifyingKey() *VerifyingKey { return pk.vk }

// Counts returns the number of points in each section.
func (pk *ProvingKey) Counts() SectionCounts { return pk.counts }

// H returns the h query, decoding it on first use.
func (pk *ProvingKey) H(ctx context.Context) ([]bls12381.G1Affine, error) {
	return sectionG1(ctx, pk, SectionH, &pk.h)
}

// L returns the l query, decoding it on first use.
func (pk *ProvingKey) L(ctx context.Context) ([]bls12381.G1Affine, error) {
	return sectionG1(ctx, pk, SectionL, &pk.l)
}

// A returns the a query, decoding it on first use.
func (pk *ProvingKey) A(ctx context.Context) ([]bls12381.G1Affine, error) {
	return sectionG1(ctx, pk, SectionA, &pk.a)
}

// BG1 returns the b_g1 query, decoding it on first use.
func (pk *ProvingKey) BG1(ctx context.Context) ([]bls12381.G1Affine, error) {
	return sectionG1(ctx, pk, SectionBG1, &pk.bg1)
}

// BG2 returns the b_g2 query, decoding it on first use.
func (pk *ProvingKey) BG2(ctx context.Context) ([]bls12381.G2Affine, error) {
	if err := pk.checkOpen(); err != nil {
		return nil, err
	}
	return pk.bg2.get(ctx, func(ctx context.Context) ([]bls12381.G2Affine, error) {
		return decodeSection(ctx, pk, SectionBG2, zcash.DecodeUncompressedG2, subgroup.FirstOutsideG2)
	})
}

func sectionG1(ctx context.Context, pk *ProvingKey, s int, z *lazy[bls12381.G1Affine]) ([]bls12381.G1Affine, error) {
	if err := pk.checkOpen(); err != nil {
		return nil, err
	}
	return z.get(ctx, func(ctx context.Context) ([]bls12381.G1Affine, error) {
		return decodeSection(ctx, pk, s, zcash.DecodeUncompressedG1, subgroup.FirstOutsideG1)
	})
}

func (pk *ProvingKey) checkOpen() error {
	pk.mu.RLock()
	defer pk.mu.RUnlock()
	if pk.closed {
		return ErrClosed
	}
	return nil
}

// decodeChunk is the number of points a decode worker takes at a time; it
// bounds how long a cancelled decode keeps running, and is the batch of
// WithChecked's subgroup test.
const decodeChunk = 1 << 13

// decodeSection decodes section s of the mapped file over GOMAXPROCS
// goroutines: dec checks each point's encoding and curve equation; with
// pk.checked, outside finds a point of a decoded chunk outside the
// subgroup. On bad bytes it reports the lowest failing index.
func decodeSection[T any](ctx context.Context, pk *ProvingKey, s int,
	dec func(*T, []byte, zcash.Identity, zcash.Subgroup) error, outside func([]T) int) ([]T, error) {
	out := make([]T, pk.counts.Section(s)) // the count was confirmed against the file length at open
	if err := decodeSectionInto(ctx, pk, s, dec, outside, out); err != nil {
		return nil, err
	}
	return out, nil
}

// decodeSectionInto is decodeSection into out, of the section's length.
func decodeSectionInto[T any](ctx context.Context, pk *ProvingKey, s int,
	dec func(*T, []byte, zcash.Identity, zcash.Subgroup) error, outside func([]T) int, out []T) error {
	pk.mu.RLock()
	defer pk.mu.RUnlock()
	if pk.closed {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	n := pk.counts.Section(s)
	if len(out) != n {
		return fmt.Errorf("%w: section %s: %d points into room for %d", ErrInvalidInput, sectionNames[s], n, len(out))
	}
	if pk.data == nil {
		return fmt.Errorf("%w: section %s: the key is not file-backed", ErrInvalidInput, sectionNames[s])
	}
	size := sectionElemSize(s)
	base := pk.offsets[s]
	data := pk.data

	chunks := (n + decodeChunk - 1) / decodeChunk
	workers := min(runtime.GOMAXPROCS(0), chunks)
	var (
		next    atomic.Int64
		stop    atomic.Bool
		wg      sync.WaitGroup
		errMu   sync.Mutex
		errIdx  = -1
		errCall error
	)
	fail := func(i int, err error) {
		errMu.Lock()
		if errIdx < 0 || i < errIdx {
			errIdx, errCall = i, err
		}
		errMu.Unlock()
		stop.Store(true)
	}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			i := 0 // the point being read, for a fault's error
			err := readMapped(data, func() error {
				for !stop.Load() {
					c := int(next.Add(1) - 1)
					if c >= chunks {
						return nil
					}
					if ctx.Err() != nil {
						stop.Store(true)
						return nil
					}
					lo, hi := c*decodeChunk, min(n, (c+1)*decodeChunk)
					for i = lo; i < hi; i++ {
						if err := dec(&out[i], data[base+int64(i)*size:], zcash.AcceptIdentity, zcash.SkipSubgroup); err != nil {
							return err
						}
					}
					if pk.checked {
						if j := outside(out[lo:hi]); j >= 0 {
							i = lo + j
							return zcash.ErrNotInSubgroup
						}
					}
					// The decoded copy replaces the file's bytes in memory as
					// it goes: a section (12.9 GB at 32 GiB) is then never
					// resident twice, decoded and mapped, while it loads. A
					// page shared with a neighbouring chunk not yet read is
					// only read again.
					pk.dropMapped(base+int64(lo)*size, int64(hi-lo)*size)
				}
				return nil
			})
			if err != nil {
				fail(i, err)
			}
		}()
	}
	wg.Wait()
	if errIdx >= 0 {
		return keyError(sectionNames[s], errIdx, base+int64(errIdx)*size, "%v", errCall)
	}
	return ctx.Err()
}

// fileBacked says whether pk's sections decode from a file (else they are
// in memory).
func (pk *ProvingKey) fileBacked() bool {
	pk.mu.RLock()
	defer pk.mu.RUnlock()
	return pk.data != nil
}

// SectionG1Into writes G1 section s (h, l, a or b_g1) into dst: decoded
// straight from the file for a file-backed key (no second copy on the
// heap), else copied from the in-memory section.
func (pk *ProvingKey) SectionG1Into(ctx context.Context, s int, dst []bls12381.G1Affine) error {
	if pk.fileBacked() {
		return decodeSectionInto(ctx, pk, s, zcash.DecodeUncompressedG1, subgroup.FirstOutsideG1, dst)
	}
	src, err := [...]func(context.Context) ([]bls12381.G1Affine, error){SectionH: pk.H, SectionL: pk.L, SectionA: pk.A, SectionBG1: pk.BG1}[s](ctx)
	if err != nil {
		return err
	}
	if len(src) != len(dst) {
		return fmt.Errorf("%w: section %s: %d points into room for %d", ErrInvalidInput, sectionNames[s], len(src), len(dst))
	}
	copy(dst, src)
	return nil
}

// BG2Into is SectionG1Into for b_g2.
func (pk *ProvingKey) BG2Into(ctx context.Context, dst []bls12381.G2Affine) error {
	if pk.fileBacked() {
		return decodeSectionInto(ctx, pk, SectionBG2, zcash.DecodeUncompressedG2, subgroup.FirstOutsideG2, dst)
	}
	src, err := pk.BG2(ctx)
	if err != nil {
		return err
	}
	if len(src) != len(dst) {
		return fmt.Errorf("%w: section b_g2: %d points into room for %d", ErrInvalidInput, len(src), len(dst))
	}
	copy(dst, src)
	return nil
}

// dropMapped drops the resident pages of data[off:off+n] of a mapped key,
// the range shrunk to whole pages. pk.mu is held (read-locked will do).
func (pk *ProvingKey) dropMapped(off, n int64) {
	if pk.release == nil || pk.closed { // not a mapping: heap bytes must not be dropped
		return
	}
	ps := int64(os.Getpagesize())
	lo := (off + ps - 1) / ps * ps
	hi := (off + n) / ps * ps
	if hi > lo {
		dropPages(pk.data[lo:hi])
	}
}

// Evict drops the decoded sections of a file-backed key to free memory, and
// the mapped file's pages from the resident set; the file stays mapped and
// the next accessor call decodes again. Slices already
// handed out stay valid. In-memory keys are unaffected.
func (pk *ProvingKey) Evict() {
	for s := range NumSections {
		pk.EvictSection(s)
	}
	pk.mu.RLock()
	defer pk.mu.RUnlock()
	pk.dropMapped(0, int64(len(pk.data)))
}

// EvictSection drops section s's decoded copy of a file-backed key, as
// Evict does every section's, and reports whether there was one to drop
// (an in-memory key keeps its sections).
func (pk *ProvingKey) EvictSection(s int) bool {
	return pk.sectionCaches()[s].evict()
}

// sectionCache is a decoded section (a lazy of G1 or G2 points).
type sectionCache interface {
	evict() bool
	drop()
}

// sectionCaches are the decoded sections, in section order.
func (pk *ProvingKey) sectionCaches() [NumSections]sectionCache {
	return [NumSections]sectionCache{&pk.h, &pk.l, &pk.a, &pk.bg1, &pk.bg2}
}

// Close unmaps the file and drops all sections; later accessor calls return
// ErrClosed. It waits for decodes in progress and is idempotent.
func (pk *ProvingKey) Close() error {
	pk.mu.Lock()
	defer pk.mu.Unlock()
	if pk.closed {
		return nil
	}
	pk.closed = true
	for _, z := range pk.sectionCaches() {
		z.drop()
	}
	pk.data = nil
	if pk.release == nil {
		return nil
	}
	pk.cleanup.Stop()
	if err := pk.release(); err != nil {
		return fmt.Errorf("groth16: unmap proving key: %w", err)
	}
	return nil
}

// writeBatch is how many points WriteTo encodes before handing them on.
const writeBatch = 4096

// WriteTo writes pk in bellperson's .params format: the verifying key, then
// h, l, a, b_g1 and b_g2, each a u32 big-endian count and uncompressed points.
// A file-backed key writes its file bytes verbatim.
func (pk *ProvingKey) WriteTo(w io.Writer) (int64, error) {
	pk.mu.RLock()
	defer pk.mu.RUnlock()
	if pk.closed {
		return 0, ErrClosed
	}
	cw := &iocount.Writer{W: w}
	if pk.data != nil {
		err := pk.copyFile(context.Background(), func(b []byte) error {
			_, err := cw.Write(b)
			return err
		})
		return cw.N, err
	}
	bw := bufio.NewWriterSize(cw, 1<<20)
	err := pk.writeInMemory(bw)
	if err == nil {
		err = bw.Flush()
	}
	return cw.N, err
}

func (pk *ProvingKey) writeInMemory(w io.Writer) error {
	buf, err := pk.vk.appendTo(make([]byte, 0, pk.vk.encodedSize()))
	if err != nil {
		return err
	}
	if _, err := w.Write(buf); err != nil {
		return err
	}
	for s := range NumSections {
		n := pk.counts.Section(s)
		buf = binary.BigEndian.AppendUint32(buf[:0], uint32(n))
		if _, err := w.Write(buf); err != nil {
			return err
		}
		for lo := 0; lo < n; lo += writeBatch {
			buf = pk.appendPoints(buf[:0], s, lo, min(lo+writeBatch, n))
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
	}
	return nil
}

// appendPoints appends points [lo, hi) of section s of an in-memory key to
// b, uncompressed as in a .params file.
func (pk *ProvingKey) appendPoints(b []byte, s, lo, hi int) []byte {
	if s == SectionBG2 {
		for i := range pk.bg2.val[lo:hi] {
			e := pk.bg2.val[lo+i].RawBytes()
			b = append(b, e[:]...)
		}
		return b
	}
	g1 := [...][]bls12381.G1Affine{SectionH: pk.h.val, SectionL: pk.l.val, SectionA: pk.a.val, SectionBG1: pk.bg1.val}[s]
	for i := range g1[lo:hi] {
		e := g1[lo+i].RawBytes()
		b = append(b, e[:]...)
	}
	return b
}

// copyFile hands the bytes of a file-backed key to write in chunks,
// stopping when ctx ends. Each chunk is copied to the heap first, under
// readMapped: the copy cannot crash if the file shrank, and write (which
// may pass the bytes to other goroutines) never sees mapped memory.
// pk.mu is held.
func (pk *ProvingKey) copyFile(ctx context.Context, write func([]byte) error) error {
	buf := make([]byte, min(len(pk.data), 1<<22))
	for off := 0; off < len(pk.data); {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(len(buf), len(pk.data)-off)
		if err := readMapped(pk.data, func() error {
			copy(buf[:n], pk.data[off:off+n])
			return nil
		}); err != nil {
			return fmt.Errorf("groth16: copying the key file at offset %d: %v: %w", off, err, ErrMalformedKey)
		}
		if err := write(buf[:n]); err != nil {
			return err
		}
		off += n
	}
	return nil
}

// WriteParams writes pk to path in .params format, through path+".tmp" and a
// rename so that readers (and live mappings of the old file) never see a
// partial file, and the file's digest beside it (DigestSidecarPath), which
// WithDigestCheck checks. It is WriteParamsContext without cancellation or
// progress.
func WriteParams(path string, pk *ProvingKey) error {
	return WriteParamsContext(context.Background(), path, pk, nil)
}

// WriteParamsContext is WriteParams that stops (removing the temporary
// file) when ctx ends and, if progress is not nil, reports the bytes
// written so far out of the file's size; progress calls are serialized.
//
// An in-memory key is encoded by all cores at once: the layout is fixed
// (each section's offset follows from the counts), so chunks of points are
// encoded into per-worker buffers and written at their offsets with
// WriteAt; the bytes are those of WriteTo. A file-backed key's bytes are
// copied.
func WriteParamsContext(ctx context.Context, path string, pk *ProvingKey, progress func(written, total int64)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return writeFileAtomicAt(ctx, path, func(f *os.File) error {
		return pk.writeFile(ctx, f, progress)
	})
}

// writeChunkPoints is how many points a worker of the parallel writer
// encodes into its buffer and writes at once (a variable for tests).
var writeChunkPoints = 1 << 16

// paramsLayout is the byte offset of each section's u32 count in a .params
// file, and the file's size.
func (pk *ProvingKey) paramsLayout() (countOff [NumSections]int64, size int64) {
	off := int64(pk.vk.encodedSize())
	for s := range NumSections {
		countOff[s] = off
		off += 4 + int64(pk.counts.Section(s))*sectionElemSize(s)
	}
	return countOff, off
}

// writeFile writes pk into f, which is empty.
func (pk *ProvingKey) writeFile(ctx context.Context, f *os.File, progress func(written, total int64)) error {
	pk.mu.RLock()
	defer pk.mu.RUnlock()
	if pk.closed {
		return ErrClosed
	}
	countOff, size := pk.paramsLayout()
	if pk.data != nil {
		size = int64(len(pk.data))
	}
	var (
		progMu  sync.Mutex
		written int64
	)
	report := func(n int) {
		if progress == nil {
			return
		}
		progMu.Lock()
		defer progMu.Unlock()
		written += int64(n)
		progress(written, size)
	}
	if pk.data != nil {
		return pk.copyFile(ctx, func(b []byte) error {
			if _, err := f.Write(b); err != nil {
				return err
			}
			report(len(b))
			return nil
		})
	}

	// The verifying key and the section counts, then the points in chunks.
	head, err := pk.vk.appendTo(make([]byte, 0, pk.vk.encodedSize()))
	if err != nil {
		return err
	}
	if _, err := f.WriteAt(head, 0); err != nil {
		return err
	}
	report(len(head))
	for s := range NumSections {
		var c [4]byte
		binary.BigEndian.PutUint32(c[:], uint32(pk.counts.Section(s)))
		if _, err := f.WriteAt(c[:], countOff[s]); err != nil {
			return err
		}
		report(4)
	}
	type chunk struct {
		s      int
		lo, hi int
	}
	per := max(writeChunkPoints, 1)
	var chunks []chunk
	for s := range NumSections {
		n := pk.counts.Section(s)
		for lo := 0; lo < n; lo += per {
			chunks = append(chunks, chunk{s, lo, min(lo+per, n)})
		}
	}
	bufs := make(chan []byte, runtime.GOMAXPROCS(0)) // one per worker, made on first use
	for range cap(bufs) {
		bufs <- nil
	}
	return par.Chunks(ctx, len(chunks), 1, func(i, _ int) error {
		c := chunks[i]
		buf := <-bufs
		defer func() { bufs <- buf }()
		if buf == nil {
			buf = make([]byte, 0, per*g2Uncompressed)
		}
		b := pk.appendPoints(buf[:0], c.s, c.lo, c.hi)
		elem := sectionElemSize(c.s)
		if _, err := f.WriteAt(b, countOff[c.s]+4+int64(c.lo)*elem); err != nil {
			return err
		}
		report(len(b))
		return nil
	})
}

// lazy is a cancellable once: concurrent callers share one fill; a fill
// abandoned because its context ended is not cached, so a later call retries.
type lazy[T any] struct {
	mu      sync.Mutex
	done    bool
	pinned  bool // in-memory section: never evicted
	val     []T
	err     error
	running chan struct{} // closed when the fill in flight ends
	gen     uint64        // bumped by evict so a stale fill is not cached
}

func (z *lazy[T]) pin(v []T) {
	z.done, z.pinned, z.val = true, true, v
}

func (z *lazy[T]) get(ctx context.Context, fill func(context.Context) ([]T, error)) ([]T, error) {
	for {
		z.mu.Lock()
		if z.done {
			v, err := z.val, z.err
			z.mu.Unlock()
			return v, err
		}
		if ch := z.running; ch != nil {
			z.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if err := ctx.Err(); err != nil {
			z.mu.Unlock()
			return nil, err
		}
		ch := make(chan struct{})
		z.running = ch
		gen := z.gen
		z.mu.Unlock()
		return z.run(ctx, fill, ch, gen)
	}
}

func (z *lazy[T]) run(ctx context.Context, fill func(context.Context) ([]T, error), ch chan struct{}, gen uint64) (v []T, err error) {
	finished := false
	defer func() {
		z.mu.Lock()
		z.running = nil
		// Cache results and decode errors, not cancellations or panics.
		if finished && gen == z.gen && (err == nil || ctx.Err() == nil) {
			z.done, z.val, z.err = true, v, err
		}
		z.mu.Unlock()
		close(ch)
	}()
	v, err = fill(ctx)
	finished = true
	return v, err
}

// evict forgets a decoded value (not a pinned one), reporting whether
// there was one.
func (z *lazy[T]) evict() bool {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.pinned {
		return false
	}
	had := z.val != nil
	z.gen++
	z.done, z.val, z.err = false, nil, nil
	return had
}

// drop forgets the value even if pinned (Close).
func (z *lazy[T]) drop() {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.gen++
	z.done, z.pinned, z.val, z.err = false, false, nil, nil
}
