package gpu

import (
	"context"
	"fmt"
	"math/bits"
	"time"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/gpulock"
	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/groth16/internal/prover"
	"github.com/gpuc2/gpuc2/internal/par"
	"github.com/gpuc2/gpuc2/native"
	"github.com/gpuc2/gpuc2/synth"
)

// proveStreamingWitness proves w (its input rows appended) on the
// streaming path. A witness-only w's a, b, c are evaluated on the device
// from its matrices streamed from pinned host memory when that costs the
// device none of its overlap (streamedMatricesFit), else on the host.
func (p *Device) proveStreamingWitness(ctx context.Context, pk *groth16.ProvingKey, w *synth.ProvingAssignment, cfg *prover.Settings) (*groth16.Proof, error) {
	var hm *pinnedMatrices
	src := prover.ABCHost
	if w.WitnessOnly() && p.plan(pk).streamedMatricesFit() {
		var release func()
		var err error
		if hm, release, err = p.pinnedMatricesFor(ctx, cfg.Matrices, cfg); err != nil {
			return nil, err
		}
		defer release()
		src = prover.ABCDevice
	}
	w, err := prover.ProofAssignment(ctx, w, cfg.Matrices, src)
	if err != nil {
		return nil, err
	}
	return p.proveStreaming(ctx, pk, w, hm, cfg)
}

// proveStreaming proves w (its input rows already appended) with the
// key's points in pinned host memory: the path of a device whose memory
// limit cannot hold the key. A witness-only w (its densities set) takes
// its a, b, c from hm's matrices. The proof equals the CPU prover's for
// the same r, s.
func (p *Device) proveStreaming(ctx context.Context, pk *groth16.ProvingKey, w *synth.ProvingAssignment, hm *pinnedMatrices, cfg *prover.Settings) (*groth16.Proof, error) {
	c, vk := pk.Counts(), pk.VerifyingKey()
	m, err := checkCounts(c, vk, w)
	if err != nil {
		return nil, err
	}
	// checkCounts ties m, the aux and inputs to the key; the room is what
	// resident keys and matrices leave of the limit now.
	plan := p.plan(pk).streamedIn(hm != nil, p.gate.MemoryLimit()-p.gate.Held())
	if plan.bytes() > p.gate.MemoryLimit() {
		return nil, fmt.Errorf("%w: GPU %d: a streamed proof needs %d bytes, the device's limit allows %d: %w",
			ErrOutOfDeviceMemory, p.device, plan.bytes(), p.gate.MemoryLimit(), gpulock.ErrTooLarge)
	}
	begin := time.Now()
	hk, release, err := p.pinnedKeyFor(ctx, pk)
	if err != nil {
		return nil, err
	}
	defer release()
	cfg.Report("key_pin", begin, "device", p.device, "bytes", groth16.KeyBytes(c))
	return p.proveStreamed(ctx, hk, hm, vk, w, m, plan, cfg)
}

// proveStreamed proves w over domain m with hk (and hm's matrices when not
// nil) as plan says: its reservation, its aux MSMs beside the h MSM or
// after it.
func (p *Device) proveStreamed(ctx context.Context, hk *pinnedKey, hm *pinnedMatrices, vk *groth16.VerifyingKey, w *synth.ProvingAssignment, m int, plan streamedPlan, cfg *prover.Settings) (*groth16.Proof, error) {
	sp := &streamedProof{deviceJob: p.deviceJob(cfg), p: p, hk: hk, hm: hm, w: w, m: m, bytes: plan.bytes(), beside: plan.beside}
	defer sp.close()
	return proveWith(ctx, cfg, vk, hk.counts, sp, "device", p.device, "mode", "streaming")
}

// streamedProof is one proof on the streaming path, a backend over
// gpulock.Job's steps like residentProof: prepare reserves the proof's
// largest phase, uploads a and b and takes the compute lock; H runs with
// two device vectors, c uploaded (by DMA from the device's pinned stage)
// once b's step has freed the second, with the lock suspended meanwhile;
// each MSM streams its section from pinned memory through chunk buffers on
// the copy stream. With matrices (hm), prepare uploads the witness instead
// and evaluates a and b from it on the device, as H does c; the witness is
// the aux MSMs' assignment too. The h MSM is bound by its kernels and runs
// under the lock; the aux MSMs are bound by their copies and run after it
// (Job.Stream), with the assignment uploaded once the h MSM has freed h,
// on a high-priority stream: their many short kernels (a chunk's split,
// sort and accumulation, each waited for) then take SMs as the next proof's long
// H and h MSM kernels free them instead of queueing behind each one (at
// normal priority, a 32 GiB partition's b_g2 MSM took 1.0 s beside another
// proof against 0.22 s alone: BENCHMARKS.md, issue 17). On a device that
// holds one streamed proof at a time nothing else would hide the aux MSMs'
// copies: there they run beside the same proof's h MSM, under its lock, on
// the high-priority stream with a copy stream of their own (besideLayout).
type streamedProof struct {
	deviceJob
	p      *Device
	hk     *pinnedKey
	hm     *pinnedMatrices // a, b, c evaluated on the device from these (nil: w's)
	w      *synth.ProvingAssignment
	m      int           // the domain
	bytes  int64         // the reservation: the largest phase
	beside *besideLayout // the aux MSMs beside the h MSM (nil: after it)

	proofMemory                // the locked phase's kernel stream and every buffer
	cs          *native.Stream // the copies'
	hs          *native.Stream // the aux phase's kernels (high priority)
	bs          *native.Stream // the copies of the aux MSMs beside the h MSM
	sums        *auxSums       // the aux MSMs' sums, once run beside the h MSM
	acc, x      *native.Buffer // H's two vectors: a, then h (canonical); b, then c
	aux, inputs *native.Buffer // the assignment, made canonical by the first aux MSM
	canonical   bool           // aux and inputs are canonical
	slots       *spmvSlots     // hm's evaluation, until c's
	stagedC     *native.Pinned // c's pinned copy, held until its upload (nil: none)
	released    bool           // the compute lock is released: the aux phase
}

func (sp *streamedProof) Prepare(ctx context.Context) error {
	// With matrices the witness is all the proof uploads: it is reserved
	// and uploaded ahead of the rest, beside the previous proof's aux MSMs
	// once that proof has given back its h MSM's memory (msmHBeside).
	witness := assignmentBytes(len(sp.w.Aux), len(sp.w.Inputs))
	if sp.hm != nil {
		if err := sp.reserveUpload(ctx, witness, sp.bytes-witness); err != nil {
			return err
		}
	} else if err := sp.reserve(ctx, sp.bytes); err != nil {
		return err
	}
	var err error
	if sp.st, err = native.NewStream(sp.device); err != nil {
		return err
	}
	if sp.cs, err = native.NewStream(sp.device); err != nil {
		return err
	}
	if sp.hs, err = native.NewHighPriorityStream(sp.device); err != nil {
		return err
	}
	if sp.beside != nil {
		if sp.bs, err = native.NewStream(sp.device); err != nil {
			return err
		}
	}
	// a and b before the lock: H's peak holds both vectors anyway.
	if sp.hm == nil {
		if err := sp.job.Upload(sp.uploadAB); err != nil {
			return fmt.Errorf("gpu: upload: %w", err)
		}
	} else {
		if err := sp.job.Upload(sp.uploadWitness); err != nil {
			return fmt.Errorf("gpu: upload: %w", err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := sp.extend(ctx, sp.bytes-witness); err != nil {
			return err
		}
		if err := sp.job.Upload(sp.evalAB); err != nil {
			return fmt.Errorf("gpu: upload: %w", err)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return sp.compute(ctx)
}

// uploadWitness allocates the assignment and uploads it (Montgomery form):
// a, b and c are evaluated from it.
func (sp *streamedProof) uploadWitness() error {
	if err := sp.allocAssignment(); err != nil {
		return err
	}
	return sp.fillAssignment(sp.st)
}

// uploadAB uploads a and b into H's two vectors.
func (sp *streamedProof) uploadAB() error {
	begin := time.Now()
	pinnedAB := true
	for _, x := range []struct {
		dst **native.Buffer
		v   []fr.Element
	}{{&sp.acc, sp.w.A}, {&sp.x, sp.w.B}} {
		b, err := sp.domainVector()
		if err != nil {
			return err
		}
		*x.dst = b
		pinned, err := sp.fill(sp.st, b, x.v)
		if err != nil {
			return err
		}
		pinnedAB = pinnedAB && pinned
	}
	sp.cfg.Report("upload", begin, "device", sp.device, "bytes", int64(len(sp.w.A)+len(sp.w.B))*frSize,
		"pinned_ab", pinnedAB)
	return nil
}

// evalAB evaluates a and b from the uploaded witness into H's two
// vectors.
func (sp *streamedProof) evalAB() error {
	begin := time.Now()
	var err error
	if sp.slots, err = newSpmvSlots(sp.st, sp.hm.ms, sp.alloc); err != nil {
		return err
	}
	for i, dst := range []**native.Buffer{&sp.acc, &sp.x} {
		if *dst, err = sp.domainVector(); err != nil {
			return err
		}
		if err := sp.hm.eval(sp.st, sp.cs, sp.slots, i, sp.witness(), *dst); err != nil {
			return err
		}
	}
	if err := sp.st.Sync(); err != nil {
		return err
	}
	sp.cfg.Report("abc_eval", begin, "device", sp.device, "rows", 2*sp.hm.ms.Rows())
	return nil
}

// witness is the uploaded assignment as the constraint evaluation reads it.
func (sp *streamedProof) witness() native.Witness {
	return native.Witness{Inputs: sp.inputs, Aux: sp.aux, NInputs: len(sp.w.Inputs), NAux: len(sp.w.Aux)}
}

// domainVector allocates a domain vector and waits for the allocation, so
// that the copy stream may fill it.
func (sp *streamedProof) domainVector() (*native.Buffer, error) {
	b, err := sp.alloc(int64(sp.m) * frSize)
	if err != nil {
		return nil, err
	}
	return b, sp.st.Sync()
}

// fill copies v into b on st, zeroes the rest and waits for it.
func (sp *streamedProof) fill(st *native.Stream, b *native.Buffer, v []fr.Element) (pinned bool, err error) {
	if pinned, err = sp.p.stage.uploadFr(st, b, 0, v); err != nil {
		return pinned, err
	}
	n := int64(len(v)) * frSize
	if err := st.Zero(b, n, b.Size()-n); err != nil {
		return pinned, err
	}
	return pinned, st.Sync()
}

// computeH runs H's three steps; c lands in b's vector once b's step is
// done: evaluated from the matrices (evalC) or uploaded (stageC).
func (sp *streamedProof) ComputeH(ctx context.Context) error {
	logM := uint32(bits.Len(uint(sp.m)) - 1)
	if err := sp.st.HStep(sp.acc, nil, logM, native.HStepA); err != nil {
		return fmt.Errorf("GPU %d: %w", sp.device, err)
	}
	if err := sp.st.HStep(sp.acc, sp.x, logM, native.HStepB); err != nil {
		return fmt.Errorf("GPU %d: %w", sp.device, err)
	}
	if sp.hm != nil {
		if err := sp.evalC(); err != nil {
			return err
		}
	} else if err := sp.stageC(ctx); err != nil {
		return err
	}
	if err := sp.st.HStep(sp.acc, sp.x, logM, native.HStepC); err != nil {
		return fmt.Errorf("GPU %d: %w", sp.device, err)
	}
	sp.x.Free() // in stream order, after the step
	if err := sp.st.FrFromMont(sp.acc, 0, sp.m-1); err != nil {
		return fmt.Errorf("GPU %d: %w", sp.device, err)
	}
	return sp.st.Sync()
}

// evalC evaluates c into x once b's step is done (under the compute lock:
// its kernels are short, its copies a third of the matrices), then frees
// the evaluation's slots for the h MSM.
func (sp *streamedProof) evalC() error {
	if err := sp.st.Sync(); err != nil { // b's step: the phase times the evaluation alone
		return err
	}
	begin := time.Now()
	if err := sp.hm.eval(sp.st, sp.cs, sp.slots, 2, sp.witness(), sp.x); err != nil {
		return err
	}
	sp.slots.free()
	if err := sp.st.Sync(); err != nil {
		return err
	}
	sp.cfg.Report("abc_eval", begin, "device", sp.device, "rows", sp.hm.ms.Rows())
	return nil
}

// stageC brings c into x once b's step is done: the cores copy it into the
// device's pinned stage while the step runs (unless it is pinned already:
// vectorStage.hold), then the copy stream uploads it with the compute lock
// suspended.
func (sp *streamedProof) stageC(ctx context.Context) error {
	begin := time.Now()
	staged, err := sp.p.lastStage.hold(ctx, sp.w.C)
	if err != nil {
		return err
	}
	if staged != nil {
		sp.stagedC = staged
		sp.cfg.Report("stage_c", begin, "device", sp.device, "bytes", int64(len(sp.w.C))*frSize)
	}
	if err := sp.st.Sync(); err != nil { // x is free again
		return err
	}
	return sp.suspend(ctx, sp.uploadC)
}

// uploadC brings c into x on the copy stream: one DMA from its stage,
// which it then hands on, or from its own pinned memory, or else through
// the staging chunks.
func (sp *streamedProof) uploadC() error {
	if sp.stagedC == nil {
		_, err := sp.fill(sp.cs, sp.x, sp.w.C)
		return err
	}
	n := int64(len(sp.w.C)) * frSize
	err := sp.cs.CopyToDeviceAsync(sp.x, 0, sp.stagedC, 0, n)
	if err == nil {
		err = sp.cs.Zero(sp.x, n, sp.x.Size()-n)
	}
	if serr := sp.cs.Sync(); err == nil {
		err = serr
	}
	sp.releaseC()
	return err
}

// releaseC hands c's stage on, once no copy reads it.
func (sp *streamedProof) releaseC() {
	if sp.stagedC != nil {
		sp.stagedC = nil
		sp.p.lastStage.release()
	}
}

func (sp *streamedProof) MSMH(ctx context.Context) (bls12381.G1Jac, error) {
	if err := ctx.Err(); err != nil {
		return bls12381.G1Jac{}, err
	}
	if sp.beside != nil {
		return sp.msmHBeside(ctx)
	}
	return sp.msmHAlone(defaultChunks)
}

// msmHAlone runs the h MSM with chunks, then frees h.
func (sp *streamedProof) msmHAlone(chunks streamChunks) (bls12381.G1Jac, error) {
	n := sp.m - 1
	r, err := sp.st.MSMG1Streamed(sp.cs, sp.hk.msm(groth16.SectionH, 0, n, sp.acc, n, nil, chunks), hMSMOptions...)
	sp.acc.Free() // h is done: room for the assignment
	if err != nil {
		return r, fmt.Errorf("streamed G1 MSM on GPU %d: %w", sp.device, err)
	}
	return r, nil
}

// auxSums are the aux MSMs' sums, run beside the h MSM (b2 when hasB2: b's
// G2 MSM may run after it).
type auxSums struct {
	l, a, b1 bls12381.G1Jac
	b2       bls12381.G2Jac
	hasB2    bool
}

// msmHBeside runs the aux MSMs (all but b's G2 MSM when the layout runs it
// after) on the aux phase's stream and a copy stream of their own, from a
// goroutine, while the h MSM runs on the proof's streams; both hold the
// compute lock, and the reservation covers both (besideLayout). The
// assignment's buffers are allocated first, on the proof's stream.
func (sp *streamedProof) msmHBeside(ctx context.Context) (bls12381.G1Jac, error) {
	if sp.aux == nil {
		if err := sp.allocAssignment(); err != nil {
			return bls12381.G1Jac{}, err
		}
	}
	var sums auxSums
	done := make(chan error, 1)
	go func() {
		done <- par.Recover(func() error { return sp.auxBeside(ctx, &sums) })
	}()
	r, err := sp.msmHAlone(sp.beside.h)
	if err == nil {
		err = sp.releaseH()
	}
	if aerr := <-done; err == nil {
		err = aerr
	}
	if err != nil {
		return r, err
	}
	sp.sums = &sums
	return r, nil
}

// releaseH gives back what the proof no longer needs once its h MSM is
// done (besideLayout.afterH), after waiting for the frees of h and the
// MSM's scratch: the next proof's witness can then be reserved and
// uploaded while the aux MSMs run.
func (sp *streamedProof) releaseH() error {
	if err := sp.st.Sync(); err != nil {
		return err
	}
	if b := sp.beside.releasedAfterH(); b > 0 {
		return sp.job.Shrink(b)
	}
	return nil
}

// auxBeside readies the assignment and runs the aux MSMs beside the h MSM
// into sums, reported as one phase.
func (sp *streamedProof) auxBeside(ctx context.Context, sums *auxSums) error {
	begin := time.Now()
	if err := sp.assignment(); err != nil {
		return err
	}
	g1 := func(s int, dst *bls12381.G1Jac) (err error) {
		*dst, err = sumMSMs(ctx, sp, "G1", (*native.Stream).MSMG1Streamed, sp.bs, sp.auxParts(s, sp.beside.aux),
			besideMSMOptions...)
		return err
	}
	for _, x := range []struct {
		s   int
		dst *bls12381.G1Jac
	}{{groth16.SectionL, &sums.l}, {groth16.SectionA, &sums.a}, {groth16.SectionBG1, &sums.b1}} {
		if err := g1(x.s, x.dst); err != nil {
			return err
		}
	}
	if !sp.beside.g2After {
		var err error
		if sums.b2, err = sumMSMs(ctx, sp, "G2", (*native.Stream).MSMG2Streamed, sp.bs, sp.auxParts(groth16.SectionBG2, sp.beside.aux),
			besideMSMOptions...); err != nil {
			return err
		}
		sums.hasB2 = true
	}
	sp.cfg.Report("aux_beside", begin, "device", sp.device, "h_chunk", sp.beside.h.g1, "aux_chunk", sp.beside.aux.g1,
		"g2_after", sp.beside.g2After)
	return nil
}

// assignment readies aux and the inputs for the aux MSMs once, in
// canonical form, on the aux phase's stream: uploaded there unless the
// constraint evaluation already did.
func (sp *streamedProof) assignment() error {
	if sp.canonical {
		return nil
	}
	if sp.aux == nil {
		if err := sp.allocAssignment(); err != nil {
			return err
		}
	}
	if sp.hm == nil { // with matrices, evalAB uploaded the witness
		if err := sp.fillAssignment(sp.hs); err != nil {
			return err
		}
	}
	for _, x := range []struct {
		b *native.Buffer
		n int
	}{{sp.aux, len(sp.w.Aux)}, {sp.inputs, len(sp.w.Inputs)}} {
		if err := sp.hs.FrFromMont(x.b, 0, x.n); err != nil {
			return err
		}
	}
	sp.canonical = true
	return sp.hs.Sync()
}

// allocAssignment allocates aux and the inputs on the proof's stream (so
// that every buffer is freed alike) and waits for it, so that another
// stream may fill them.
func (sp *streamedProof) allocAssignment() error {
	for _, x := range []struct {
		dst **native.Buffer
		n   int
	}{{&sp.aux, len(sp.w.Aux)}, {&sp.inputs, len(sp.w.Inputs)}} {
		b, err := sp.alloc(max(int64(x.n), 1) * frSize)
		if err != nil {
			return err
		}
		*x.dst = b
	}
	return sp.st.Sync()
}

// fillAssignment uploads aux and the inputs on st in Montgomery form: the
// proof's "upload" phase.
func (sp *streamedProof) fillAssignment(st *native.Stream) error {
	begin := time.Now()
	w := sp.w
	pinnedAux, err := sp.p.stage.uploadFr(st, sp.aux, 0, w.Aux)
	if err != nil {
		return err
	}
	if _, err := sp.p.stage.uploadFr(st, sp.inputs, 0, w.Inputs); err != nil {
		return err
	}
	if err := st.Sync(); err != nil {
		return err
	}
	sp.cfg.Report("upload", begin, "device", sp.device, "bytes", int64(len(w.Aux)+len(w.Inputs))*frSize,
		"pinned_aux", pinnedAux)
	return nil
}

// auxPhase runs f, MSMs over the assignment, after the compute lock
// (gpulock's Stream step): they are bound by the copies of their points,
// their kernels small beside them, so the next proof's H and h MSM run
// meanwhile. The first call releases the lock and uploads the assignment.
func (sp *streamedProof) auxPhase(f func() error) error {
	if !sp.released {
		if err := sp.job.EndCompute(); err != nil {
			return err
		}
		sp.released = true
	}
	return sp.job.Stream(func() error {
		if err := sp.assignment(); err != nil {
			return err
		}
		return f()
	})
}

// streamedSum is section s's MSMs over the assignment (auxParts): their sum
// from beside the h MSM when it is there (beside's ok), else run with msm
// in the aux phase.
func streamedSum[J any, PJ interface {
	*J
	AddAssign(*J) *J
}](ctx context.Context, sp *streamedProof, s int, group string,
	msm func(*native.Stream, *native.Stream, native.StreamedMSM, ...native.MSMOption) (J, error),
	beside func(*auxSums) (J, bool)) (J, error) {
	if sp.sums != nil {
		if sum, ok := beside(sp.sums); ok {
			return sum, nil
		}
	}
	var sum J
	err := sp.auxPhase(func() (err error) {
		sum, err = sumMSMs[J, PJ](ctx, sp, group, msm, sp.cs, sp.auxParts(s, defaultChunks))
		return err
	})
	return sum, err
}

// sumMSMs runs parts' MSMs with msm and opts on the aux phase's stream,
// their copies on cs, and adds them up.
func sumMSMs[J any, PJ interface {
	*J
	AddAssign(*J) *J
}](ctx context.Context, sp *streamedProof, group string,
	msm func(*native.Stream, *native.Stream, native.StreamedMSM, ...native.MSMOption) (J, error),
	cs *native.Stream, parts []native.StreamedMSM, opts ...native.MSMOption) (J, error) {
	var sum J
	for _, m := range parts {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		r, err := msm(sp.hs, cs, m, opts...)
		if err != nil {
			return sum, fmt.Errorf("streamed %s MSM on GPU %d: %w", group, sp.device, err)
		}
		PJ(&sum).AddAssign(&r)
	}
	return sum, nil
}

// auxParts describes section s's MSMs over the assignment, through chunk
// buffers of chunks: the inputs' points come first in each section, then
// the aux's. Inputs are dense in A (the input rows) and l has none; the
// aux follow the A density in a, the B densities in b.
func (sp *streamedProof) auxParts(s int, chunks streamChunks) []native.StreamedMSM {
	w, nIn := sp.w, len(sp.w.Inputs)
	aux := func(first, count int, density []uint64) native.StreamedMSM {
		return sp.hk.msm(s, first, count, sp.aux, len(w.Aux), density, chunks)
	}
	inputs := func(count int, density []uint64) native.StreamedMSM {
		return sp.hk.msm(s, 0, count, sp.inputs, nIn, density, chunks)
	}
	switch s {
	case groth16.SectionL:
		return []native.StreamedMSM{aux(0, len(w.Aux), nil)}
	case groth16.SectionA:
		return []native.StreamedMSM{inputs(nIn, nil), aux(nIn, w.AAux.Count(), w.AAux.Words)}
	default: // groth16.SectionBG1, groth16.SectionBG2
		bIn := w.BInput.Count()
		return []native.StreamedMSM{inputs(bIn, w.BInput.Words), aux(bIn, w.BAux.Count(), w.BAux.Words)}
	}
}

func (sp *streamedProof) MSML(ctx context.Context) (bls12381.G1Jac, error) {
	return streamedSum(ctx, sp, groth16.SectionL, "G1", (*native.Stream).MSMG1Streamed,
		func(s *auxSums) (bls12381.G1Jac, bool) { return s.l, true })
}

func (sp *streamedProof) MSMA(ctx context.Context) (bls12381.G1Jac, error) {
	return streamedSum(ctx, sp, groth16.SectionA, "G1", (*native.Stream).MSMG1Streamed,
		func(s *auxSums) (bls12381.G1Jac, bool) { return s.a, true })
}

func (sp *streamedProof) MSMBG1(ctx context.Context) (bls12381.G1Jac, error) {
	return streamedSum(ctx, sp, groth16.SectionBG1, "G1", (*native.Stream).MSMG1Streamed,
		func(s *auxSums) (bls12381.G1Jac, bool) { return s.b1, true })
}

func (sp *streamedProof) MSMBG2(ctx context.Context) (bls12381.G2Jac, error) {
	return streamedSum(ctx, sp, groth16.SectionBG2, "G2", (*native.Stream).MSMG2Streamed,
		func(s *auxSums) (bls12381.G2Jac, bool) { return s.b2, s.hasB2 })
}

// Yield lets a proof of a higher priority (a WinningPoSt's) compute
// between this one's H and its h MSM (the streamed MSMs that follow run
// without the compute lock or are done by then): its wait for the lock is
// then at most the h MSM's, not the partition's. The sections end
// synchronized, and this proof's memory stays its own.
func (sp *streamedProof) Yield(ctx context.Context) error { return sp.yield(ctx) }

// finish releases the compute lock if the aux phase has not, then frees
// the buffers in stream order and waits, so that the reservation ends
// after the memory is back.
func (sp *streamedProof) Finish() error {
	if !sp.released {
		if err := sp.job.EndCompute(); err != nil {
			return err
		}
		sp.released = true
	}
	return sp.job.ReadBack(sp.readBack)
}

// close frees what is left, waits for its streams and destroys them, then
// ends the job.
func (sp *streamedProof) close() {
	if sp.cs != nil {
		sp.cs.Sync() // no copy may still write a buffer freed below
	}
	if sp.bs != nil {
		sp.bs.Sync() // nor any copy beside the h MSM
	}
	if sp.hs != nil {
		sp.hs.Sync() // nor any aux-phase kernel read one
	}
	sp.releaseC() // after the copy stream's wait: no DMA reads it now
	sp.freeBuffers()
	sp.cs.Close()
	sp.bs.Close()
	sp.hs.Close()
	sp.st.Close()
	sp.done()
}
