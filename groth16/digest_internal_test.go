package groth16

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain keeps the package's digest cache out of the user's cache
// directory while the tests write and check key files.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gpuc2-digests-")
	if err != nil {
		panic(err)
	}
	defaultDigests = sync.OnceValue(func() *digestCache { return newDigestCache(filepath.Join(dir, "param-digests.json")) })
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// BLAKE2b-512("abc") from RFC 7693, appendix A; its first 16 bytes.
const abcDigest = "ba80a53f981c4d0d6a2797b69f12f6e9"

func digestOf(t *testing.T, c *digestCache, path string) string {
	t.Helper()
	f, st, err := openRegular(context.Background(), path)
	require.NoError(t, err)
	defer f.Close()
	d, err := c.digest(context.Background(), f, st, path)
	require.NoError(t, err)
	return d
}

// A file version is hashed once: a second cache reading the same cache
// file answers from it (so bytes changed behind an unchanged size and
// mtime go unseen, which is the documented key); a new mtime hashes again.
func TestDigestCacheRemembersFileVersions(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "key.params")
	require.NoError(t, os.WriteFile(path, []byte("abc"), 0o644))
	cacheFile := filepath.Join(dir, "cache", "param-digests.json")

	assert.Equal(t, abcDigest, digestOf(t, newDigestCache(cacheFile), path))
	require.FileExists(t, cacheFile)

	mtime := time.Now().Add(-time.Hour).Truncate(time.Second)
	require.NoError(t, os.Chtimes(path, mtime, mtime))
	assert.Equal(t, abcDigest, digestOf(t, newDigestCache(cacheFile), path), "new mtime: hashed again")
	require.NoError(t, os.WriteFile(path, []byte("xyz"), 0o644))
	require.NoError(t, os.Chtimes(path, mtime, mtime))
	assert.Equal(t, abcDigest, digestOf(t, newDigestCache(cacheFile), path), "same size and mtime: remembered, not hashed")

	mtime = mtime.Add(time.Minute)
	require.NoError(t, os.Chtimes(path, mtime, mtime))
	assert.NotEqual(t, abcDigest, digestOf(t, newDigestCache(cacheFile), path), "new mtime: hashed again")
}

// A corrupt cache file is ignored; an unwritable one leaves the cache in
// memory; neither is an error.
func TestDigestCacheBadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "key.params")
	require.NoError(t, os.WriteFile(path, []byte("abc"), 0o644))

	corrupt := filepath.Join(dir, "corrupt.json")
	require.NoError(t, os.WriteFile(corrupt, []byte(`{"files":[{"path":"`+path+`","size":3,`), 0o644))
	assert.Equal(t, abcDigest, digestOf(t, newDigestCache(corrupt), path))
	assert.Len(t, newDigestCache(corrupt).mem, 1, "rewritten whole")

	wrong := filepath.Join(dir, "wrong.json") // well-formed, but not a digest
	require.NoError(t, os.WriteFile(wrong, []byte(`{"files":[{"path":"`+path+`","size":3,"mtime_ns":1,"digest":"zz"}]}`), 0o644))
	assert.Empty(t, newDigestCache(wrong).mem)

	blocked := filepath.Join(path, "cannot", "be", "a", "dir.json") // under a regular file
	c := newDigestCache(blocked)
	assert.Equal(t, abcDigest, digestOf(t, c, path))
	assert.Len(t, c.mem, 1, "kept in memory")
}

// Entries of files that vanished or changed leave the cache file when it
// is next written.
func TestDigestCachePrunes(t *testing.T) {
	dir := t.TempDir()
	cacheFile := filepath.Join(dir, "param-digests.json")
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	require.NoError(t, os.WriteFile(a, []byte("abc"), 0o644))
	require.NoError(t, os.WriteFile(b, []byte("abc"), 0o644))
	c := newDigestCache(cacheFile)
	digestOf(t, c, a)
	require.NoError(t, os.Remove(a))
	digestOf(t, c, b)
	kept := newDigestCache(cacheFile).mem
	assert.Len(t, kept, 1)
	assert.Contains(t, kept, b)
}

// countdownCtx ends after its Err has been asked n times.
type countdownCtx struct {
	context.Context
	n int
}

func (c *countdownCtx) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

// Hashing checks ctx every hashChunk bytes, and a cancelled hash is not
// remembered.
func TestDigestCancelledMidFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.params")
	require.NoError(t, os.WriteFile(path, make([]byte, 10*hashChunk), 0o644))
	c := newDigestCache(filepath.Join(dir, "param-digests.json"))
	f, st, err := openRegular(context.Background(), path)
	require.NoError(t, err)
	defer f.Close()
	_, err = c.digest(&countdownCtx{Context: context.Background(), n: 3}, f, st, path)
	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, c.mem)
}

// The writers leave the digest of what they wrote beside the file and in
// the cache, so the first checked open does not hash the file again.
func TestWriterRecordsDigest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "key.vk")
	require.NoError(t, writeFileAtomic(path, func(w io.Writer) (int64, error) {
		n, err := w.Write([]byte("abc"))
		return int64(n), err
	}))
	side, err := os.ReadFile(DigestSidecarPath(path))
	require.NoError(t, err)
	assert.Equal(t, abcDigest+"\n", string(side))
	abs, err := filepath.Abs(path)
	require.NoError(t, err)
	e, ok := defaultDigests().mem[abs]
	require.True(t, ok)
	assert.Equal(t, abcDigest, e.Digest)
	assert.NoFileExists(t, path+".tmp")
	assert.NoFileExists(t, DigestSidecarPath(path)+".tmp")
}

// Every published name is a v28 PoRep, SnapDeals update or PoSt file with
// a well-formed digest, and each .params has its .vk: 5 sizes of PoRep and
// of SnapDeals, 10 PoSt circuits (window and winning), two files each.
func TestPublishedDigests(t *testing.T) {
	require.Len(t, publishedDigests, 40)
	for name, d := range publishedDigests {
		assert.True(t, validDigest(d), name)
		assert.True(t, strings.HasPrefix(name, "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-") ||
			strings.HasPrefix(name, "v28-empty-sector-update-merkletree-poseidon_hasher-") ||
			strings.HasPrefix(name, "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-"), name)
		if base, ok := strings.CutSuffix(name, ".params"); ok {
			_, ok := publishedDigests[base+".vk"]
			assert.True(t, ok, "no .vk for %s", name)
		} else {
			assert.True(t, strings.HasSuffix(name, ".vk"), name)
		}
	}
}

// BenchmarkHashFile measures the digest's hashing rate (one core: BLAKE2b
// is sequential) on a 64 MiB file kept in the page cache.
func BenchmarkHashFile(b *testing.B) {
	path := filepath.Join(b.TempDir(), "key.params")
	require.NoError(b, os.WriteFile(path, make([]byte, 64<<20), 0o644))
	f, err := os.Open(path)
	require.NoError(b, err)
	defer f.Close()
	b.SetBytes(64 << 20)
	for b.Loop() {
		_, err := hashFile(context.Background(), f)
		require.NoError(b, err)
	}
}
