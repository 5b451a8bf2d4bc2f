package cuzk

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/gpuc2/gpuc2"
)

// c1FormHint says in the protocol's terms what a POREP_SEAL_COMMIT whose
// vanilla_proof is not JSON should send, where the library's error names a
// Go function (porep.ParseC1: "use ParseC1Bincode"). Other errors are
// returned as they are.
func c1FormHint(c1 []byte, err error) error {
	if !errors.Is(err, gpuc2.ErrBadInput) {
		return err
	}
	if t := bytes.TrimLeft(c1, " \t\r\n"); len(t) > 0 && t[0] == '{' { // JSON, as porep.ParseC1 tells it
		return err
	}
	return fmt.Errorf("%w: vanilla_proof (%d bytes) is not JSON: POREP_SEAL_COMMIT takes the C1 output as "+
		"filecoin-ffi's JSON, or in the Commit2In envelope {\"SectorNum\", \"Phase1Out\", \"SectorSize\"} as Curio "+
		"sends it, whose Phase1Out may be JSON or bincode (a bare bincode C1 does not name its proof type)",
		gpuc2.ErrBadInput, len(c1))
}
