package codec

import (
	"strconv"
	"strings"
)

// Seg is one step of a field path: a field name, an index, or both
// ("path[3]"); Idx −1 means none.
type Seg struct {
	Name string
	Idx  int
}

// Fields is the path of the field being decoded. Errors name it from the
// base on (Rebase), so that an error inside a partition's challenge names
// the field within the challenge and leaves the partition and challenge to
// the error's own fields. The zero value is the root.
type Fields struct {
	segs []Seg
	base int
}

// Push enters a field: name, index (−1: none) or both.
func (f *Fields) Push(name string, idx int) { f.segs = append(f.segs, Seg{Name: name, Idx: idx}) }

// Pop leaves the field entered last.
func (f *Fields) Pop() { f.segs = f.segs[:len(f.segs)-1] }

// Depth is the number of fields entered.
func (f *Fields) Depth() int { return len(f.segs) }

// Rebase makes errors name fields from the current depth on.
func (f *Fields) Rebase() { f.base = len(f.segs) }

// ClearBase makes errors name fields from the root again.
func (f *Fields) ClearBase() { f.base = 0 }

// Reset returns to the root.
func (f *Fields) Reset() { f.segs, f.base = f.segs[:0], 0 }

// String is the path from the base on: names joined by dots, indices in
// brackets ("comm_d_proofs.data.Single.path.path[3].hashes").
func (f *Fields) String() string { return FieldString(f.segs[min(f.base, len(f.segs)):]) }

// FieldString writes a path of segments as Fields.String does.
func FieldString(p []Seg) string {
	var sb strings.Builder
	for k, s := range p {
		if k > 0 && s.Name != "" {
			sb.WriteByte('.')
		}
		sb.WriteString(s.Name)
		if s.Idx >= 0 {
			sb.WriteByte('[')
			sb.WriteString(strconv.Itoa(s.Idx))
			sb.WriteByte(']')
		}
	}
	return sb.String()
}
