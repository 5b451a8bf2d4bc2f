package update

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/filecoin-project/go-state-types/abi"
)

// ErrPoseidonVariant refuses the EmptySectorUpdate-Poseidon circuit and its
// parameter files (v28-empty-sector-update-poseidon-…): no registered
// update proof type uses it, so gpuc2 does not prove it.
var ErrPoseidonVariant = errors.New("update: EmptySectorUpdate-Poseidon (empty-sector-update-poseidon) is not served: no abi.RegisteredUpdateProof uses it")

// paramsHashes are the parameter-set hashes in the names of Filecoin's
// EmptySectorUpdate parameter files (rust-fil-proofs parameters.json), by
// sector size.
var paramsHashes = map[uint64]string{
	2 << 10:   "fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194",
	8 << 20:   "92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63",
	512 << 20: "61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c",
	32 << 30:  "3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18",
	64 << 30:  "102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7",
}

const (
	paramsPrefix         = "v28-empty-sector-update-merkletree-poseidon_hasher-"
	poseidonParamsPrefix = "v28-empty-sector-update-poseidon-"
)

// ParamsFileBase returns the name of p's Filecoin parameter files without
// the ".params" or ".vk" suffix, e.g.
// "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-3b7f44a9…".
func ParamsFileBase(p abi.RegisteredUpdateProof) (string, error) {
	up, err := ParamsFor(p)
	if err != nil {
		return "", err
	}
	s := up.TreeR
	return fmt.Sprintf("%s%d-%d-%d-%s", paramsPrefix, s.Base, s.Sub, s.Top, paramsHashes[up.SectorSize]), nil
}

// ProofForParamsFile returns the update proof type whose parameter or
// verifying-key file has the given name (a path's base name is used). It
// refuses the EmptySectorUpdate-Poseidon files by name (ErrPoseidonVariant)
// and anything else that is not an EmptySectorUpdate file (ErrParams).
func ProofForParamsFile(name string) (abi.RegisteredUpdateProof, error) {
	name = filepath.Base(name)
	if strings.HasPrefix(name, poseidonParamsPrefix) {
		return 0, fmt.Errorf("%w: %s", ErrPoseidonVariant, name)
	}
	base := strings.TrimSuffix(strings.TrimSuffix(name, ".params"), ".vk")
	for p := range updateSizes {
		if b, _ := ParamsFileBase(p); b == base && base != name {
			return p, nil
		}
	}
	return 0, fmt.Errorf("%w: %s is not an EmptySectorUpdate parameter file", ErrParams, name)
}
