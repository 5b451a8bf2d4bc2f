package aggregate

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"os"
	"reflect"
	"strings"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/internal/zcash"
)

// envVector names a copy of rust-fil-proofs' aggregate test vector,
// filecoin-proofs/tests/aggregate_proof_bytes (git blob 86dc9efff9a6ac60…,
// unchanged at 87348a74, where test_aggregate_proof_encode_decode reads it
// with the current bellperson): 512 seal proofs of 2 KiB sectors (257
// padded) aggregated by bellperson. It is not committed here (the project
// keeps other projects' files out); vectorSHA256 pins the copy.
const (
	envVector    = "GPUC2_AGGREGATE_VECTOR"
	vectorSHA256 = "06dcb4c5c2d8427b8ee5984a367633158e49c42e2540d969508d2940f933f597"
)

func randScalar(t testing.TB) *big.Int {
	t.Helper()
	k, err := rand.Int(rand.Reader, fr.Modulus())
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// randomProof fills every field with a random valid element.
func randomProof(t testing.TB, nproofs uint32) *Proof {
	t.Helper()
	_, _, g1, g2 := bls12381.Generators()
	base, err := bls12381.Pair([]bls12381.G1Affine{g1}, []bls12381.G2Affine{g2})
	if err != nil {
		t.Fatal(err)
	}
	gt := func() (z bls12381.GT) { z.Exp(base, randScalar(t)); return }
	p1 := func() (p bls12381.G1Affine) { p.ScalarMultiplication(&g1, randScalar(t)); return }
	p2 := func() (p bls12381.G2Affine) { p.ScalarMultiplication(&g2, randScalar(t)); return }
	com := func() Commitment { return Commitment{gt(), gt()} }

	k, err := rounds(nproofs)
	if err != nil {
		t.Fatal(err)
	}
	p := &Proof{ComAB: com(), ComC: com(), IPAB: gt(), AggC: p1()}
	g := &p.TMIPP.GIPA
	g.NProofs = nproofs
	for range k {
		g.CommsAB = append(g.CommsAB, [2]Commitment{com(), com()})
		g.CommsC = append(g.CommsC, [2]Commitment{com(), com()})
		g.ZAB = append(g.ZAB, [2]bls12381.GT{gt(), gt()})
		g.ZC = append(g.ZC, [2]bls12381.G1Affine{p1(), p1()})
	}
	g.FinalA, g.FinalB, g.FinalC = p1(), p2(), p1()
	g.FinalVKey = [2]bls12381.G2Affine{p2(), p2()}
	g.FinalWKey = [2]bls12381.G1Affine{p1(), p1()}
	p.TMIPP.VKeyOpening = [2]bls12381.G2Affine{p2(), p2()}
	p.TMIPP.WKeyOpening = [2]bls12381.G1Affine{p1(), p1()}
	return p
}

type span struct {
	name      string
	off, size int
}

// layout lists every field's place, written out from bellperson's
// proof.rs independently of Decode.
func layout(k int) []span {
	var s []span
	off := 0
	add := func(name string, size int) { s = append(s, span{name, off, size}); off += size }
	pair := func(name string, size int) { add(name+".0", size); add(name+".1", size) }
	pair("com_ab", gtSize)
	pair("com_c", gtSize)
	add("ip_ab", gtSize)
	add("agg_c", g1Size)
	add("tmipp.gipa.nproofs", 4)
	for i := range k {
		pair(fmt.Sprintf("tmipp.gipa.comms_ab[%d].0", i), gtSize)
		pair(fmt.Sprintf("tmipp.gipa.comms_ab[%d].1", i), gtSize)
	}
	for i := range k {
		pair(fmt.Sprintf("tmipp.gipa.comms_c[%d].0", i), gtSize)
		pair(fmt.Sprintf("tmipp.gipa.comms_c[%d].1", i), gtSize)
	}
	for i := range k {
		pair(fmt.Sprintf("tmipp.gipa.z_ab[%d]", i), gtSize)
	}
	for i := range k {
		pair(fmt.Sprintf("tmipp.gipa.z_c[%d]", i), g1Size)
	}
	add("tmipp.gipa.final_a", g1Size)
	add("tmipp.gipa.final_b", g2Size)
	add("tmipp.gipa.final_c", g1Size)
	pair("tmipp.gipa.final_vkey", g2Size)
	pair("tmipp.gipa.final_wkey", g1Size)
	pair("tmipp.vkey_opening", g2Size)
	pair("tmipp.wkey_opening", g1Size)
	return s
}

func mustMarshal(t testing.TB, p *Proof) []byte {
	t.Helper()
	b, err := p.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRoundTrip(t *testing.T) {
	for _, n := range []uint32{2, 4, 16} {
		p := randomProof(t, n)
		b := mustMarshal(t, p)
		want, _ := EncodedSize(n)
		if len(b) != want {
			t.Fatalf("nproofs %d: %d bytes, want %d", n, len(b), want)
		}
		q, err := Decode(b)
		if err != nil {
			t.Fatalf("nproofs %d: %v", n, err)
		}
		if !reflect.DeepEqual(p, q) {
			t.Fatalf("nproofs %d: decoded proof differs", n)
		}
		if !bytes.Equal(mustMarshal(t, q), b) {
			t.Fatalf("nproofs %d: re-encoding differs", n)
		}
	}
}

// TestEncodedSize pins the lengths bellperson's and filecoin-proofs' tests
// assert: 8,212 bytes for 4 proofs, 29,044 for 512.
func TestEncodedSize(t *testing.T) {
	for n, want := range map[uint32]int{4: 8212, 512: 29044} {
		if got, err := EncodedSize(n); err != nil || got != want {
			t.Errorf("EncodedSize(%d) = %d, %v; want %d", n, got, err, want)
		}
	}
	for _, n := range []uint32{0, 1, 3, 6, MaxProofs + 1, MaxProofs * 2, 1 << 31} {
		if _, err := EncodedSize(n); !errors.Is(err, ErrFormat) {
			t.Errorf("EncodedSize(%d): %v, want ErrFormat", n, err)
		}
	}
}

// TestVector decodes the aggregate filecoin-proofs checks its own round
// trip with, and re-encodes it byte for byte.
//
//	GPUC2_AGGREGATE_VECTOR=<rust-fil-proofs>/filecoin-proofs/tests/aggregate_proof_bytes go test -run TestVector ./groth16/aggregate
func TestVector(t *testing.T) {
	path := os.Getenv(envVector)
	if path == "" {
		t.Skipf("set %s to rust-fil-proofs' filecoin-proofs/tests/aggregate_proof_bytes", envVector)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != vectorSHA256 {
		t.Fatalf("%s: sha256 %x, want %s (rust-fil-proofs' vector)", path, sum, vectorSHA256)
	}
	p, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if p.TMIPP.GIPA.NProofs != 512 {
		t.Fatalf("nproofs %d, want 512", p.TMIPP.GIPA.NProofs)
	}
	if !bytes.Equal(mustMarshal(t, p), b) {
		t.Fatal("re-encoding differs from the vector")
	}
}

func wantFieldErr(t *testing.T, err error, field string) {
	t.Helper()
	if !errors.Is(err, ErrFormat) {
		t.Fatalf("field %s: got %v, want ErrFormat", field, err)
	}
	if !strings.Contains(err.Error(), "field "+field+":") && !strings.Contains(err.Error(), "field "+field+" ") {
		t.Fatalf("error %q does not name field %s", err, field)
	}
}

// TestCorruptEachField flips one bit in every field in turn; each must be
// refused naming that field. A flipped GT coefficient still decompresses
// into the cyclotomic subgroup but almost surely not into the order-r one.
func TestCorruptEachField(t *testing.T) {
	const n = 4
	b := mustMarshal(t, randomProof(t, n))
	k, _ := rounds(n)
	for _, s := range layout(k) {
		c := bytes.Clone(b)
		if s.name == "tmipp.gipa.nproofs" {
			c[s.off] ^= 1 // 5: not a power of two
		} else {
			c[s.off+s.size/2] ^= 1
		}
		_, err := Decode(c)
		wantFieldErr(t, err, s.name)
	}
}

func TestNonCanonical(t *testing.T) {
	b := mustMarshal(t, randomProof(t, 2))
	k, _ := rounds(2)
	spans := layout(k)
	modLE := reverse(fp.Modulus().FillBytes(make([]byte, fp.Bytes)))

	// A GT coefficient equal to the modulus.
	c := bytes.Clone(b)
	copy(c[spans[2].off+fp.Bytes:], modLE)
	_, err := Decode(c)
	wantFieldErr(t, err, spans[2].name)
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), zcash.ErrNonCanonical.Error()) {
		t.Fatalf("got %v, want non-canonical", err)
	}

	// A G2 point whose x.c0 is the modulus.
	fb := spanOf(t, spans, "tmipp.gipa.final_b")
	c = bytes.Clone(b)
	copy(c[fb.off+fp.Bytes:], fp.Modulus().FillBytes(make([]byte, fp.Bytes)))
	_, err = Decode(c)
	wantFieldErr(t, err, fb.name)
	if !strings.Contains(err.Error(), zcash.ErrNonCanonical.Error()) {
		t.Fatalf("got %v, want non-canonical", err)
	}
}

func reverse(b []byte) []byte {
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return b
}

func spanOf(t *testing.T, spans []span, name string) span {
	t.Helper()
	for _, s := range spans {
		if s.name == name {
			return s
		}
	}
	t.Fatalf("no field %s", name)
	return span{}
}

// TestIdentityPoint: bellperson's read_affine takes the compressed identity
// (0xc0 then zeros) and nothing else with the infinity flag.
func TestIdentityPoint(t *testing.T) {
	p := randomProof(t, 2)
	p.TMIPP.GIPA.FinalA = bls12381.G1Affine{}
	p.TMIPP.VKeyOpening[1] = bls12381.G2Affine{}
	b := mustMarshal(t, p)
	q, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !q.TMIPP.GIPA.FinalA.IsInfinity() || !q.TMIPP.VKeyOpening[1].IsInfinity() {
		t.Fatal("identity not kept")
	}
	fa := spanOf(t, layout(1), "tmipp.gipa.final_a")
	for _, bad := range []struct{ i, v byte }{{0, 0xe0}, {0, 0xc1}, {47, 0x01}} {
		c := bytes.Clone(b)
		c[fa.off+int(bad.i)] = bad.v
		_, err := Decode(c)
		wantFieldErr(t, err, fa.name)
	}
	// The uncompressed flag is refused.
	c := bytes.Clone(b)
	c[fa.off] = 0x40
	_, err = Decode(c)
	wantFieldErr(t, err, fa.name)
}

func TestMarshalRefuses(t *testing.T) {
	cases := []struct {
		field string
		edit  func(*Proof)
	}{
		{"tmipp.gipa.nproofs", func(p *Proof) { p.TMIPP.GIPA.NProofs = 3 }},
		{"tmipp.gipa.comms_c", func(p *Proof) { p.TMIPP.GIPA.CommsC = p.TMIPP.GIPA.CommsC[:1] }},
		{"tmipp.gipa.z_c", func(p *Proof) { p.TMIPP.GIPA.ZC = append(p.TMIPP.GIPA.ZC, p.TMIPP.GIPA.ZC[0]) }},
		{"ip_ab", func(p *Proof) { p.IPAB.SetOne() }},
		{"com_c.1", func(p *Proof) { p.ComC[1].C0.B1.A0.SetOne() }},
		{"agg_c", func(p *Proof) { p.AggC.Y.SetOne() }},
		{"tmipp.gipa.final_vkey.0", func(p *Proof) { p.TMIPP.GIPA.FinalVKey[0].X.A0.SetOne() }},
	}
	for _, c := range cases {
		p := randomProof(t, 4)
		c.edit(p)
		_, err := p.MarshalBinary()
		wantFieldErr(t, err, c.field)
	}
}

func TestLength(t *testing.T) {
	b := mustMarshal(t, randomProof(t, 2))
	for _, c := range [][]byte{nil, b[:10], b[:nproofsOffset+3], b[:len(b)-1], append(bytes.Clone(b), 0)} {
		if _, err := Decode(c); !errors.Is(err, ErrFormat) {
			t.Errorf("%d bytes: %v, want ErrFormat", len(c), err)
		}
	}
}

// FuzzDecode: whatever decodes re-encodes to the same bytes. The 29 KB
// vector is left out of the seeds: with it the fuzzer's warm-up alone
// outlasts a minute on a small CPU.
func FuzzDecode(f *testing.F) {
	f.Add(mustMarshal(f, randomProof(f, 2)))
	f.Add(mustMarshal(f, randomProof(f, 4)))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Decode(b)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v does not wrap ErrFormat", err)
			}
			return
		}
		c, err := p.MarshalBinary()
		if err != nil {
			t.Fatalf("decoded proof does not encode: %v", err)
		}
		if !bytes.Equal(b, c) {
			t.Fatal("re-encoding differs")
		}
	})
}
