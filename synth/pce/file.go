package pce

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"os"
	"slices"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/internal/iocount"
	"github.com/gpuc2/gpuc2/synth"
)

// ErrFormat reports a matrices file that is not one WriteTo wrote: a wrong
// magic or version, sizes beyond the compact form, inconsistent matrices,
// a short file, or a checksum that does not match.
var ErrFormat = errors.New("pce: malformed matrices file")

// The file: magic, version, the sizes (inputs, aux, rows, coefficients,
// then each matrix's terms), the coefficients (32 bytes each, canonical
// big-endian), the density bitmaps (aAux, bAux, bInput; 64-bit words), each
// matrix's row starts, columns and coefficient ids, then the CRC-32C of
// everything before it (4 bytes, big-endian). Integers are little-endian.
// The checksum only catches a damaged file (a cache's matrices are checked
// against a full synthesis before use): CRC-32C runs at the memory's speed
// where SHA-256, in version 1, was most of the read's time (2.1 GB/s on the
// dev machine).
const (
	fileMagic   = "GPUC2PCE"
	fileVersion = 2
)

// crc32c is the checksum's table (Castagnoli: SSE 4.2 and ARMv8 compute it
// in hardware).
var crc32c = crc32.MakeTable(crc32.Castagnoli)

// chunkElems bounds what Read allocates ahead of the data: a header that
// claims more than the file holds fails at its end, not with a huge
// allocation.
const chunkElems = 1 << 20

// WriteTo writes the matrices in the file format Read reads.
func (ms *Matrices) WriteTo(w io.Writer) (int64, error) {
	if err := ms.errNoArrays("WriteTo"); err != nil {
		return 0, err
	}
	cw := &iocount.Writer{W: w}
	bw := bufio.NewWriterSize(cw, 1<<20)
	h := crc32.New(crc32c)
	out := io.MultiWriter(bw, h)
	le := binary.LittleEndian
	head := []byte(fileMagic)
	head = le.AppendUint32(head, fileVersion)
	for _, v := range []int{ms.inputs, ms.aux, ms.Rows(), len(ms.coeffs)} {
		head = le.AppendUint32(head, uint32(v))
	}
	for _, m := range []*Matrix{&ms.a, &ms.b, &ms.c} {
		head = le.AppendUint64(head, uint64(m.Terms()))
	}
	if _, err := out.Write(head); err != nil {
		return cw.N, err
	}
	for i := range ms.coeffs {
		b := ms.coeffs[i].Bytes()
		if _, err := out.Write(b[:]); err != nil {
			return cw.N, err
		}
	}
	for _, d := range []*synth.Density{&ms.aAux, &ms.bAux, &ms.bInput} {
		if err := writeSlice(out, d.Words); err != nil {
			return cw.N, err
		}
	}
	for _, m := range []*Matrix{&ms.a, &ms.b, &ms.c} {
		if err := writeSlice(out, m.rowStart); err != nil {
			return cw.N, err
		}
		if err := writeSlice(out, m.cols); err != nil {
			return cw.N, err
		}
		if err := writeSlice(out, m.ids); err != nil {
			return cw.N, err
		}
	}
	if _, err := bw.Write(h.Sum(nil)); err != nil {
		return cw.N, err
	}
	err := bw.Flush()
	return cw.N, err
}

// writeSlice writes v little-endian in chunks of chunkElems (binary.Write
// of a whole slice would hold a copy of it).
func writeSlice[T uint16 | uint32 | uint64](w io.Writer, v []T) error {
	for lo := 0; lo < len(v); lo += chunkElems {
		if err := binary.Write(w, binary.LittleEndian, v[lo:min(lo+chunkElems, len(v))]); err != nil {
			return err
		}
	}
	return nil
}

// Read reads matrices that WriteTo wrote and checks them as Compile checks
// a recording, and the file's checksum; any flaw is an error wrapping
// ErrFormat. Bytes after the checksum are left unread.
func Read(r io.Reader) (*Matrices, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	// The large slices are read past the buffer, straight into their memory.
	f := &fileReader{r: br, h: crc32.New(crc32c)}
	ms, err := f.read()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	return ms, nil
}

// fileReader reads the format, hashing what it reads.
type fileReader struct {
	r   io.Reader
	h   hash.Hash
	buf [8]byte
}

func (f *fileReader) full(p []byte) error {
	if _, err := io.ReadFull(f.r, p); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	f.h.Write(p)
	return nil
}

func (f *fileReader) u32() (uint32, error) {
	err := f.full(f.buf[:4])
	return binary.LittleEndian.Uint32(f.buf[:4]), err
}

func (f *fileReader) u64() (uint64, error) {
	err := f.full(f.buf[:8])
	return binary.LittleEndian.Uint64(f.buf[:8]), err
}

// readSlice reads n little-endian elements in chunks of chunkElems, so
// that memory grows with the data actually read. On a little-endian host
// the bytes go straight into the slice's memory (binary.Read decoded
// element by element: 0.40 GB/s of file at 8 MiB on the dev machine).
func readSlice[T uint16 | uint32 | uint64](f *fileReader, n uint64) ([]T, error) {
	out := make([]T, 0, min(n, chunkElems))
	for uint64(len(out)) < n {
		k := int(min(n-uint64(len(out)), chunkElems))
		out = slices.Grow(out, k)
		chunk := out[len(out) : len(out)+k]
		if hostLittleEndian {
			if err := f.full(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(chunk))), k*int(unsafe.Sizeof(chunk[0])))); err != nil {
				return nil, err
			}
		} else if err := binary.Read(io.TeeReader(f.r, f.h), binary.LittleEndian, chunk); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		out = out[:len(out)+k]
	}
	return out, nil
}

// hostLittleEndian: the file's integers are the host's own.
var hostLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

func (f *fileReader) read() (*Matrices, error) {
	magic := make([]byte, len(fileMagic))
	if err := f.full(magic); err != nil {
		return nil, err
	}
	if string(magic) != fileMagic {
		return nil, fmt.Errorf("magic %q, want %q", magic, fileMagic)
	}
	var sizes [5]uint32 // version, inputs, aux, rows, coefficients
	for i := range sizes {
		v, err := f.u32()
		if err != nil {
			return nil, err
		}
		sizes[i] = v
	}
	if sizes[0] != fileVersion {
		return nil, fmt.Errorf("version %d, want %d", sizes[0], fileVersion)
	}
	nIn, nAux, rows, nCoeffs := sizes[1], sizes[2], sizes[3], sizes[4]
	if uint64(nIn)+uint64(nAux) > math.MaxUint32 || nCoeffs > math.MaxUint16+1 || rows == math.MaxUint32 {
		return nil, fmt.Errorf("%d inputs, %d aux, %d rows, %d coefficients: beyond the compact form", nIn, nAux, rows, nCoeffs)
	}
	var terms [3]uint64
	for i := range terms {
		v, err := f.u64()
		if err != nil {
			return nil, err
		}
		if v > math.MaxUint32 {
			return nil, fmt.Errorf("%d terms in one matrix", v)
		}
		terms[i] = v
	}
	ms := &Matrices{id: newID(), inputs: int(nIn), aux: int(nAux)}
	var b [fr.Bytes]byte
	for i := uint32(0); i < nCoeffs; i++ {
		if err := f.full(b[:]); err != nil {
			return nil, err
		}
		var c fr.Element
		if err := c.SetBytesCanonical(b[:]); err != nil {
			return nil, fmt.Errorf("coefficient %d: %w", i, err)
		}
		ms.coeffs = append(ms.coeffs, c)
	}
	ms.kinds = coeffKinds(ms.coeffs)
	for _, d := range []struct {
		dst *synth.Density
		n   uint32
	}{{&ms.aAux, nAux}, {&ms.bAux, nAux}, {&ms.bInput, nIn}} {
		words, err := readSlice[uint64](f, (uint64(d.n)+63)/64)
		if err != nil {
			return nil, err
		}
		if d.n%64 != 0 && words[len(words)-1]>>(d.n%64) != 0 {
			return nil, fmt.Errorf("density bits past its %d variables", d.n)
		}
		*d.dst = synth.Density{Words: words, Len: int(d.n)}
	}
	for i, m := range []*Matrix{&ms.a, &ms.b, &ms.c} {
		var err error
		if m.rowStart, err = readSlice[uint32](f, uint64(rows)+1); err != nil {
			return nil, err
		}
		if m.cols, err = readSlice[uint32](f, terms[i]); err != nil {
			return nil, err
		}
		if m.ids, err = readSlice[uint16](f, terms[i]); err != nil {
			return nil, err
		}
		if err := m.check(ms.inputs+ms.aux, len(ms.coeffs)); err != nil {
			return nil, fmt.Errorf("matrix %c: %w", "ABC"[i], err)
		}
	}
	want := f.h.Sum(nil)
	got := make([]byte, len(want))
	if _, err := io.ReadFull(f.r, got); err != nil {
		return nil, fmt.Errorf("checksum: %w", io.ErrUnexpectedEOF)
	}
	if string(got) != string(want) {
		return nil, errors.New("checksum does not match")
	}
	return ms, nil
}

// check verifies what Eval relies on: row starts from 0 to the terms, in
// order (checkRows); every column inside the witness, every id inside the
// table.
func (m *Matrix) check(width, nCoeffs int) error {
	if err := m.checkRows(); err != nil {
		return err
	}
	for k, c := range m.cols {
		if int(c) >= width || int(m.ids[k]) >= nCoeffs {
			return fmt.Errorf("term %d (column %d, coefficient %d) outside the witness or the table", k, c, m.ids[k])
		}
	}
	return nil
}

func (m *Matrix) checkRows() error {
	if len(m.rowStart) == 0 || m.rowStart[0] != 0 || uint64(m.rowStart[len(m.rowStart)-1]) != uint64(len(m.cols)) || len(m.ids) != len(m.cols) {
		return fmt.Errorf("row starts do not cover the %d terms", len(m.cols))
	}
	for i := 1; i < len(m.rowStart); i++ {
		if m.rowStart[i] < m.rowStart[i-1] {
			return fmt.Errorf("row %d starts before row %d", i, i-1)
		}
	}
	return nil
}

// WriteFile writes the matrices to path atomically: through path+".tmp",
// synced, then renamed, so that a reader never sees half a file.
func (ms *Matrices) WriteFile(path string) (err error) {
	if err := ms.errNoArrays("WriteFile"); err != nil {
		return err
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if _, err = ms.WriteTo(f); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// ReadFile reads matrices that WriteFile wrote, with Read's checks.
func ReadFile(path string) (*Matrices, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ms, err := Read(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ms, nil
}
