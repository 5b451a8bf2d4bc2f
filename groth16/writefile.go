package groth16

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// writeFileAtomic writes path through path+".tmp" and a rename.
func writeFileAtomic(path string, write func(io.Writer) (int64, error)) error {
	return writeFileAtomicAt(context.Background(), path, func(f *os.File) error {
		_, err := write(f)
		return err
	})
}

// writeFileAtomicAt creates path+".tmp", lets write fill it, syncs it,
// hashes it and renames it to path, then records the digest in path's
// sidecar (DigestSidecarPath) and the digest cache; on any error before the
// rename the temporary file is removed. The old sidecar goes before the
// rename, so a crash leaves a file without a digest (refused, with a hint)
// rather than beside the digest of the file it replaced.
func writeFileAtomicAt(ctx context.Context, path string, write func(*os.File) error) (err error) {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("groth16: %w", err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if err = write(f); err != nil {
		return fmt.Errorf("groth16: write %s: %w", tmp, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("groth16: sync %s: %w", tmp, err)
	}
	digest, err := hashFile(ctx, f)
	if err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("groth16: close %s: %w", tmp, err)
	}
	if err = os.Remove(DigestSidecarPath(path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("groth16: %w", err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("groth16: %w", err)
	}
	if err = writeSidecar(path, digest); err != nil {
		return err
	}
	defaultDigests().recordFile(path, digest)
	return nil
}
