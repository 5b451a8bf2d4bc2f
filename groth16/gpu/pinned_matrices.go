package gpu

import (
	"context"
	"fmt"
	"time"
	"unsafe"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/groth16/internal/prover"
	"github.com/gpuc2/gpuc2/internal/par"
	"github.com/gpuc2/gpuc2/native"
	"github.com/gpuc2/gpuc2/synth/pce"
)

// pinnedMatrices are a circuit's compiled constraint matrices (synth/pce)
// in pinned host memory, cut into chunks of rows: the streaming path copies
// a chunk to the device by DMA while the previous one is evaluated there,
// so that a device whose memory cannot hold the matrices still evaluates
// a, b, c itself and only the witness and the matrices cross the bus
// (issue 18). One copy serves every device of the process.
type pinnedMatrices struct {
	ms  *pce.Matrices // without their arrays once copied: sizes, coefficient table
	mem *native.Pinned
	abc [3][]matrixChunk // A, B, C
}

// matrixChunk is a run of a matrix's rows in pinned memory: its row starts,
// relative to its first term (rows+1 of them), then its terms' columns and
// coefficient ids.
type matrixChunk struct {
	firstRow, rows, terms int
	rowStartOff, colsOff  int64 // byte offsets in mem
	idsOff                int64
}

// pinnedMatricesFor returns ms's pinned copy for p, making it on first
// use, and the function that hands it back.
func (p *Device) pinnedMatricesFor(ctx context.Context, ms *pce.Matrices, cfg *prover.Settings) (*pinnedMatrices, func(), error) {
	begin := time.Now()
	hm, release, made, err := p.host.matrices.acquire(ctx, p, ms.ID(), func(ctx context.Context) (*pinnedMatrices, error) {
		return newPinnedMatrices(ctx, ms, spmvChunkRows, spmvChunkTerms)
	})
	if err != nil {
		return nil, nil, fmt.Errorf("gpu: pinned constraint matrices: %w", err)
	}
	if made {
		cfg.Report("matrices_pin", begin, "device", p.device, "bytes", hm.mem.Size())
	}
	return hm, release, nil
}

// newPinnedMatrices copies ms into pinned memory in chunks of at most
// maxRows rows and maxTerms terms (matricesLayout).
func newPinnedMatrices(ctx context.Context, ms *pce.Matrices, maxRows, maxTerms int) (*pinnedMatrices, error) {
	if !ms.HasArrays() {
		return nil, fmt.Errorf("%w: no pinned copy of these constraint matrices: %w", groth16.ErrInvalidInput, pce.ErrNoArrays)
	}
	hm, size, err := matricesLayout(ms, maxRows, maxTerms)
	if err != nil {
		return nil, err
	}
	mem, err := native.AllocPinned(max(size, 1))
	if err != nil {
		return nil, fmt.Errorf("%w: %d bytes for the constraint matrices: %w", errPinnedHost, size, err)
	}
	hm.mem = mem
	if err := hm.fill(ctx, mem.Bytes()); err != nil {
		hm.free()
		return nil, err
	}
	hm.ms = ms.WithoutArrays() // the device reads the pinned copy: the heap's can go
	return hm, nil
}

// matricesLayout cuts ms's matrices into chunks of at most maxRows rows
// and maxTerms terms (a row with more terms fails with ErrInvalidInput;
// the device's slots hold spmvChunkRows and spmvChunkTerms) and places
// them one after the other, size bytes in all; the memory is left to
// allocate.
func matricesLayout(ms *pce.Matrices, maxRows, maxTerms int) (hm *pinnedMatrices, size int64, err error) {
	hm = &pinnedMatrices{ms: ms}
	align := func(n int64) int64 { return (n + 7) &^ 7 }
	for i, m := range []*pce.Matrix{ms.A(), ms.B(), ms.C()} {
		rowStart, _, _ := m.CSR()
		for first := 0; first < m.Rows(); {
			ch := matrixChunk{firstRow: first}
			k0 := rowStart[first]
			for ch.rows < maxRows && first+ch.rows < m.Rows() && int(rowStart[first+ch.rows+1]-k0) <= maxTerms {
				ch.rows++
			}
			if ch.rows == 0 {
				return nil, 0, fmt.Errorf("%w: row %d of a constraint matrix has %d terms, more than the %d a streamed chunk holds",
					groth16.ErrInvalidInput, first, rowStart[first+1]-k0, maxTerms)
			}
			ch.terms = int(rowStart[first+ch.rows] - k0)
			ch.rowStartOff = size
			ch.colsOff = align(size + int64(ch.rows+1)*4)
			ch.idsOff = align(ch.colsOff + int64(ch.terms)*4)
			size = align(ch.idsOff + int64(ch.terms)*2)
			hm.abc[i] = append(hm.abc[i], ch)
			first += ch.rows
		}
	}
	return hm, size, nil
}

// fill copies the chunks into b, laid out by matricesLayout, a chunk per
// task.
func (hm *pinnedMatrices) fill(ctx context.Context, b []byte) error {
	ms := hm.ms
	type task struct {
		m  *pce.Matrix
		ch matrixChunk
	}
	var tasks []task
	for i, m := range []*pce.Matrix{ms.A(), ms.B(), ms.C()} {
		for _, ch := range hm.abc[i] {
			tasks = append(tasks, task{m, ch})
		}
	}
	return par.Chunks(ctx, len(tasks), 1, func(lo, hi int) error {
		for _, t := range tasks[lo:hi] {
			rowStart, cols, ids := t.m.CSR()
			ch := t.ch
			k0 := rowStart[ch.firstRow]
			rel := unsafe.Slice((*uint32)(unsafe.Pointer(&b[ch.rowStartOff])), ch.rows+1)
			for r := range rel {
				rel[r] = rowStart[ch.firstRow+r] - k0
			}
			if ch.terms > 0 {
				copy(unsafe.Slice((*uint32)(unsafe.Pointer(&b[ch.colsOff])), ch.terms), cols[k0:])
				copy(unsafe.Slice((*uint16)(unsafe.Pointer(&b[ch.idsOff])), ch.terms), ids[k0:])
			}
		}
		return nil
	})
}

func (hm *pinnedMatrices) free() {
	if hm.mem != nil {
		hm.mem.Free()
	}
}

// spmvSlots are a streamed evaluation's device memory: the coefficient
// table, and two chunk buffers that the copies and the evaluations take in
// turn.
type spmvSlots struct {
	coeffs *native.Buffer
	slot   [2]struct{ rowStart, cols, ids *native.Buffer }
}

// newSpmvSlots allocates the slots with alloc (spmvSlotsBytes in all) and
// copies ms's coefficient table on st.
func newSpmvSlots(st *native.Stream, ms *pce.Matrices, alloc func(int64) (*native.Buffer, error)) (*spmvSlots, error) {
	s := &spmvSlots{}
	var err error
	coeffs := native.AsBytes(ms.Coeffs())
	if s.coeffs, err = alloc(max(int64(len(coeffs)), 1)); err != nil {
		return nil, err
	}
	for i := range s.slot {
		x := &s.slot[i]
		for _, b := range []struct {
			dst   **native.Buffer
			bytes int64
		}{{&x.rowStart, (spmvChunkRows + 1) * 4}, {&x.cols, spmvChunkTerms * 4}, {&x.ids, spmvChunkTerms * 2}} {
			if *b.dst, err = alloc(b.bytes); err != nil {
				return nil, err
			}
		}
	}
	if err := st.CopyToDevice(s.coeffs, 0, coeffs); err != nil {
		return nil, err
	}
	return s, st.Sync() // the allocations, before the copy stream fills them
}

// free frees the slots in the order of the stream that allocated them.
func (s *spmvSlots) free() {
	s.coeffs.Free()
	for _, x := range s.slot {
		x.rowStart.Free()
		x.cols.Free()
		x.ids.Free()
	}
}

// eval computes out = M·w on st for matrix i of hm (0: A, 1: B, 2: C) and
// zeroes out beyond its rows: each chunk is copied into a slot on cs while
// the previous chunk is evaluated. It returns with the last evaluation
// enqueued; st's next wait covers it.
func (hm *pinnedMatrices) eval(st, cs *native.Stream, s *spmvSlots, i int, w native.Witness, out *native.Buffer) error {
	nCoeffs := len(hm.ms.Coeffs())
	for j, ch := range hm.abc[i] {
		x := s.slot[j%2]
		for _, c := range []struct {
			dst    *native.Buffer
			off, n int64
		}{{x.rowStart, ch.rowStartOff, int64(ch.rows+1) * 4}, {x.cols, ch.colsOff, int64(ch.terms) * 4}, {x.ids, ch.idsOff, int64(ch.terms) * 2}} {
			if c.n == 0 {
				continue
			}
			if err := cs.CopyToDeviceAsync(c.dst, 0, hm.mem, c.off, c.n); err != nil {
				return err
			}
		}
		if err := cs.Sync(); err != nil {
			return err
		}
		// The previous chunk's evaluation read the other slot, which the
		// next copy overwrites: wait for it (it ran beside this copy).
		if err := st.Sync(); err != nil {
			return err
		}
		m := native.CSR{RowStart: x.rowStart, Cols: x.cols, IDs: x.ids, Coeffs: s.coeffs,
			Rows: ch.rows, Terms: ch.terms, NCoeffs: nCoeffs}
		if err := st.SpMV(m, w, out, int64(ch.firstRow)*frSize); err != nil {
			return fmt.Errorf("GPU %d: constraint evaluation: %w", st.Device(), err)
		}
	}
	n := int64(hm.ms.Rows()) * frSize
	return st.Zero(out, n, out.Size()-n)
}
