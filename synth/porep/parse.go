package porep

import (
	"bytes"
	"encoding/base64"
	"fmt"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/internal/errtext"
)

// Commit2In is the envelope {"SectorNum","Phase1Out","SectorSize"} used by
// lotus-bench, Curio's cuzk client and the snark market.
type Commit2In struct {
	SectorNum  abi.SectorNumber
	SectorSize abi.SectorSize
	C1         *C1
}

// ParseC1 parses and validates a C1 output in any form it can recognise:
// filecoin-ffi's JSON, or the Commit2In envelope around JSON or bincode. A
// bare bincode C1 carries no proof type: use ParseC1Bincode. A bincode
// Phase1Out in an envelope is taken as StackedDrg<SectorSize>V1_1, as
// Curio's decoder does. Every error wraps ErrBadC1.
func ParseC1(data []byte) (*C1, error) {
	switch detect(data) {
	case formJSON:
		return parseC1JSON(data)
	case formEnvelope:
		in, err := ParseCommit2In(data)
		if err != nil {
			return nil, err
		}
		return in.C1, nil
	}
	return nil, badC1("", "not JSON (a bincode C1 has no proof type: use ParseC1Bincode)")
}

// ParseC1ForSector is ParseC1 for a request that names its sector: a
// Commit2In envelope's SectorNum must then be that sector.
func ParseC1ForSector(data []byte, sector abi.SectorNumber) (*C1, error) {
	if detect(data) != formEnvelope {
		return ParseC1(data)
	}
	in, err := ParseCommit2In(data)
	if err != nil {
		return nil, err
	}
	if in.SectorNum != sector {
		return nil, badC1("SectorNum", "the envelope is for sector %d, the request for sector %d", in.SectorNum, sector)
	}
	return in.C1, nil
}

// ParseC1Bincode parses and validates the bincode form (supraseal's
// commit-phase1-output, Curio's porep_vproof_bin codec) for proof type spt.
func ParseC1Bincode(data []byte, spt abi.RegisteredSealProof) (*C1, error) {
	if _, err := ParamsFor(spt); err != nil {
		return nil, &C1Error{Partition: -1, Challenge: -1, Field: "registered_proof", Msg: "unknown proof type", Err: err}
	}
	c, err := decodeC1Bincode(data, spt)
	if err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// ParseCommit2In parses the envelope and the C1 inside it, and checks that
// SectorSize matches the C1's proof type.
func ParseCommit2In(data []byte) (*Commit2In, error) {
	d := &jdec{b: data, part: -1, chal: -1}
	var in Commit2In
	var p1 []byte
	f := fields{d: d, names: []string{"SectorNum", "Phase1Out", "SectorSize"}}
	err := d.object(func(key []byte) error {
		switch string(key) {
		case "SectorNum":
			return d.field(&f, 0, func() error {
				v, err := d.uint(1<<63 - 1)
				in.SectorNum = abi.SectorNumber(v)
				return err
			})
		case "Phase1Out":
			return d.field(&f, 1, func() error {
				if d.peek() == 'n' {
					return d.errf("Phase1Out is null")
				}
				s, err := d.str()
				if err != nil {
					return err
				}
				p1, err = decodeBase64(s)
				if err != nil {
					return d.errf("bad base64: %v", err)
				}
				return nil
			})
		case "SectorSize":
			return d.field(&f, 2, func() (err error) {
				v, err := d.uint(^uint64(0))
				in.SectorSize = abi.SectorSize(v)
				return err
			})
		}
		return d.skip(0)
	})
	if err == nil {
		err = f.done()
	}
	if err == nil {
		err = d.end("the envelope")
	}
	if err != nil {
		return nil, err
	}
	var c *C1
	if detect(p1) == formJSON {
		c, err = parseC1JSON(p1)
	} else {
		spt := abi.RegisteredSealProof(-1)
		for p := abi.RegisteredSealProof_StackedDrg2KiBV1_1; p <= abi.RegisteredSealProof_StackedDrg64GiBV1_1; p++ {
			if s, _ := p.SectorSize(); s == in.SectorSize {
				spt = p
			}
		}
		if spt < 0 {
			return nil, badC1("SectorSize", "unknown sector size %d", in.SectorSize)
		}
		c, err = ParseC1Bincode(p1, spt)
	}
	if err != nil {
		return nil, fmt.Errorf("Phase1Out: %w", err)
	}
	if size, _ := c.RegisteredProof.SectorSize(); size != in.SectorSize {
		return nil, badC1("SectorSize", "got %d, but the C1 is %s (%d bytes)", in.SectorSize, ProofName(c.RegisteredProof), size)
	}
	in.C1 = c
	return &in, nil
}

func decodeBase64(s []byte) ([]byte, error) {
	// RawStdEncoding's DecodedLen is the larger of the two
	out := make([]byte, base64.RawStdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Decode(out, s)
	if err != nil {
		n, err = base64.RawStdEncoding.Decode(out, s)
	}
	return out[:n], err
}

func parseC1JSON(data []byte) (*C1, error) {
	c, variant, err := decodeC1JSON(data)
	if err != nil {
		return nil, err
	}
	sp, err := ParamsFor(c.RegisteredProof)
	if err != nil {
		return nil, &C1Error{Partition: -1, Challenge: -1, Field: "registered_proof", Msg: "unknown proof type", Err: err}
	}
	if want := sp.vanillaKey(); string(variant) != want {
		return nil, badC1("vanilla_proofs", "variant %s does not match registered_proof %v (want %q)", errtext.Quote(variant), ProofName(c.RegisteredProof), want)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

type form int

const (
	formOther form = iota
	formJSON
	formEnvelope
)

// detect tells JSON C1, envelope and other (bincode) apart by the first
// key of the top-level object.
func detect(data []byte) form {
	t := bytes.TrimLeft(data, " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		return formOther
	}
	d := &jdec{b: t, i: 1, part: -1, chal: -1}
	if d.peek() != '"' {
		return formJSON
	}
	key, err := d.str()
	if err != nil {
		return formJSON
	}
	switch string(key) {
	case "SectorNum", "Phase1Out", "SectorSize":
		return formEnvelope
	}
	return formJSON
}
