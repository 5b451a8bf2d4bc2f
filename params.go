package gpuc2

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/dustin/go-humanize"
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/circuits"
)

// EnvParamsDir names the directory of Filecoin's parameter files.
const EnvParamsDir = "FIL_PROOFS_PARAMETER_CACHE"

// DefaultParamsDir is $FIL_PROOFS_PARAMETER_CACHE, else Filecoin's default.
func DefaultParamsDir() string {
	if d := os.Getenv(EnvParamsDir); d != "" {
		return d
	}
	return "/var/tmp/filecoin-proof-parameters"
}

// ErrParamsMissing reports that no parameter file for a proof type was
// found, or that one could not be read: every operating-system error of
// opening, reading or creating a parameter file or its digest sidecar
// (permission denied, a dangling link, a link loop, a directory that cannot
// be searched, an I/O error), naming the path. What a file holds, when it
// is wrong, wraps ErrParamsCorrupt.
var ErrParamsMissing = errors.New("gpuc2: parameters missing")

// FindParams returns the paths of p's real Filecoin .params and .vk files in
// dir, or ErrParamsMissing naming the file it looked for.
func FindParams(dir string, p abi.RegisteredSealProof) (params, vk string, err error) {
	err = guard(slog.Default(), "FindParams", func() error {
		params, vk, err = findParams(dir, sealKind(p))
		return err
	})
	return params, vk, err
}

func findParams(dir string, k circuits.Type) (params, vk string, err error) {
	prefix, err := k.ParamsPrefix()
	if err != nil {
		return "", "", err
	}
	matches, _ := filepath.Glob(filepath.Join(dir, prefix+"*.params"))
	if len(matches) == 0 {
		return "", "", fmt.Errorf("%w: no %s in %s", ErrParamsMissing, paramsFileName(prefix, ".params"), dir)
	}
	params = matches[0]
	vk = strings.TrimSuffix(params, ".params") + ".vk"
	if _, err := os.Stat(vk); err != nil {
		return "", "", fmt.Errorf("%w: %s (beside %s)", ErrParamsMissing, filepath.Base(vk), filepath.Base(params))
	}
	return params, vk, nil
}

// FindVerifyingKey returns the path of p's real Filecoin .vk file in dir,
// all that verification needs, or ErrParamsMissing naming the file.
func FindVerifyingKey(dir string, p abi.RegisteredSealProof) (string, error) {
	return findVerifyingKey(dir, sealKind(p))
}

func findVerifyingKey(dir string, k circuits.Type) (string, error) {
	prefix, err := k.ParamsPrefix()
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	matches, _ := filepath.Glob(filepath.Join(dir, prefix+"*.vk"))
	if len(matches) == 0 {
		return "", fmt.Errorf("%w: no %s in %s", ErrParamsMissing, paramsFileName(prefix, ".vk"), dir)
	}
	return matches[0], nil
}

// paramsFileName is the published name of a parameter file (ext ".params"
// or ".vk"), or the pattern looked for where none is known.
func paramsFileName(prefix, ext string) string {
	if name := groth16.PublishedName(prefix, ext); name != "" {
		return name
	}
	return prefix + "*" + ext
}

// missingParamsHint completes a lookup's ErrParamsMissing for a Prover
// without Config.TestParamsDir: where the real files come from, and the
// TEST-ONLY alternative.
func missingParamsHint(err error, k circuits.Type) error {
	size, serr := k.SectorSizeName()
	if serr != nil || !errors.Is(err, ErrParamsMissing) {
		return err
	}
	return fmt.Errorf("%w (fetch Filecoin's files with `curio fetch-params %s` or `lotus fetch-params %s`, into $%s; "+
		"or, for tests, allow a TEST-ONLY setup (Config.TestParamsDir; gpuc2d's and c2prove's -test-params): made on "+
		"first use up to %s sectors, beforehand with examples/testsetup for larger ones; its proofs verify only "+
		"against its own key)", err, size, size, EnvParamsDir, humanize.IBytes(k.Kind().OnDemandSetupMax))
}

// OpenParams is OpenParamsContext without cancellation.
func OpenParams(paramsPath, vkPath string) (*groth16.ProvingKey, error) {
	return OpenParamsContext(context.Background(), paramsPath, vkPath)
}

// OpenParamsContext opens a .params file (mmapped, decoded lazily) and
// checks that the .vk beside it holds the same verifying key. Both files'
// digests are checked first (groth16.WithDigestCheck: Filecoin's published
// digest, or a TEST-ONLY file's sidecar); a file version is hashed once.
func OpenParamsContext(ctx context.Context, paramsPath, vkPath string) (*groth16.ProvingKey, error) {
	pk, err := groth16.OpenProvingKeyContext(ctx, paramsPath, groth16.WithDigestCheck())
	if err != nil {
		return nil, err
	}
	vk, err := groth16.ReadVerifyingKeyFile(ctx, vkPath, groth16.WithDigestCheck())
	if err != nil {
		pk.Close()
		return nil, err
	}
	if !vk.Equal(pk.VerifyingKey()) {
		pk.Close()
		return nil, fmt.Errorf("%w: %s does not match %s", groth16.ErrMalformedKey, vkPath, paramsPath)
	}
	return pk, nil
}

// IsTestSize reports whether p's circuit is small enough for a local test
// setup to be made on demand (2 KiB, 8 MiB and 512 MiB sectors). Larger
// sizes can use a TEST-ONLY file made beforehand (examples/testsetup).
func IsTestSize(p abi.RegisteredSealProof) bool { return sealKind(p).OnDemandSetup() }

// TestParamsPath is where TestParams keeps p's test setup under cacheDir.
// The name says TEST: these keys come from local toxic waste and prove
// nothing to anyone else. Every proof type of a sector size (V1, V1_1,
// synthetic, NI) has the same partition circuit, as they share Filecoin's
// file (paramsPrefix), so they share one setup, named after the V1_1 type.
func TestParamsPath(cacheDir string, p abi.RegisteredSealProof) string {
	return testParamsPath(cacheDir, sealKind(p))
}

func testParamsPath(cacheDir string, k circuits.Type) string {
	return filepath.Join(cacheDir, "gpuc2", "test-params", k.TestParamsName())
}

// TestParams loads p's local TEST-ONLY setup from cacheDir. An existing file
// is used for any sector size, after checks of its digest sidecar (written
// with it) and that its section counts fit p's circuit (else the error
// wraps ErrParamsCorrupt; it is never replaced).
// A file is created (and created is true) only where os.Lstat says nothing
// is at its path, and only for test sizes (IsTestSize); for a larger size
// the error wraps ErrParamsMissing and says how to make one:
// `go run ./examples/testsetup -sector-size 32GiB`, on a GPU. Anything else
// at the path (a dangling link, a link loop) or a path that cannot be
// looked at (a directory the process cannot search) is an error naming
// the path: a setup costs minutes and would replace what is there.
func TestParams(ctx context.Context, cacheDir string, p abi.RegisteredSealProof) (pk *groth16.ProvingKey, path string, created bool, err error) {
	return testParams(ctx, cacheDir, sealKind(p))
}

func testParams(ctx context.Context, cacheDir string, k circuits.Type) (pk *groth16.ProvingKey, path string, created bool, err error) {
	blank, err := k.BlankCircuit() // the blank circuit (nil witness) has the shape of every real one
	if err != nil {
		return nil, "", false, err
	}
	path = testParamsPath(cacheDir, k)
	present, err := testParamsExist(path)
	if err != nil {
		return nil, path, false, err
	}
	if present {
		pk, err = groth16.OpenProvingKeyContext(ctx, path, groth16.WithDigestCheck())
		if err != nil {
			return nil, path, false, paramsError(path, err)
		}
		if err := checkKeyShape(pk, k); err != nil {
			pk.Close()
			return nil, path, false, fmt.Errorf("%s: %w", path, err)
		}
		return pk, path, false, nil
	}
	if !k.OnDemandSetup() {
		return nil, path, false, fmt.Errorf("%w: no TEST-ONLY setup for %v at %s: %s", ErrParamsMissing, k, path, testSetupHint(k, cacheDir))
	}
	pk, err = groth16.Setup(ctx, blank, rand.Reader)
	if err != nil {
		return nil, "", false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, "", false, paramsError(path, err)
	}
	if err := groth16.WriteParamsContext(ctx, path, pk, nil); err != nil {
		return nil, "", false, paramsError(path, err)
	}
	return pk, path, true, nil
}

// testParamsExist says whether anything is at a TEST-ONLY path, as os.Lstat
// sees it (a link counts, whatever it points to): only where nothing is may
// a setup be created. A path that cannot be looked at is an error naming it.
func testParamsExist(path string) (bool, error) {
	_, err := os.Lstat(path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, fmt.Errorf("%w: TEST-ONLY parameters: %w", ErrParamsMissing, err)
}

// testSetupHint says how to make a TEST-ONLY file under cacheDir for a size
// that is not set up on demand.
func testSetupHint(k circuits.Type, cacheDir string) string {
	size, err := k.SectorSizeName()
	if err != nil {
		return err.Error()
	}
	disk := ""
	if sh, err := newShape(k); err == nil {
		_, _, bytes := estimatedKeyShape(k, sh)
		disk = fmt.Sprintf(" and about %.0f GB of disk", float64(bytes)/1e9)
	}
	return fmt.Sprintf("test setups are made on demand only up to %s sectors; make this one beforehand with "+
		"`go run ./examples/testsetup %s-sector-size %s -cache %s` (it needs a GPU — about 3 minutes on an H200 at 32 GiB —%s)",
		humanize.IBytes(k.Kind().OnDemandSetupMax), k.Kind().SetupFlag, size, cacheDir, disk)
}

// paramsError classifies an error of opening, reading or creating the
// parameter file at path (or its .vk or digest sidecar): what the file
// holds wraps ErrParamsCorrupt, an operating-system error ErrParamsMissing
// (ErrParamsMissing's doc). The message names path once.
func paramsError(path string, err error) error {
	var pathErr *fs.PathError
	var linkErr *os.LinkError
	var errno syscall.Errno
	switch {
	case errors.Is(err, ErrParamsMissing), errors.Is(err, ErrParamsCorrupt):
		return err
	case errors.Is(err, groth16.ErrMalformedKey), errors.Is(err, groth16.ErrKeyMismatch):
		return fmt.Errorf("%w: %w", ErrParamsCorrupt, namingPath(path, err))
	case errors.As(err, &pathErr), errors.As(err, &linkErr), errors.As(err, &errno):
		return fmt.Errorf("%w: %w", ErrParamsMissing, namingPath(path, err))
	}
	return err
}

// namingPath is err, with path before it unless its message names it.
func namingPath(path string, err error) error {
	if strings.Contains(err.Error(), path) {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// fileSize is the size of the file at path; 0 if it cannot be read.
func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}
