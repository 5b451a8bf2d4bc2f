//go:build unix

package groth16_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
)

// envShrinkChild makes the test binary run the reads of a shrunk mapping
// itself (the child); the parent checks that it survived them.
const envShrinkChild = "GPUC2_TEST_SHRINK_CHILD"

// A .params file truncated while mapped must not kill the process with
// SIGBUS: every read of the mapping (a first decode, a decode after Evict,
// WriteTo, WriteParams of the file-backed key) returns an error wrapping
// ErrMalformedKey that says where. The reads run in a child process, so
// that a crash fails this test instead of killing the whole test binary.
func TestParamsShrunkWhileMapped(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("mapping is Linux-tested")
	}
	if os.Getenv(envShrinkChild) != "" {
		shrinkChild(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestParamsShrunkWhileMapped$", "-test.v")
	cmd.Env = append(os.Environ(), envShrinkChild+"=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.Sys().(syscall.WaitStatus).Signaled() {
		t.Fatalf("the child was killed by %v reading a shrunk mapping:\n%s", exit.Sys().(syscall.WaitStatus).Signal(), out)
	}
	require.NoError(t, err, "child:\n%s", out)
	assert.Contains(t, string(out), "--- PASS: TestParamsShrunkWhileMapped")
}

func shrinkChild(t *testing.T) {
	k := fxNewKey(t, fxShape{ic: 3, h: 1023, l: 600, a: 300, b: 200}) // sections span many pages
	ctx := context.Background()
	open := func(t *testing.T) (*groth16.ProvingKey, string) {
		path := writeTemp(t, pkBytes(t, k.provingKey(t)))
		pk, err := groth16.OpenProvingKey(path)
		require.NoError(t, err)
		t.Cleanup(func() { pk.Close() })
		return pk, path
	}
	requireShrank := func(t *testing.T, err error, where string) {
		t.Helper()
		require.ErrorIs(t, err, groth16.ErrMalformedKey)
		assert.Contains(t, err.Error(), where)
		assert.Contains(t, err.Error(), "shrank while mapped")
	}

	t.Run("first decode", func(t *testing.T) {
		pk, path := open(t)
		require.NoError(t, os.Truncate(path, 0))
		_, err := pk.H(ctx)
		requireShrank(t, err, "section h element 0 at offset")
		_, err = pk.BG2(ctx)
		requireShrank(t, err, "section b_g2 element 0 at offset")
	})
	t.Run("decode after Evict", func(t *testing.T) {
		pk, path := open(t)
		_, err := pk.L(ctx)
		require.NoError(t, err)
		pk.Evict()
		require.NoError(t, os.Truncate(path, 0))
		_, err = pk.L(ctx)
		requireShrank(t, err, "section l element 0 at offset")
	})
	t.Run("WriteTo", func(t *testing.T) {
		pk, path := open(t)
		require.NoError(t, os.Truncate(path, 0))
		_, err := pk.WriteTo(sha256.New())
		requireShrank(t, err, "copying the key file at offset 0")
	})
	t.Run("WriteParams", func(t *testing.T) {
		pk, path := open(t)
		require.NoError(t, os.Truncate(path, 0))
		err := groth16.WriteParams(filepath.Join(t.TempDir(), "copy.params"), pk)
		requireShrank(t, err, "copying the key file at offset 0")
	})
	t.Run("still usable", func(t *testing.T) {
		pk, path := open(t)
		require.NoError(t, os.Truncate(path, 4096*5)) // h keeps its first pages
		_, err := pk.A(ctx)
		requireShrank(t, err, "section a element")
		require.NoError(t, pk.Close(), "the key closes normally after a fault")
	})
}

// A FIFO (or anything but a regular file) where a key file should be is
// refused at once, naming it; opening does not wait for a writer.
func TestOpenRefusesNonRegular(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "key.params")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for name, open := range map[string]func() error{
		"OpenProvingKeyContext": func() error { _, err := groth16.OpenProvingKeyContext(ctx, fifo); return err },
		"ReadVerifyingKeyFile":  func() error { _, err := groth16.ReadVerifyingKeyFile(ctx, fifo); return err },
		"CheckDigest":           func() error { return groth16.CheckDigest(ctx, fifo, strings.Repeat("0", 32)) },
		"directory":             func() error { _, err := groth16.OpenProvingKeyContext(ctx, dir); return err },
	} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			err := open()
			require.ErrorIs(t, err, groth16.ErrMalformedKey)
			assert.Less(t, time.Since(start), 2*time.Second, "refused at once")
			assert.NotErrorIs(t, ctx.Err(), context.DeadlineExceeded)
			if name == "directory" {
				assert.Contains(t, err.Error(), dir+" is a directory, not a regular file")
			} else {
				assert.Contains(t, err.Error(), fifo+" is a named pipe (FIFO), not a regular file")
			}
		})
	}
}

// Opening honours ctx: an ended context is returned before the file is touched.
func TestOpenProvingKeyContextCancelled(t *testing.T) {
	k := fxNewKey(t, fxSmall)
	path := writeTemp(t, pkBytes(t, k.provingKey(t)))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := groth16.OpenProvingKeyContext(ctx, path)
	require.ErrorIs(t, err, context.Canceled)
	_, err = groth16.ReadVerifyingKeyFile(ctx, path)
	require.ErrorIs(t, err, context.Canceled)
	pk, err := groth16.OpenProvingKeyContext(context.Background(), path)
	require.NoError(t, err)
	require.NoError(t, pk.Close())
}
