package realproofs

import (
	"bufio"
	"bytes"
	_ "embed" // the 2 KiB records
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// ErrBadRecord wraps every problem with a record's text: a malformed
// line, a field of the wrong length, a porep_config gpuc2 does not know.
var ErrBadRecord = errors.New("realproofs: bad record")

// The records of the 2 KiB sectors, as rust-fil-proofs wrote them
// (testdata/README.md says where from).
//
//go:embed testdata/seal_regression_records-v16-2KiB.json
var records2KiB []byte

// Source names the embedded records' origin, for messages.
const Source = "rust-fil-proofs filecoin-proofs/tests/seal_regression_records-v16.json (commit be65d20), 2 KiB records"

// maxLine bounds one record's line: a 64 GiB record, ten proofs of 192
// bytes written as decimal arrays, is under 12 KB.
const maxLine = 64 << 10

// Record is one seal regression record: a sector's public values and the
// proof rust-fil-proofs made for them, under the porep_config it names.
type Record struct {
	Line       int    // 1-based, in the file it was read from
	SectorSize uint64 // bytes
	Partitions int
	PoRepID    [32]byte
	APIVersion porep.APIVersion
	Synthetic  bool // the SyntheticPoRep feature
	CommR      [32]byte
	CommD      [32]byte
	ProverID   [32]byte
	SectorID   uint64
	Ticket     [32]byte
	Seed       [32]byte
	Proof      []byte // Partitions × 192 bytes

	params porep.SealParams // resolved by Parse
}

// Records2KiB returns the embedded 2 KiB records: 31 for each of the API
// versions V1_0_0, V1_1_0 and V1_2_0, and 31 for V1_2_0 with SyntheticPoRep.
func Records2KiB() ([]Record, error) {
	return Parse(bytes.NewReader(records2KiB))
}

// Parse reads seal regression records, one JSON object per line, as
// rust-fil-proofs' SealRegressionRecord serializes them: commitments,
// ids, ticket, seed and proof as arrays of byte values, sector_id a
// number, porep_config with sector_size, partitions, porep_id, api_version
// ("V1_0_0" …) and api_features. Empty lines are skipped.
func Parse(r io.Reader) ([]Record, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 16<<10), maxLine)
	var out []Record
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		rec, err := parseLine(text)
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %w", ErrBadRecord, line, err)
		}
		rec.Line = line
		out = append(out, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: after %d records: %w", ErrBadRecord, len(out), err)
	}
	return out, nil
}

// jsonRecord is a line as written; byte arrays are slices so that a wrong
// length is seen (encoding/json would zero-fill or drop into an array).
type jsonRecord struct {
	PoRepConfig struct {
		SectorSize  uint64   `json:"sector_size"`
		Partitions  int      `json:"partitions"`
		PoRepID     []byte   `json:"porep_id"`
		APIVersion  string   `json:"api_version"`
		APIFeatures []string `json:"api_features"`
	} `json:"porep_config"`
	CommR    []byte  `json:"comm_r"`
	CommD    []byte  `json:"comm_d"`
	ProverID []byte  `json:"prover_id"`
	SectorID *uint64 `json:"sector_id"`
	Ticket   []byte  `json:"ticket"`
	Seed     []byte  `json:"seed"`
	Proof    []byte  `json:"proof"`
}

func parseLine(text []byte) (Record, error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	var j jsonRecord
	if err := dec.Decode(&j); err != nil {
		return Record{}, err
	}
	if dec.More() {
		return Record{}, errors.New("more than one JSON value on the line")
	}
	if j.SectorID == nil {
		return Record{}, errors.New("no sector_id")
	}
	pc := j.PoRepConfig
	rec := Record{SectorSize: pc.SectorSize, Partitions: pc.Partitions, SectorID: *j.SectorID, Proof: j.Proof}
	for _, f := range []struct {
		name string
		src  []byte
		dst  *[32]byte
	}{
		{"porep_config.porep_id", pc.PoRepID, &rec.PoRepID}, {"comm_r", j.CommR, &rec.CommR},
		{"comm_d", j.CommD, &rec.CommD}, {"prover_id", j.ProverID, &rec.ProverID},
		{"ticket", j.Ticket, &rec.Ticket}, {"seed", j.Seed, &rec.Seed},
	} {
		if len(f.src) != 32 {
			return Record{}, fmt.Errorf("%s has %d bytes, want 32", f.name, len(f.src))
		}
		copy(f.dst[:], f.src)
	}
	var err error
	if rec.APIVersion, err = parseAPIVersion(pc.APIVersion); err != nil {
		return Record{}, err
	}
	for _, f := range pc.APIFeatures {
		if f != "SyntheticPoRep" || rec.Synthetic {
			return Record{}, fmt.Errorf("api_features %q: only one SyntheticPoRep is known here", pc.APIFeatures)
		}
		rec.Synthetic = true
	}
	if rec.params, err = rec.resolve(); err != nil {
		return Record{}, err
	}
	if rec.Partitions != rec.params.Partitions {
		return Record{}, fmt.Errorf("%d partitions, a %s sector has %d", rec.Partitions, sizeName(rec.SectorSize), rec.params.Partitions)
	}
	if len(rec.Proof) != rec.Partitions*groth16.ProofSize {
		return Record{}, fmt.Errorf("the proof has %d bytes, want %d (%d partitions)", len(rec.Proof), rec.Partitions*groth16.ProofSize, rec.Partitions)
	}
	return rec, nil
}

var apiVersions = map[string]porep.APIVersion{
	"V1_0_0": porep.APIVersion1_0_0, "V1_1_0": porep.APIVersion1_1_0, "V1_2_0": porep.APIVersion1_2_0,
}

func parseAPIVersion(s string) (porep.APIVersion, error) {
	if v, ok := apiVersions[s]; ok {
		return v, nil
	}
	return 0, fmt.Errorf("api_version %q: want V1_0_0, V1_1_0 or V1_2_0", s)
}

// resolve gives the record's parameters: those of the registered proof of
// its sector size that derives challenges as it does (V1 for V1_0_0,
// Synthetic PoRep for the feature, V1_1 otherwise), with its own API
// version and porep_id, which rust-fil-proofs' PoRepConfig sets freely.
func (r *Record) resolve() (porep.SealParams, error) {
	v11, err := porep.ProofForSectorSize(sizeName(r.SectorSize))
	if err != nil {
		return porep.SealParams{}, fmt.Errorf("sector_size %d: %w", r.SectorSize, err)
	}
	t := v11
	switch {
	case r.Synthetic && r.APIVersion != porep.APIVersion1_2_0:
		return porep.SealParams{}, fmt.Errorf("SyntheticPoRep needs api_version V1_2_0, not %v", r.APIVersion)
	case r.Synthetic:
		t = v11 + 5 // the _Feat_SyntheticPoRep row of abi's table
	case r.APIVersion == porep.APIVersion1_0_0:
		t = v11 - 5 // the V1 row
	}
	sp, err := porep.ParamsFor(t)
	if err != nil {
		return porep.SealParams{}, err
	}
	sp.APIVersion, sp.PoRepID = r.APIVersion, r.PoRepID
	return sp, nil
}

// sizeName is a sector size as porep names it ("2KiB"), or its bytes.
func sizeName(bytes uint64) string {
	for _, t := range []abi.RegisteredSealProof{
		abi.RegisteredSealProof_StackedDrg2KiBV1_1, abi.RegisteredSealProof_StackedDrg8MiBV1_1,
		abi.RegisteredSealProof_StackedDrg512MiBV1_1, abi.RegisteredSealProof_StackedDrg32GiBV1_1,
		abi.RegisteredSealProof_StackedDrg64GiBV1_1,
	} {
		if sz, err := t.SectorSize(); err == nil && uint64(sz) == bytes {
			name, _ := porep.SectorSizeName(t)
			return name
		}
	}
	return fmt.Sprintf("%d-byte", bytes)
}

// Kind names the record's porep_config as rust-fil-proofs writes it: the
// sector size, the API version and the features, e.g. "2KiB V1_2_0
// SyntheticPoRep".
func (r *Record) Kind() string {
	var b strings.Builder
	b.WriteString(sizeName(r.SectorSize))
	for name, v := range apiVersions {
		if v == r.APIVersion {
			b.WriteString(" " + name)
		}
	}
	if r.Synthetic {
		b.WriteString(" SyntheticPoRep")
	}
	return b.String()
}

// Params are the parameters the record is verified under: its registered
// proof's, with the record's porep_id and API version.
func (r *Record) Params() porep.SealParams { return r.params }

// Raw2KiB is the embedded file's text, as rust-fil-proofs wrote it.
func Raw2KiB() string { return string(records2KiB) }
