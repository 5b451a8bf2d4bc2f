package cuzk

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strings"
)

// content is what a request asks to be proved: the fields that change the
// proof, each hashed (SHA-256), and one digest over them. A request id
// joins the job holding it only when their contents' digests are equal
// (Server.SubmitProof).
//
// The fields are taken as the facade's request holds them, so two forms
// of one request are one content: a commitment as 32 raw bytes or as its
// CID, SnapDeals' partition proofs in vanilla_proofs or as Curio's JSON
// array in vanilla_proof, sector_size said or left 0 (registered_proof
// fixes it). A PoRep C1 is compared as the bytes sent: one C1 as JSON and
// as the Commit2In envelope are two contents (parsing tens of MB is the
// job's work, not the submit's).
//
// A PoSt's content is its randomness, its partition_index (0 for a
// WinningPoSt) and every sector's vanilla proof, in order, besides the
// kind, proof type, sector size and miner.
//
// Left out, as they do not change the proof: request_id (the key itself)
// and priority (it orders the queue: a retry at another priority joins
// the job, at its first priority).
type content struct {
	sum    [sha256.Size]byte
	fields []contentField
}

type contentField struct {
	name string
	sum  [sha256.Size]byte
}

// contentOf hashes fields in order; each field's value is its parts, each
// length-prefixed (a list of partition proofs is not their concatenation).
func contentOf(fields ...fieldValue) content {
	var c content
	all := sha256.New()
	var n [8]byte
	for _, f := range fields {
		h := sha256.New()
		for _, p := range f.parts {
			binary.LittleEndian.PutUint64(n[:], uint64(len(p)))
			h.Write(n[:])
			h.Write(p)
		}
		cf := contentField{name: f.name}
		h.Sum(cf.sum[:0])
		c.fields = append(c.fields, cf)
		binary.LittleEndian.PutUint64(n[:], uint64(len(f.name)))
		all.Write(n[:])
		all.Write([]byte(f.name))
		all.Write(cf.sum[:])
	}
	all.Sum(c.sum[:0])
	return c
}

// fieldValue is a field of a request and its value's parts.
type fieldValue struct {
	name  string
	parts [][]byte
}

func bytesField(name string, parts ...[]byte) fieldValue { return fieldValue{name, parts} }

func uintField(name string, v uint64) fieldValue {
	return bytesField(name, binary.LittleEndian.AppendUint64(nil, v))
}

// short is the digest as errors and logs name it: sha256: and its first 6
// bytes in hex.
func (c content) short() string { return "sha256:" + hex.EncodeToString(c.sum[:6]) }

// differs names the fields whose values differ between c and o ("a, b
// differ"); of two kinds, only proof_kind (their fields follow from it).
func (c content) differs(o content) string {
	theirs := map[string][sha256.Size]byte{}
	for _, f := range o.fields {
		theirs[f.name] = f.sum
	}
	var names []string
	for _, f := range c.fields {
		if sum, ok := theirs[f.name]; !ok || sum != f.sum {
			names = append(names, f.name)
		}
		delete(theirs, f.name)
	}
	for _, f := range o.fields {
		if _, ok := theirs[f.name]; ok {
			names = append(names, f.name)
		}
	}
	switch {
	case len(names) == 0:
		return "no field differs"
	case names[0] == fieldKind:
		return fieldKind + " differs"
	case len(names) == 1:
		return names[0] + " differs"
	}
	return strings.Join(names, ", ") + " differ"
}

// fieldKind is every content's first field: the proof kind.
const fieldKind = "proof_kind"
