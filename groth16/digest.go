package groth16

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/crypto/blake2b"

	"github.com/gpuc2/gpuc2/internal/errtext"
)

// A key file's digest is Filecoin's: the first 16 bytes of the file's
// BLAKE2b-512, in lower-case hex (32 characters), as parameters.json
// publishes it and paramfetch checks it.
const digestBytes = 16

// digestSidecarSuffix names the file beside a key file written by this
// package (WriteParams, WriteVerifyingKeyFile) that holds its digest, so
// that local (TEST-ONLY) keys are checked like Filecoin's published ones.
const digestSidecarSuffix = ".blake2b"

// hashChunk is how much of a file is hashed between checks of ctx.
const hashChunk = 4 << 20

// DigestSidecarPath is the file holding the digest of the key file at path
// when the file is not one of Filecoin's: path + ".blake2b", one line with
// the 32 hex characters.
func DigestSidecarPath(path string) string { return path + digestSidecarSuffix }

// PublishedDigest returns the digest Filecoin publishes for a v28 PoRep
// parameter or verifying-key file name (a base name, not a path).
func PublishedDigest(name string) (string, bool) {
	d, ok := publishedDigests[name]
	return d, ok
}

// PublishedName returns the published v28 file name that starts with
// prefix and ends with ext (".params" or ".vk"), or "" if there is none.
func PublishedName(prefix, ext string) string {
	for name := range publishedDigests {
		if strings.HasPrefix(name, prefix) && strings.HasSuffix(name, ext) {
			return name
		}
	}
	return ""
}

// ExpectedDigest returns the digest the key file at path must have, and
// where it comes from: Filecoin's published digest when the file's name is
// a published one, else its sidecar (DigestSidecarPath). With neither the
// error wraps ErrMalformedKey: nothing vouches for the file.
func ExpectedDigest(ctx context.Context, path string) (want, source string, err error) {
	if d, ok := PublishedDigest(filepath.Base(path)); ok {
		return d, "published by Filecoin", nil
	}
	side := DigestSidecarPath(path)
	f, _, err := openRegular(ctx, side)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", fmt.Errorf("groth16: no digest to check %s against: not a published Filecoin parameter file, and no %s "+
			"(a TEST-ONLY file written before digests existed: make it again, or write its digest with `b2sum %s | cut -c1-32 > %s`): %w",
			path, side, path, side, ErrMalformedKey)
	}
	if err != nil {
		return "", "", fmt.Errorf("groth16: digest sidecar: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 256))
	if err != nil {
		return "", "", fmt.Errorf("groth16: digest sidecar %s: %w", side, err)
	}
	want = strings.TrimSpace(string(b))
	if !validDigest(want) {
		return "", "", fmt.Errorf("groth16: digest sidecar %s holds %s, not %d hex bytes: %w", side, errtext.Quote(want), digestBytes, ErrMalformedKey)
	}
	return want, side, nil
}

func validDigest(d string) bool {
	b, err := hex.DecodeString(d)
	return err == nil && len(b) == digestBytes && d == strings.ToLower(d)
}

// CheckDigest hashes the file at path (BLAKE2b-512, read in chunks; ctx is
// checked every few MB) and compares the first 16 bytes with want, 32 hex
// characters as parameters.json gives them. A mismatch wraps
// ErrMalformedKey and names the file and both digests. A file version
// already hashed (same absolute path, size and modification time) is not
// hashed again: digests are remembered in memory and in
// os.UserCacheDir()/gpuc2/param-digests.json.
func CheckDigest(ctx context.Context, path, want string) error {
	f, st, err := openRegular(ctx, path)
	if err != nil {
		return fmt.Errorf("groth16: digest: %w", err)
	}
	defer f.Close()
	return checkFileDigest(ctx, f, st, path, want, "given")
}

// checkFileDigest checks the open file f (path, fstat st) against want,
// which source names in the error.
func checkFileDigest(ctx context.Context, f *os.File, st fs.FileInfo, path, want, source string) error {
	if !validDigest(want) {
		return fmt.Errorf("groth16: digest %q for %s is not %d bytes in lower-case hex: %w", want, path, digestBytes, ErrInvalidInput)
	}
	got, err := defaultDigests().digest(ctx, f, st, path)
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("groth16: %s: BLAKE2b digest %s, want %s (%s): %w", path, got, want, source, ErrMalformedKey)
	}
	return nil
}

// hashFile returns the digest of f's bytes from offset 0 to its end.
func hashFile(ctx context.Context, f *os.File) (string, error) {
	h, err := blake2b.New512(nil)
	if err != nil {
		return "", err
	}
	buf := make([]byte, hashChunk)
	for off := int64(0); ; {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		n, err := f.ReadAt(buf, off)
		h.Write(buf[:n])
		off += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("groth16: hashing %s: %w", f.Name(), err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:digestBytes]), nil
}

// writeSidecar records digest as the sidecar of path, through a temporary
// file and a rename.
func writeSidecar(path, digest string) error {
	side := DigestSidecarPath(path)
	tmp := side + ".tmp"
	if err := os.WriteFile(tmp, []byte(digest+"\n"), 0o644); err != nil {
		return fmt.Errorf("groth16: %w", err)
	}
	if err := os.Rename(tmp, side); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("groth16: %w", err)
	}
	return nil
}

// digestEntry is one remembered digest: valid while the file at Path keeps
// its size and modification time.
type digestEntry struct {
	Path    string `json:"path"`
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime_ns"`
	Digest  string `json:"digest"`
}

func (e *digestEntry) matches(st fs.FileInfo) bool {
	return e.Size == st.Size() && e.ModTime == st.ModTime().UnixNano()
}

// digestCache remembers file digests so that a 47 GB key is hashed once
// per version, not at every start: in memory, and in file unless that is
// empty or cannot be written. A corrupt cache file is ignored.
type digestCache struct {
	file string
	mu   sync.Mutex
	mem  map[string]digestEntry // by absolute path
}

var defaultDigests = sync.OnceValue(func() *digestCache {
	dir, err := os.UserCacheDir()
	if err != nil {
		return newDigestCache("")
	}
	return newDigestCache(filepath.Join(dir, "gpuc2", "param-digests.json"))
})

// newDigestCache loads the entries of file ("" keeps the cache in memory).
func newDigestCache(file string) *digestCache {
	c := &digestCache{file: file, mem: map[string]digestEntry{}}
	for _, e := range c.load() {
		c.mem[e.Path] = e
	}
	return c
}

// load reads the cache file; anything unreadable counts as empty.
func (c *digestCache) load() []digestEntry {
	if c.file == "" {
		return nil
	}
	b, err := os.ReadFile(c.file)
	if err != nil {
		return nil
	}
	var doc struct {
		Files []digestEntry `json:"files"`
	}
	if json.Unmarshal(b, &doc) != nil {
		return nil
	}
	var out []digestEntry
	for _, e := range doc.Files {
		if filepath.IsAbs(e.Path) && validDigest(e.Digest) {
			out = append(out, e)
		}
	}
	return out
}

// digest returns the digest of f, the open file at path with fstat st,
// hashing it unless this version of it was hashed before.
func (c *digestCache) digest(ctx context.Context, f *os.File, st fs.FileInfo, path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("groth16: %w", err)
	}
	c.mu.Lock()
	e, ok := c.mem[abs]
	c.mu.Unlock()
	if ok && e.matches(st) {
		return e.Digest, nil
	}
	d, err := hashFile(ctx, f)
	if err != nil {
		return "", err
	}
	if after, err := f.Stat(); err != nil || after.Size() != st.Size() || !after.ModTime().Equal(st.ModTime()) {
		return "", fmt.Errorf("groth16: %s changed while it was hashed: %w", path, ErrMalformedKey)
	}
	c.record(digestEntry{Path: abs, Size: st.Size(), ModTime: st.ModTime().UnixNano(), Digest: d})
	return d, nil
}

// record remembers e and saves the cache file: entries read back from it
// (another process's) are merged, entries whose file changed or vanished
// are dropped. Failing to save only costs a hash at the next start.
func (c *digestCache) record(e digestEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mem[e.Path] = e
	if c.file == "" {
		return
	}
	all := map[string]digestEntry{}
	for _, o := range c.load() {
		all[o.Path] = o
	}
	for p, o := range c.mem {
		all[p] = o
	}
	var doc struct {
		Files []digestEntry `json:"files"`
	}
	for _, o := range all {
		if st, err := os.Stat(o.Path); err == nil && o.matches(st) {
			doc.Files = append(doc.Files, o)
		}
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(c.file), 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.file), filepath.Base(c.file)+".*.tmp")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), c.file) != nil {
		_ = os.Remove(tmp.Name())
	}
}

// recordFile remembers digest for the file now at path (just written).
func (c *digestCache) recordFile(path, digest string) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return
	}
	st, err := os.Stat(abs)
	if err != nil {
		return
	}
	c.record(digestEntry{Path: abs, Size: st.Size(), ModTime: st.ModTime().UnixNano(), Digest: digest})
}

// checkOpenDigest checks the open file f at path against ExpectedDigest.
func checkOpenDigest(ctx context.Context, f *os.File, st fs.FileInfo, path string) error {
	want, source, err := ExpectedDigest(ctx, path)
	if err != nil {
		return err
	}
	return checkFileDigest(ctx, f, st, path, want, source)
}
