package gpu

import (
	"math/bits"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/native"
	"github.com/gpuc2/gpuc2/synth"
)

// The device side of the resource model: what a proof reserves on a GPU and
// holds in pinned host memory. Plan (plan.go) is its one reader outside
// this file.

// In-memory sizes of what the device holds: an Fr element, affine G1/G2 points.
const (
	frSize  = int64(unsafe.Sizeof(fr.Element{}))
	g1Bytes = int64(unsafe.Sizeof(bls12381.G1Affine{}))
	g2Bytes = int64(unsafe.Sizeof(bls12381.G2Affine{}))
)

// Uploads of the witness go through pinned staging chunks: copies from
// pageable memory run at a fraction of the bus speed and block the calling
// thread, while a pinned chunk is filled by several cores and copied by DMA
// as the next one fills. The chunks are allocated once and kept (allocating
// or freeing pinned memory synchronizes the device).
const stageChunkBytes = 128 << 20

// UploadStagingBytes is the pinned host memory one proof's upload holds
// (two staging chunks); the chunks are kept for reuse across proofs.
const UploadStagingBytes = 2 * stageChunkBytes

// StreamingStageBytes is the pinned host memory a device on the streaming
// path keeps for the last of H's vectors (c, domain m), filled while H's
// first steps run so that its upload inside H is one DMA (vectorStage).
func StreamingStageBytes(m int) int64 { return domainVectorBytes(m) }

// PinnedWitnessBytes is the pinned host memory of a witness synthesized
// into PinnedVectors' memory, as the facade's pipeline does for the GPUs
// (part of WitnessHostBytes): its aux; the few inputs stay on the heap.
func PinnedWitnessBytes(sz synth.Sizes) int64 {
	return int64(sz.Aux) * frSize
}

// PinnedAssignmentBytes is the pinned host memory of a full assignment
// synthesized into PinnedVectors' memory, as the facade's pipeline does for
// the GPUs (part of PartitionHostBytes): its aux, and a, b, c with room for
// the domain (the input rows and the quotient's work in place).
func PinnedAssignmentBytes(sz synth.Sizes) int64 {
	return PinnedWitnessBytes(sz) + 3*int64(sz.Domain())*frSize
}

// ProofDeviceBytes is the device memory one proof reserves beside its
// resident key (counts c, domain m, nAux aux variables): what a scheduler
// should budget per GPU worker.
func ProofDeviceBytes(c groth16.SectionCounts, m, nAux int) int64 {
	return proofDeviceBytes(anyDevice, c, m, nAux)
}

// proofDeviceBytes is one proof's device memory beside the key on device
// (anyDevice: the most any device needs): a, b, c over the domain, the aux
// and input scalars, and the larger of H's NTT tables and the largest
// MSM's scratch (H runs before the MSMs, which run one at a time).
func proofDeviceBytes(device int, c groth16.SectionCounts, m, nAux int) int64 {
	abc := 3 * domainVectorBytes(m)
	return abc + witnessDeviceBytes(nAux) + max(hScratchBytes(max(m, 1)), msmScratchBytes(device, c, nAux))
}

// domainVectorBytes is one of a proof's a, b, c on the device: m elements.
func domainVectorBytes(m int) int64 { return int64(m) * frSize }

// hReleasedBytes is what a resident proof gives back once H has run: b
// and c (h stays in a).
func hReleasedBytes(m int) int64 { return 2 * domainVectorBytes(m) }

// witnessDeviceBytes is a proof's aux and input scalars on the device
// (nAux aux; the inputs, a few, within the 1024 elements of room): its
// upload when the device evaluates a, b, c.
func witnessDeviceBytes(nAux int) int64 { return int64(nAux+1024) * frSize }

// anyDevice asks the resource model for the most any device needs.
const anyDevice = -1

// msmScratchBytes is the largest device scratch of ProveResident's MSMs
// (canonical scalars): h over H points, then l, a, b (G1) and b (G2) over
// the nAux aux scalars with a density bitmap (the inputs' MSMs are far
// smaller). A section's size stands in for nAux when it is larger (nAux 0:
// unknown). With the library loaded it is the library's answer on device
// (anyDevice: the device that needs the most; native.MSMScratchBytes: what
// the MSM really allocates, with the library's window choice); without, or
// if a query fails, native.MSMScratchBound, an upper bound on any device.
func msmScratchBytes(device int, c groth16.SectionCounts, nAux int) int64 {
	aux := func(points int) native.DeviceMSM {
		return native.DeviceMSM{NBases: points, NScalars: max(points, nAux), Canonical: true}
	}
	msms := []struct {
		g native.Group
		m native.DeviceMSM
	}{
		{native.G1, native.DeviceMSM{NBases: c.H, NScalars: c.H, Canonical: true}},
		{native.G1, aux(c.L)}, {native.G1, aux(c.A)}, {native.G1, aux(c.B)}, {native.G2, aux(c.B)},
	}
	devices := devicesFor(device)
	var most int64
	for _, x := range msms {
		b := native.MSMScratchBound(x.g, x.m)
		if len(devices) > 0 {
			b = 0
			for _, d := range devices {
				q, err := native.MSMScratchBytes(d, x.g, x.m)
				if err != nil {
					q = native.MSMScratchBound(x.g, x.m)
				}
				b = max(b, q)
			}
		}
		most = max(most, b)
	}
	return most
}

// residentProofBytes is what one proof with a resident key of counts c
// reserves on device: its domain is c.H+1 and its aux variables c.L (as
// checkCounts requires), so a key computes it once, at upload.
func residentProofBytes(device int, c groth16.SectionCounts) int64 {
	return proofDeviceBytes(device, c, c.H+1, c.L)
}

// Streaming: a key that does not fit the device stays in pinned host
// memory and each MSM streams its points through two device buffers of a
// chunk each (streamChunks): by default 1 GiB of G1 points (11.2 M; its
// copy, 19 ms at the 55 GB/s of a PCIe 5 x16 link, hides behind the
// previous chunk's kernels, and only the first chunk's copy is exposed:
// G1 2^26 in 498 ms against 438 ms resident on an H200, 494 ms with 2 GiB
// chunks, 541 ms with 512 MiB: BENCHMARKS.md, issue 17), and 512 MiB of
// G2 points (2.8 M), whose bucket table is twice G1's: so a streamed
// 32 GiB proof fits twice in 24 GiB.
var defaultChunks = streamChunks{g1: 1 << 30, g2: 512 << 20}

// streamChunks is the bytes of a streamed MSM's chunk buffers, for G1 and
// G2 points.
type streamChunks struct{ g1, g2 int64 }

// points is the points per chunk buffer of a streamed MSM over points of
// pointBytes (G1 or G2).
func (c streamChunks) points(pointBytes int64) int {
	if pointBytes == g2Bytes {
		return int(c.g2 / pointBytes)
	}
	return int(c.g1 / pointBytes)
}

// hMSMOptions are the streamed h MSM's: h's coefficients are random, so
// the 0/1 split never runs, and without it the MSM's scratch holds none of
// the split's arrays. At 32 GiB a streamed proof's least limit on an H200
// drops from 10.9 to 10.8 GiB (BENCHMARKS.md, issue 17).
var hMSMOptions = []native.MSMOption{native.WithoutSplit()}

// StreamingProofBytes is the device memory one proof reserves on the
// streaming path (the key in pinned host memory) with a key of counts c,
// domain m, nAux aux and nIn input variables: the largest of its three
// phases, H (two domain vectors and the NTT tables), the h MSM (h and a
// streamed G1 MSM) and the aux MSMs (the assignment and the largest
// streamed MSM over it). A device whose memory limit is below this cannot
// prove with such a key.
func StreamingProofBytes(c groth16.SectionCounts, m, nAux, nIn int) int64 {
	plain, _ := streamingProofBytes(anyDevice, c, m, nAux, nIn)
	return plain
}

// streamingProofBytes is one streamed proof's reservation on device
// (anyDevice: the most any device needs; without the library: the native
// bounds): plain, StreamingProofBytes; withABC, a proof that evaluates a,
// b, c on the device from matrices streamed from pinned host memory
// (WithMatrices), whose witness, uploaded first, stays through H and the h
// MSM, and whose H phase holds the evaluation's chunk slots.
func streamingProofBytes(device int, c groth16.SectionCounts, m, nAux, nIn int) (plain, withABC int64) {
	z := newStreamedSizes(device, c, m, nAux, nIn)
	hMSM := z.hMSM(defaultChunks)
	aux := auxScratchBytes(device, c, nAux, defaultChunks, true)
	plain = max(z.hPhase(false), hMSM, z.assignment+aux) + poolGranules
	withABC = max(z.hPhase(true), hMSM+z.assignment, z.assignment+aux) + poolGranules
	return plain, withABC
}

// poolGranules is what a streamed proof's reservation adds for its
// buffers, each rounded up to the pool's 2 MiB.
const poolGranules = 16 << 20

// streamedSizes are the sizes a streamed proof's phases are made of, on
// device (anyDevice: the most any device needs).
type streamedSizes struct {
	device     int
	c          groth16.SectionCounts
	domain     int64 // a domain vector
	assignment int64 // aux and the inputs
	hTables    int64 // H's NTT tables
}

func newStreamedSizes(device int, c groth16.SectionCounts, m, nAux, nIn int) streamedSizes {
	return streamedSizes{device: device, c: c, domain: int64(m) * frSize,
		assignment: assignmentBytes(nAux, nIn), hTables: hScratchBytes(m)}
}

// assignmentBytes is a proof's aux and input scalars (nAux, nIn) as
// uploaded and held on the device by the streamed path, and as every
// proof's witness crosses the bus (Plan.ProofBusBytes).
func assignmentBytes(nAux, nIn int) int64 { return int64(nAux+max(nIn, 1)) * frSize }

// hPhase is H's phase: two domain vectors and the NTT tables; withABC,
// also the witness and the evaluation's chunk slots.
func (z streamedSizes) hPhase(withABC bool) int64 {
	b := 2*z.domain + z.hTables
	if withABC {
		b += z.assignment + spmvSlotsBytes
	}
	return b
}

// hMSM is the h MSM's phase with chunks: h and the streamed MSM's scratch.
func (z streamedSizes) hMSM(chunks streamChunks) int64 {
	return z.domain + streamScratchBytes(z.device, native.G1, z.c.H, z.c.H, chunks, hMSMOptions...)
}

// auxScratchBytes is the largest device scratch of the streamed aux MSMs
// (l, a and b in G1 over nAux scalars, b in G2 too when withG2) with
// chunks and opts.
func auxScratchBytes(device int, c groth16.SectionCounts, nAux int, chunks streamChunks, withG2 bool, opts ...native.MSMOption) int64 {
	msms := []struct {
		g native.Group
		n int
	}{{native.G1, c.L}, {native.G1, c.A}, {native.G1, c.B}, {native.G2, c.B}}
	if !withG2 {
		msms = msms[:3]
	}
	var most int64
	for _, x := range msms {
		most = max(most, streamScratchBytes(device, x.g, x.n, max(x.n, nAux), chunks, opts...))
	}
	return most
}

// besideLayout is a streamed proof whose aux MSMs run beside its own h
// MSM, under the compute lock, on a stream and copy stream of their own:
// on a device that holds one streamed proof at a time nothing else hides
// their copies (47.4 GB of points a 32 GiB partition, most of them the aux
// MSMs'). Their scratch must fit beside h's, so the chunks may be smaller
// than defaultChunks, and b's G2 MSM (the largest bucket table) may run
// after the h MSM instead.
type besideLayout struct {
	h, aux  streamChunks // the h MSM's chunks, the aux MSMs'
	g2After bool         // b's G2 MSM runs after the h MSM, alone, with defaultChunks
	bytes   int64        // the proof's reservation
	// afterH is what the proof still needs once its h MSM is done: the
	// assignment and the aux MSMs' scratch (b's G2 MSM's after it, with
	// g2After). It gives the rest back then (Shrink), so that the next
	// proof's witness can be reserved and uploaded beside its aux MSMs.
	afterH int64
}

// releasedAfterH is what the proof gives back once its h MSM is done.
func (l besideLayout) releasedAfterH() int64 { return max(l.bytes-l.afterH, 0) }

// besideMSMOptions are the streamed aux MSMs' beside the h MSM: their 0/1
// split batched across chunks, so that no chunk waits on the host while
// h's kernels hold the SMs. With it the aux MSMs beside h took a 32 GiB
// proof under a 16 GiB limit from 24.3 to 20.8-21.0 s; beside h with the
// per-chunk split they had lost (2.80 against 2.56 s a partition). After h,
// beside another proof (24 GiB), it cost 17.8 -> 18.3 s, so only these ask
// it (BENCHMARKS.md, issue 17).
var besideMSMOptions = []native.MSMOption{native.WithBatchedSplit()}

// besideLayouts lists the layouts of a streamed proof with its aux MSMs
// beside the h MSM (withABC: one that evaluates a, b, c on the device,
// whose witness stays from the start), in the order a device prefers them:
// h's chunks largest first (h's MSM is the longest phase, each chunk adds
// a pass over the bucket table), then b's G2 MSM beside, then the aux
// MSMs' chunks largest first.
func besideLayouts(device int, c groth16.SectionCounts, m, nAux, nIn int, withABC bool) []besideLayout {
	z := newStreamedSizes(device, c, m, nAux, nIn)
	hPhase := z.hPhase(withABC)
	g2After := z.assignment + streamScratchBytes(device, native.G2, c.B, max(c.B, nAux), defaultChunks)
	auxChunks := []int64{512 << 20, 256 << 20, 128 << 20}
	var auxBeside [2][]int64 // by b's G2 MSM after (1) or beside (0), by auxChunks
	for _, a := range auxChunks {
		for after := range 2 {
			auxBeside[after] = append(auxBeside[after], auxScratchBytes(device, c, nAux, auxChunksOf(a), after == 0, besideMSMOptions...))
		}
	}
	var out []besideLayout
	for _, h := range []int64{1 << 30, 512 << 20, 256 << 20} {
		hChunks := streamChunks{g1: h, g2: defaultChunks.g2}
		hMSM := z.hMSM(hChunks)
		for after := range 2 {
			for i, a := range auxChunks {
				afterH := z.assignment + auxBeside[after][i]
				if after == 1 {
					afterH = max(afterH, g2After)
				}
				b := max(hPhase, hMSM+z.assignment+auxBeside[after][i], afterH)
				out = append(out, besideLayout{h: hChunks, aux: auxChunksOf(a), g2After: after == 1,
					bytes: b + poolGranules, afterH: afterH + poolGranules})
			}
		}
	}
	return out
}

// auxChunksOf is the aux MSMs' chunks beside the h MSM with G1 chunks of a
// bytes: G2's half as large, at most defaultChunks'.
func auxChunksOf(a int64) streamChunks { return streamChunks{g1: a, g2: min(a/2, defaultChunks.g2)} }

// chooseBeside picks the first of layouts (made only when needed) that
// fits budget as many times as a proof of after bytes (the aux MSMs after
// the h MSM) does, counting up to streamedOverlap: only a device that
// holds one streamed proof at a time runs them beside. ok is false when
// none does.
func chooseBeside(budget, after int64, layouts func() []besideLayout) (besideLayout, bool) {
	n := ProofsFit(budget, after, streamedOverlap)
	if n != 1 {
		return besideLayout{}, false
	}
	for _, l := range layouts() {
		if ProofsFit(budget, l.bytes, streamedOverlap) >= n {
			return l, true
		}
	}
	return besideLayout{}, false
}

// streamedPlan is what one streamed proof reserves on a device: after
// bytes with its aux MSMs after the h MSM, or beside's when the device
// runs them beside it (nil: it does not).
type streamedPlan struct {
	after  int64
	beside *besideLayout
}

// bytes is the proof's reservation.
func (s streamedPlan) bytes() int64 {
	if s.beside != nil {
		return s.beside.bytes
	}
	return s.after
}

// planStreamed is the plan of one streamed proof on a device of budget
// bytes (withABC: one that evaluates a, b, c on the device) that reserves
// after bytes with the aux MSMs after the h MSM.
func planStreamed(device int, budget int64, c groth16.SectionCounts, m, nAux, nIn int, withABC bool, after int64) streamedPlan {
	layouts := func() []besideLayout { return besideLayouts(device, c, m, nAux, nIn, withABC) }
	if l, ok := chooseBeside(budget, after, layouts); ok {
		return streamedPlan{after: after, beside: &l}
	}
	return streamedPlan{after: after}
}

// The streaming path evaluates a, b, c from pinned matrices in chunks of
// at most spmvChunkRows rows and spmvChunkTerms terms (about 2.5 terms a
// row in PoRep: a 32 GiB partition's three matrices in about 100 chunks),
// each copied into one of two device slots while the other's is evaluated;
// spmvSlotsBytes is the slots and the coefficient table (at most 2^16 Fr:
// its ids are 16-bit).
const (
	spmvChunkRows  = 1 << 22
	spmvChunkTerms = 1 << 24
	spmvSlotsBytes = 2*((spmvChunkRows+1)*4+spmvChunkTerms*6) + (1<<16)*frSize
)

// PinnedMatricesBytes is the pinned copy of compact matrices of bytes
// (pce's Bytes) that the streaming path evaluates them from: the same
// arrays, each chunk's row starts made relative (one more start a chunk)
// and aligned, within 1 MiB.
func PinnedMatricesBytes(bytes int64) int64 { return bytes + 1<<20 }

// streamedOverlap is how many streamed proofs a device usefully runs at
// once: one's H and h MSM beside the other's aux MSMs, which are bound by
// their copies.
const streamedOverlap = 2

// ProofsFit is how many proofs of proof bytes a device ledger of budget
// bytes holds at once, counting up to most; the others wait for memory
// (gpulock). 0 when not even one fits.
func ProofsFit(budget, proof int64, most int) int {
	return int(min(int64(most), budget/max(proof, 1)))
}

// hScratchBytes is the pool memory of H's NTT tables over domain m.
func hScratchBytes(m int) int64 {
	logM := uint32(bits.Len(uint(m)) - 1)
	if b, err := native.HScratchBytes(logM); err == nil {
		return b
	}
	return native.HScratchBound(logM)
}

// streamScratchBytes is the device memory of a streamed MSM over n points
// and ns canonical scalars beyond the scalars (its chunk buffers of chunks
// included), with opts: the library's answer on device (anyDevice: the
// most over the devices), native.MSMStreamScratchBound without it.
func streamScratchBytes(device int, g native.Group, n, ns int, chunks streamChunks, opts ...native.MSMOption) int64 {
	pointBytes := g1Bytes
	if g == native.G2 {
		pointBytes = g2Bytes
	}
	m := native.StreamedMSM{NBases: n, NScalars: ns, Canonical: true, ChunkPoints: chunks.points(pointBytes)}
	var most int64
	for _, d := range devicesFor(device) {
		b, err := native.MSMStreamScratchBytes(d, g, m, opts...)
		if err != nil {
			return native.MSMStreamScratchBound(g, m)
		}
		most = max(most, b)
	}
	if most == 0 {
		return native.MSMStreamScratchBound(g, m)
	}
	return most
}

// devicesFor lists the devices a resource query covers: device itself, or
// every visible one for anyDevice (none without the library).
func devicesFor(device int) []int {
	if device != anyDevice {
		return []int{device}
	}
	n, err := native.DeviceCount()
	if err != nil {
		return nil
	}
	ds := make([]int, n)
	for d := range n {
		ds[d] = d
	}
	return ds
}

// deviceMarginBytes is the VRAM a device's ledger leaves unbudgeted beside
// gpuc2's own reservations (the CUDA context, the driver, fragmentation):
// a sixteenth of the device, at least 1 GiB.
func deviceMarginBytes(total int64) int64 { return max(total/16, 1<<30) }

// PinnedPartitionBytes is the pinned host memory of one partition's
// vectors synthesized into PinnedVectors' memory: a witness-only one's
// aux (PinnedWitnessBytes), else a full assignment's (PinnedAssignmentBytes).
func PinnedPartitionBytes(sz synth.Sizes, witnessOnly bool) int64 {
	if witnessOnly {
		return PinnedWitnessBytes(sz)
	}
	return PinnedAssignmentBytes(sz)
}
