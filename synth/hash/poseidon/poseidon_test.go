package poseidon

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func fromLimbs(l [4]uint64) fr.Element {
	var b [32]byte
	for i, x := range l {
		for k := 0; k < 8; k++ {
			b[31-(8*i+k)] = byte(x >> (8 * k))
		}
	}
	var e fr.Element
	e.SetBytes(b[:])
	return e
}

func fromHex(t *testing.T, s string) fr.Element {
	var e fr.Element
	_, err := e.SetString(s)
	require.NoError(t, err)
	return e
}

// neptune src/poseidon.rs hash_values: inputs 0, 1, …, arity−1.
var kats = []struct {
	arity int
	limbs [4]uint64
}{
	{2, [4]uint64{0x2e203c369a02e7ff, 0xa6fba9339d05a69d, 0x739e0fd902efe161, 0x396508d75e76a56b}},
	{4, [4]uint64{0x019814ff6662075d, 0xfb6b4605bf1327ec, 0x00db3c6579229399, 0x58a54b10a9e5848a}},
	{8, [4]uint64{0x2a9934f56d38a5e6, 0x4b682e9d9cc4aed9, 0x1201004211677077, 0x2394611da3a5de55}},
	{11, [4]uint64{0xcee3bbc32b693163, 0x09f3dcd8ccb08fc1, 0x6ca537e232ebe87a, 0x0c0fc1b2e5227f28}},
}

func TestKnownAnswers(t *testing.T) {
	for _, tc := range kats {
		in := make([]fr.Element, tc.arity)
		for i := range in {
			in[i].SetUint64(uint64(i))
		}
		got, err := Hash(in)
		require.NoError(t, err)
		assert.Equal(t, fromLimbs(tc.limbs), got, "arity %d", tc.arity)
		c, _ := ConstantsFor(tc.arity)
		assert.Equal(t, got, c.hashPlain(in), "plain, arity %d", tc.arity)
	}
}

func TestOptimizedEqualsPlain(t *testing.T) {
	for _, arity := range []int{2, 4, 8, 11} {
		c, err := ConstantsFor(arity)
		require.NoError(t, err)
		for k := 0; k < 10; k++ {
			in := make([]fr.Element, arity)
			for i := range in {
				_, _ = in[i].SetRandom()
			}
			got, err := c.Hash(in)
			require.NoError(t, err)
			assert.Equal(t, c.hashPlain(in), got)
		}
	}
}

func checksum(vals ...[]fr.Element) string {
	h := sha256.New()
	for _, vs := range vals {
		for _, v := range vs {
			b := v.Bytes()
			for i := 31; i >= 0; i-- {
				h.Write(b[i : i+1])
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// CIRCUIT-SPEC-POREP.md §3.8.
func TestConstantChecksums(t *testing.T) {
	tests := []struct {
		arity           int
		rc0             string
		rc, c, pre, s   string
		c4t, c5t, pre00 string
		s0w1, s0v0      string
	}{
		{2, "0x669f064bfa3ae17a23bd51861dbb4a24501eac92a2758b36a7320a009d6ed3d8",
			"cf4dfb7448132022e22b32e3dce6b125cb06329448f9e8d8fe53a71c73cbe6d4", "b768b730ce5198394d948d76421ab53b08cc16ec1ac082cf503f370192253e16",
			"13d6e8e5ba45b0d2096617d055499f36adad1aab6853de143ed42b14eea9a0f6", "a2fe507a83bddb8d57e5a00e7e58e79800c272b0db7dd4141943f6e567e99138",
			"0x713fcab884bfd08e8f9c136139ae3a792622591b5de7509b2641c09aea0a3b9a", "0x15ea0de59c6ae7c8b21fd309ef84aba77c2d8e8139c9c08f5cca2138d161fdfd",
			"0x4d491a377113a8daccd13ab0066be558e27e6d5755543d54aaaaaaaa00000001", "0x59d39397f9b91a3745685546ac8e905f0374bec2c68a96278d2f73d4d6a692a2",
			"0x58967f7ecb83470ce5990816f118fc84a0713c868c352b00eb409bffd891fcd4"},
		{4, "0x45c919736a0e5f2ef32c4c7d0a338eb1fed3d9e317b7580921072285c7e215ca",
			"91e463d6553415b3901b9f26b2ad53e6298ac3e5ab0ef260d397bafe8bdde98e", "3e4ec19ded2c86a89f3d6bddc13d9571a0cc5473e7207cfbaf6a8169a69f5709",
			"aee67dfb1ae8c43eca89f5742a745c6309f2d302ab741b75d2641b7025d87413", "f1c3c3a9fe9ea4a3c38c91971e5f379da38123fe1dcf960b461d84c5ba759f2b",
			"", "", "", "", ""},
		{8, "0x6ce90d12c4045fe08c3caddb776dd84ac52b4ae7e48cd49443984154f2f4c2f9",
			"9a4a743575f0eaf285c93d73f8adaf4e7ef4042c2445b42bddaf1a64e5face72", "f5a94aea73a583d080abdf7d71259fab9107f5523a4a1eddc41468f94564dd16",
			"dcfbdaea3eb7e347664c8f881c5443b1895f10c85cab0878022eb287defa8587", "3f823785875d8cc161c963d2a62d103a3fefab30eb4244cef877d8e624fb79f4",
			"0x2fed7d0f37d395953d65f2e587fed239cffc852aa0984442f5e28cff75552cad", "0x065e302005459f2087aa4f6c30b42d11ab0cf5e2e41e74b344a3b287f0796e43",
			"0x19c308bd25b13848eef068e557794c72f62a247271c6bf1c38e38e38aaaaaaab", "0x39d9d3927b2b34ec506369b9a21e54c10a98949af37d495ceaf45bc33bfec77d",
			"0x50a53720d3629e00e1de3338e264d11c6da56b4cda00fcf7804903ca1e16d1ea"},
		{11, "0x1f6c9576e648b5047399bfc5f38902e0d506f18e0f3ab77de6de096bd089bce4",
			"479dc0d71d694cd50d853dec0c94aeb37df2a69929eaa23b545a52b1226aec06", "2d7c0e4e9b98eda82102b69f1a964ae59ccf98b0008b6d3d632d86f4fea79d1d",
			"f2a7353f0ce5ad724a7a58bf2db0e37f7c5662f064a6c97466021af83279a96e", "810a4d7f126f6e5fb3eb1980b57c70f90bb835219373d955726e30b3ca931556",
			"0x32c8d512cdc6f3f1a112e39a69178a8bf273c012e3c2eddae68a52e73c46611a", "0x107f1b7ef11c2b7a4df5c44d58bb500b86627ac271acb642c4e1b1b30fe72d01",
			"0x6a44840c3b7b082cd99fb0b208d45b5a376dd6581553d4546aaaaaa9c0000001", "0x1fa69f776fa73b654f02951a71458cbdceadfa6add02fa453178e0f407bc1ce2",
			"0x2d66ebdddf6943eea7268563112a36020c851b733bab88158cfb571104e49868"},
	}
	for _, tc := range tests {
		c, err := ConstantsFor(tc.arity)
		require.NoError(t, err)
		tw := c.Width
		assert.Len(t, c.RoundConstants, (FullRounds+c.PartialRounds)*tw)
		assert.Len(t, c.Compressed, FullRounds*tw+c.PartialRounds)
		assert.Equal(t, fromHex(t, tc.rc0), c.RoundConstants[0], "arity %d", tc.arity)
		assert.Equal(t, tc.rc, checksum(c.RoundConstants), "RC arity %d", tc.arity)
		assert.Equal(t, tc.c, checksum(c.Compressed), "C arity %d", tc.arity)
		assert.Equal(t, tc.pre, checksum(c.PreSparse...), "PRE arity %d", tc.arity)
		var s [][]fr.Element
		for _, sp := range c.Sparse {
			s = append(s, sp.W, sp.V)
		}
		assert.Equal(t, tc.s, checksum(s...), "S arity %d", tc.arity)
		if tc.c4t != "" {
			assert.Equal(t, fromHex(t, tc.c4t), c.Compressed[4*tw])
			assert.Equal(t, fromHex(t, tc.c5t), c.Compressed[5*tw])
			assert.Equal(t, fromHex(t, tc.pre00), c.PreSparse[0][0])
			assert.Equal(t, fromHex(t, tc.s0w1), c.Sparse[0].W[1])
			assert.Equal(t, fromHex(t, tc.s0v0), c.Sparse[0].V[0])
		}
	}
}

func TestBadArity(t *testing.T) {
	for _, n := range []int{0, 1, 3, 5, 12, 100} {
		_, err := Hash(make([]fr.Element, n))
		assert.ErrorIs(t, err, ErrArity)
	}
	c, _ := ConstantsFor(2)
	_, err := c.Hash(make([]fr.Element, 3))
	assert.ErrorIs(t, err, ErrArity)
}

func BenchmarkHash(b *testing.B) {
	for _, arity := range []int{2, 4, 8, 11} {
		b.Run("arity="+string(rune('0'+arity/10))+string(rune('0'+arity%10)), func(b *testing.B) {
			c, _ := ConstantsFor(arity)
			in := make([]fr.Element, arity)
			for i := range in {
				_, _ = in[i].SetRandom()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				h, _ := c.Hash(in)
				in[0] = h
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "hashes/s")
		})
	}
}
