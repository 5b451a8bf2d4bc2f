package groth16_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/cputime"
	"github.com/gpuc2/gpuc2/internal/testpoints"
)

func writeTemp(t *testing.T, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "key.params")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path
}

func pkBytes(t *testing.T, pk *groth16.ProvingKey) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, err := pk.WriteTo(&buf)
	require.NoError(t, err)
	require.EqualValues(t, buf.Len(), n)
	return buf.Bytes()
}

// requireSections checks every section of pk against k.
func requireSections(t *testing.T, pk *groth16.ProvingKey, k *fxKey) {
	t.Helper()
	ctx := context.Background()
	for _, s := range []struct {
		name string
		get  func(context.Context) ([]bls12381.G1Affine, error)
		want []bls12381.G1Affine
	}{{"h", pk.H, k.h}, {"l", pk.L, k.l}, {"a", pk.A, k.a}, {"b_g1", pk.BG1, k.bg1}} {
		got, err := s.get(ctx)
		require.NoError(t, err, s.name)
		require.Len(t, got, len(s.want), s.name)
		for i := range got {
			require.True(t, got[i].Equal(&s.want[i]), "%s[%d]", s.name, i)
		}
	}
	got, err := pk.BG2(ctx)
	require.NoError(t, err)
	require.Len(t, got, len(k.bg2))
	for i := range got {
		require.True(t, got[i].Equal(&k.bg2[i]), "b_g2[%d]", i)
	}
	require.True(t, pk.VerifyingKey().Equal(k.vk))
	require.Equal(t, groth16.SectionCounts{H: len(k.h), L: len(k.l), A: len(k.a), B: len(k.bg1)}, pk.Counts())
}

func TestProvingKeyRoundTrip(t *testing.T) {
	k := fxNewKey(t, fxSmall)
	mem := k.provingKey(t)
	requireSections(t, mem, k)
	b := pkBytes(t, mem)
	require.Len(t, b, fxParamsSize(fxSmall), "bellperson .params size")
	require.Equal(t, fxParamsBytes(t, k), b, "layout: vk, then h, l, a, b_g1, b_g2 with u32 BE counts")

	path := filepath.Join(t.TempDir(), "key.params")
	require.NoError(t, groth16.WriteParams(path, mem))
	assert.NoFileExists(t, path+".tmp")
	for _, checked := range []bool{false, true} {
		t.Run(fmt.Sprintf("checked=%v", checked), func(t *testing.T) {
			pk, err := groth16.OpenProvingKey(path, groth16.WithChecked(checked))
			require.NoError(t, err)
			defer pk.Close()
			requireSections(t, pk, k)
			assert.Equal(t, b, pkBytes(t, pk), "WriteTo of the opened key")

			again := filepath.Join(t.TempDir(), "again.params")
			require.NoError(t, groth16.WriteParams(again, pk))
			onDisk, err := os.ReadFile(again)
			require.NoError(t, err)
			assert.Equal(t, b, onDisk)
		})
	}
}

// Bellperson never writes identity points into the sections, but a
// well-formed infinity encoding is accepted and decodes to the identity.
func TestProvingKeyInfinityPoints(t *testing.T) {
	k := fxNewKey(t, fxSmall)
	k.h[3] = bls12381.G1Affine{}
	k.l[0] = bls12381.G1Affine{}
	k.bg2[1] = bls12381.G2Affine{}
	path := writeTemp(t, pkBytes(t, k.provingKey(t)))
	for _, checked := range []bool{false, true} {
		pk, err := groth16.OpenProvingKey(path, groth16.WithChecked(checked))
		require.NoError(t, err)
		requireSections(t, pk, k)
		require.NoError(t, pk.Close())
	}
}

// sectionStarts returns the offset of each section's u32 count in a
// .params file of shape s.
func sectionStarts(s fxShape) map[string]int {
	off := 868 + 96*s.ic
	starts := map[string]int{}
	for _, sec := range []struct {
		name string
		n    int
		size int
	}{{"h", s.h, 96}, {"l", s.l, 96}, {"a", s.a, 96}, {"b_g1", s.b, 96}, {"b_g2", s.b, 192}} {
		starts[sec.name] = off
		off += 4 + sec.n*sec.size
	}
	starts["end"] = off
	return starts
}

func TestOpenProvingKeyTruncated(t *testing.T) {
	k := fxNewKey(t, fxSmall)
	b := pkBytes(t, k.provingKey(t))
	st := sectionStarts(fxSmall)
	type cut struct {
		at      int
		message string // section, element and offset the error must name
	}
	cuts := []cut{
		{0, "section vk.alpha_g1 at offset 0"},
		{600, "section vk.delta_g1 at offset 576"},
		{864, "section ic at offset 864"},
		{868 + 96 + 10, "section ic element 1 at offset 964"},
	}
	for _, name := range []string{"h", "l", "a", "b_g1", "b_g2"} {
		off := st[name]
		size := 96
		if name == "b_g2" {
			size = 192
		}
		cuts = append(cuts,
			cut{off, fmt.Sprintf("section %s at offset %d: count truncated", name, off)},
			cut{off + 2, fmt.Sprintf("section %s at offset %d: count truncated", name, off)},
			cut{off + 4, fmt.Sprintf("section %s element 0 at offset %d: truncated", name, off+4)},
			cut{off + 4 + size + 7, fmt.Sprintf("section %s element 1 at offset %d: truncated", name, off+4+size)},
		)
	}
	cuts = append(cuts, cut{st["end"] - 1, fmt.Sprintf("section b_g2 element 3 at offset %d", st["end"]-192)})
	for _, c := range cuts {
		t.Run(fmt.Sprint(c.at), func(t *testing.T) {
			_, err := groth16.OpenProvingKey(writeTemp(t, b[:c.at]))
			require.ErrorIs(t, err, groth16.ErrMalformedKey)
			assert.Contains(t, err.Error(), c.message)
		})
	}
}

func TestOpenProvingKeyTooLong(t *testing.T) {
	k := fxNewKey(t, fxSmall)
	b := append(pkBytes(t, k.provingKey(t)), 0, 0, 0)
	_, err := groth16.OpenProvingKey(writeTemp(t, b))
	require.ErrorIs(t, err, groth16.ErrMalformedKey)
	assert.Contains(t, err.Error(), fmt.Sprintf("offset %d: file too long: 3 bytes", len(b)-3))
}

// Counts that fit the file length but not a bellperson key are refused
// before anything is decoded.
func TestOpenProvingKeyImplausibleCounts(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func(k *fxKey)
		message string
	}{
		{"b_g1 and b_g2 differ", func(k *fxKey) { k.bg2 = k.bg2[:3] }, "section b_g2 at offset"},
		{"h not 2^k-1", func(k *fxKey) { k.h = k.h[:6] }, "section h at offset 1156: count 6 is not 2^k−1"},
		{"a below inputs", func(k *fxKey) { k.a = k.a[:2] }, "section a at offset"},
		{"a above variables", func(k *fxKey) { k.a = fxG1s(t, 9) }, "count 9 exceeds the 8 variables"},
		{"b above variables", func(k *fxKey) { k.bg1, k.bg2 = fxG1s(t, 9), fxG2s(t, 9) }, "section b_g1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := fxNewKey(t, fxSmall)
			tt.mutate(k)
			_, err := groth16.OpenProvingKey(writeTemp(t, fxParamsBytes(t, k)))
			require.ErrorIs(t, err, groth16.ErrMalformedKey)
			assert.Contains(t, err.Error(), tt.message)

			_, err = groth16.NewProvingKey(k.vk, k.h, k.l, k.a, k.bg1, k.bg2)
			require.ErrorIs(t, err, groth16.ErrInvalidInput)
		})
	}
}

// A corrupt point is found when its section is decoded; the error names
// section, index and file offset. Every open checks flags, field encodings
// and the curve equation; WithChecked adds the subgroup test.
func TestProvingKeyCorruptPoint(t *testing.T) {
	k := fxNewKey(t, fxSmall)
	good := pkBytes(t, k.provingKey(t))
	st := sectionStarts(fxSmall)
	p := testpoints.OutsideG1(t)
	notG1 := p.RawBytes()
	q := testpoints.OutsideG2(t)
	notG2 := q.RawBytes()
	tests := []struct {
		name          string
		section       string
		index, size   int
		mutate        func(point []byte)
		failUnchecked bool
		reason        string
	}{
		{"off curve h", "h", 5, 96, func(p []byte) { p[95] ^= 1 }, true, "point not on the curve"},
		{"off curve b_g2", "b_g2", 2, 192, func(p []byte) { p[100] ^= 0x10 }, true, "point not on the curve"},
		{"not in subgroup l", "l", 4, 96, func(p []byte) { copy(p, notG1[:]) }, false, "point not in the prime-order subgroup"},
		{"not in subgroup b_g2", "b_g2", 3, 192, func(p []byte) { copy(p, notG2[:]) }, false, "point not in the prime-order subgroup"},
		{"compressed flag a", "a", 1, 96, func(p []byte) { p[0] |= 0x80 }, true, "invalid flag bits"},
		{"bad infinity b_g1", "b_g1", 3, 96, func(p []byte) { p[0] |= 0x40 }, true, "infinity flag with non-zero"},
		{"non-canonical y", "h", 0, 96, func(p []byte) { copy(p[48:], bytes.Repeat([]byte{0xff}, 48)) }, true, "coordinate not below"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := bytes.Clone(good)
			off := st[tt.section] + 4 + tt.index*tt.size
			tt.mutate(b[off : off+tt.size])
			path := writeTemp(t, b)
			for _, checked := range []bool{true, false} {
				pk, err := groth16.OpenProvingKey(path, groth16.WithChecked(checked))
				require.NoError(t, err, "open parses only the layout")
				err = decodeAll(pk)
				if !checked && !tt.failUnchecked {
					assert.NoError(t, err, "without WithChecked the subgroup is not tested")
					continue
				}
				require.ErrorIs(t, err, groth16.ErrMalformedKey, "checked=%v", checked)
				assert.Contains(t, err.Error(), fmt.Sprintf("section %s element %d at offset %d: %s", tt.section, tt.index, off, tt.reason))
				require.NoError(t, pk.Close())
			}
		})
	}
}

// Any one flipped bit in any byte of a section point is found when the
// section is decoded, by default, and named by section and element.
func TestProvingKeyFlippedByte(t *testing.T) {
	k := fxNewKey(t, fxSmall)
	good := pkBytes(t, k.provingKey(t))
	st := sectionStarts(fxSmall)
	counts := map[string]int{"h": fxSmall.h, "l": fxSmall.l, "a": fxSmall.a, "b_g1": fxSmall.b, "b_g2": fxSmall.b}
	for _, name := range []string{"h", "l", "a", "b_g1", "b_g2"} {
		size := 96
		if name == "b_g2" {
			size = 192
		}
		index := counts[name] - 1
		start := st[name] + 4 + index*size
		for i := range size {
			b := bytes.Clone(good)
			b[start+i] ^= 1 << (i % 8)
			pk, err := groth16.OpenProvingKey(writeTemp(t, b))
			require.NoError(t, err)
			err = decodeAll(pk)
			require.ErrorIs(t, err, groth16.ErrMalformedKey, "%s byte %d", name, i)
			assert.Contains(t, err.Error(), fmt.Sprintf("section %s element %d at offset %d", name, index, start))
			require.NoError(t, pk.Close())
		}
	}
}

// decodeAll decodes every section, returning the first error.
func decodeAll(pk *groth16.ProvingKey) error {
	ctx := context.Background()
	for _, f := range []func(context.Context) ([]bls12381.G1Affine, error){pk.H, pk.L, pk.A, pk.BG1} {
		if _, err := f(ctx); err != nil {
			return err
		}
	}
	_, err := pk.BG2(ctx)
	return err
}

func TestOpenProvingKeyMissing(t *testing.T) {
	_, err := groth16.OpenProvingKey(filepath.Join(t.TempDir(), "none.params"))
	require.ErrorIs(t, err, os.ErrNotExist)
	_, err = groth16.OpenProvingKey(writeTemp(t, nil))
	require.ErrorIs(t, err, groth16.ErrMalformedKey, "empty file")
}

func TestNewProvingKeyErrors(t *testing.T) {
	k := fxNewKey(t, fxSmall)
	_, err := groth16.NewProvingKey(k.vk, k.h, k.l, k.a, k.bg1, k.bg2[:3])
	assert.ErrorIs(t, err, groth16.ErrInvalidInput)
	_, err = groth16.NewProvingKey(nil, k.h, k.l, k.a, k.bg1, k.bg2)
	assert.ErrorIs(t, err, groth16.ErrInvalidInput)
}

// Concurrent callers share one decode and get the same cached slice.
func TestProvingKeyConcurrentDecode(t *testing.T) {
	k := fxNewKey(t, fxShape{ic: 2, h: 1023, l: 600, a: 300, b: 200})
	pk, err := groth16.OpenProvingKey(writeTemp(t, pkBytes(t, k.provingKey(t))), groth16.WithChecked(true))
	require.NoError(t, err)
	defer pk.Close()
	var wg sync.WaitGroup
	got := make([][]bls12381.G1Affine, 8)
	errs := make([]error, 8)
	for i := range got {
		wg.Go(func() { got[i], errs[i] = pk.H(context.Background()) })
	}
	wg.Wait()
	for i := range got {
		require.NoError(t, errs[i])
		require.Len(t, got[i], 1023)
		assert.Same(t, &got[0][0], &got[i][0], "one shared decode")
	}
	requireSections(t, pk, k)
}

func TestProvingKeyCancelledDecodeRetries(t *testing.T) {
	k := fxNewKey(t, fxSmall)
	pk, err := groth16.OpenProvingKey(writeTemp(t, pkBytes(t, k.provingKey(t))))
	require.NoError(t, err)
	defer pk.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = pk.H(ctx)
	require.ErrorIs(t, err, context.Canceled)
	_, err = pk.BG2(ctx)
	require.ErrorIs(t, err, context.Canceled)
	requireSections(t, pk, k)
}

func TestProvingKeyEvictAndClose(t *testing.T) {
	k := fxNewKey(t, fxSmall)
	path := writeTemp(t, pkBytes(t, k.provingKey(t)))
	pk, err := groth16.OpenProvingKey(path)
	require.NoError(t, err)
	first, err := pk.L(context.Background())
	require.NoError(t, err)
	pk.Evict()
	second, err := pk.L(context.Background())
	require.NoError(t, err)
	assert.NotSame(t, &first[0], &second[0], "evicted section is decoded again")
	requireSections(t, pk, k)

	require.NoError(t, pk.Close())
	require.NoError(t, pk.Close(), "Close is idempotent")
	_, err = pk.H(context.Background())
	assert.ErrorIs(t, err, groth16.ErrClosed)
	_, err = pk.BG2(context.Background())
	assert.ErrorIs(t, err, groth16.ErrClosed)
	_, err = pk.WriteTo(&bytes.Buffer{})
	assert.ErrorIs(t, err, groth16.ErrClosed)
	assert.True(t, first[0].Equal(&k.l[0]), "decoded slices outlive the mapping")

	mem := k.provingKey(t)
	mem.Evict()
	requireSections(t, mem, k)
	require.NoError(t, mem.Close())
	_, err = mem.A(context.Background())
	assert.ErrorIs(t, err, groth16.ErrClosed)
}

// Replacing a mapped file with WriteParams leaves the open key intact.
func TestWriteParamsOverMappedFile(t *testing.T) {
	k := fxNewKey(t, fxSmall)
	path := writeTemp(t, pkBytes(t, k.provingKey(t)))
	pk, err := groth16.OpenProvingKey(path)
	require.NoError(t, err)
	defer pk.Close()
	other := fxNewKey(t, fxSmall)
	require.NoError(t, groth16.WriteParams(path, other.provingKey(t)))
	requireSections(t, pk, k)
	pk2, err := groth16.OpenProvingKey(path)
	require.NoError(t, err)
	defer pk2.Close()
	requireSections(t, pk2, other)
}

func TestWriteParamsFailureLeavesNoTemp(t *testing.T) {
	k := fxNewKey(t, fxSmall)
	path := filepath.Join(t.TempDir(), "missing-dir", "key.params")
	require.Error(t, groth16.WriteParams(path, k.provingKey(t)))
	_, err := os.Stat(path + ".tmp")
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// BenchmarkProvingKeyDecode decodes a G1 section (l) and the G2 section
// (b_g2) of a key file, by default (flags, field encodings, curve equation)
// and WithChecked (plus the batched subgroup test), in points/s and in
// points per CPU-second of the whole process (steady on a shared machine).
func BenchmarkProvingKeyDecode(b *testing.B) {
	const n1, n2 = 1 << 14, 1 << 12
	k := fxNewKey(b, fxShape{ic: 1, h: 1023, l: n1, a: 1, b: n2})
	var buf bytes.Buffer
	_, err := k.provingKey(b).WriteTo(&buf)
	require.NoError(b, err)
	path := filepath.Join(b.TempDir(), "bench.params")
	require.NoError(b, os.WriteFile(path, buf.Bytes(), 0o644))
	for _, sec := range []struct {
		name   string
		n      int
		decode func(*groth16.ProvingKey) error
	}{
		{"l G1", n1, func(pk *groth16.ProvingKey) error { _, err := pk.L(context.Background()); return err }},
		{"b_g2 G2", n2, func(pk *groth16.ProvingKey) error { _, err := pk.BG2(context.Background()); return err }},
	} {
		for _, checked := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s %d points checked=%v", sec.name, sec.n, checked), func(b *testing.B) {
				key, err := groth16.OpenProvingKey(path, groth16.WithChecked(checked))
				require.NoError(b, err)
				defer key.Close()
				cpu0, _ := cputime.Process()
				for b.Loop() {
					key.Evict()
					if err := sec.decode(key); err != nil {
						b.Fatal(err)
					}
				}
				points := float64(sec.n) * float64(b.N)
				b.ReportMetric(points/b.Elapsed().Seconds(), "points/s")
				if cpu1, ok := cputime.Process(); ok {
					b.ReportMetric(points/(cpu1-cpu0).Seconds(), "points/cpu-s")
				}
			})
		}
	}
}

// BenchmarkProvingKeyLoad opens the .params file named by
// $GPUC2_BENCH_PARAMS and decodes every section (each evicted after its
// decode, so memory holds one section at a time); it skips when unset.
// With $GPUC2_BENCH_PARAMS_LOG2H set to k and no file there, it first
// writes one of generator points: h of 2^k−1 points, l of 2^(k−2).
func BenchmarkProvingKeyLoad(b *testing.B) {
	path := os.Getenv("GPUC2_BENCH_PARAMS")
	if path == "" {
		b.Skip("GPUC2_BENCH_PARAMS names no .params file")
	}
	if _, err := os.Stat(path); os.IsNotExist(err) {
		var k int
		_, err := fmt.Sscan(os.Getenv("GPUC2_BENCH_PARAMS_LOG2H"), &k)
		require.NoError(b, err, "GPUC2_BENCH_PARAMS_LOG2H")
		writeGeneratorParams(b, path, 1<<k-1, 1<<(k-2))
	}
	ctx := context.Background()
	for b.Loop() {
		pk, err := groth16.OpenProvingKey(path)
		require.NoError(b, err)
		var points int
		for _, sec := range []func() (int, error){
			func() (int, error) { p, err := pk.H(ctx); return len(p), err },
			func() (int, error) { p, err := pk.L(ctx); return len(p), err },
			func() (int, error) { p, err := pk.A(ctx); return len(p), err },
			func() (int, error) { p, err := pk.BG1(ctx); return len(p), err },
			func() (int, error) { p, err := pk.BG2(ctx); return len(p), err },
		} {
			n, err := sec()
			require.NoError(b, err)
			points += n
			pk.Evict()
		}
		require.NoError(b, pk.Close())
		b.ReportMetric(float64(points), "points")
	}
}

// writeGeneratorParams writes a .params file whose every point is the
// group generator: ic 1, h and l as given, a and b of one point each.
func writeGeneratorParams(b *testing.B, path string, h, l int) {
	_, _, g1, g2 := bls12381.Generators()
	vk := &groth16.VerifyingKey{AlphaG1: g1, BetaG1: g1, DeltaG1: g1, BetaG2: g2, GammaG2: g2, DeltaG2: g2, IC: []bls12381.G1Affine{g1}}
	f, err := os.Create(path)
	require.NoError(b, err)
	w := bufio.NewWriterSize(f, 1<<22)
	_, err = vk.WriteTo(w)
	require.NoError(b, err)
	p1, p2 := g1.RawBytes(), g2.RawBytes()
	for _, sec := range []struct {
		n     int
		point []byte
	}{{h, p1[:]}, {l, p1[:]}, {1, p1[:]}, {1, p1[:]}, {1, p2[:]}} {
		require.NoError(b, binary.Write(w, binary.BigEndian, uint32(sec.n)))
		for range sec.n {
			_, _ = w.Write(sec.point)
		}
	}
	require.NoError(b, w.Flush())
	require.NoError(b, f.Close())
}

// Section by section (what a resident upload with DropHostSections does):
// a decoded section of a file-backed key is dropped, once, and read again
// the same; an in-memory key keeps its sections.
func TestProvingKeyEvictSection(t *testing.T) {
	k := fxNewKey(t, fxShape{ic: 3, h: 255, l: 200, a: 150, b: 100})
	path := filepath.Join(t.TempDir(), "key.params")
	mem := k.provingKey(t)
	require.NoError(t, groth16.WriteParams(path, mem))
	pk, err := groth16.OpenProvingKey(path)
	require.NoError(t, err)
	defer pk.Close()
	requireSections(t, pk, k)
	for s := range 5 {
		assert.True(t, pk.EvictSection(s), "section %d decoded", s)
		assert.False(t, pk.EvictSection(s), "section %d already dropped", s)
		assert.False(t, mem.EvictSection(s), "an in-memory key keeps section %d", s)
	}
	requireSections(t, pk, k)
	requireSections(t, mem, k)
}

// Evict of a file-backed key drops the decoded sections and the mapping's
// resident pages (and decoding drops each section's pages as it goes);
// every later read decodes the same points again from the file.
func TestProvingKeyEvictRereads(t *testing.T) {
	k := fxNewKey(t, fxShape{ic: 3, h: 255, l: 200, a: 150, b: 100}) // sections span several pages
	path := filepath.Join(t.TempDir(), "key.params")
	require.NoError(t, groth16.WriteParams(path, k.provingKey(t)))
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	pk, err := groth16.OpenProvingKey(path)
	require.NoError(t, err)
	defer pk.Close()
	for range 3 {
		requireSections(t, pk, k)
		pk.Evict()
		assert.Equal(t, want, pkBytes(t, pk), "the mapping still reads the file")
	}
}
