// Package gpu is the GPU side of Groth16: H and the five MSMs of a proof
// on CUDA devices through the native library, with synthesis and the final
// assembly on the CPU (the skeleton groth16's CPU prover runs too, in
// groth16/internal/prover). Its proofs equal groth16's CPU prover's for the
// same r and s.
//
// # One owner
//
// Open makes a Devices: every GPU of the process (Config.Ordinals), each
// with its VRAM ledger and compute lock (package gpulock) over its memory
// limit (Config.MemoryLimit, default the free memory less the resource
// model's margin), its resident keys and pinned staging, and the pinned
// host copies the devices share (a streamed key, streamed matrices, the
// witnesses' vectors: Vectors). Its methods act on every device at once:
// CheckKey, Preload, Evict, MatricesFit, PreloadMatrices, KeyHeld, States;
// Workers hands out the provers (a Device, a groth16.Prover) that proofs
// run on, several at once per device. Close frees it all.
//
// # One plan
//
// Plan decides device memory, and nothing else does: for a key's Shape, a
// memory limit and PlanOptions (workers, matrices, c's stage) it says the
// mode (resident: the key and one proof fit the limit; else streaming: the
// key in pinned host memory, streamed through the device per proof), what
// a proof reserves, what the device holds for good, how many proofs fit
// at once, the least limit that works, and the pinned host memory it
// takes. Each Device plans each key with it (NewPlan's figures on that
// device), and gpuc2's Requirements reads the same Plan.
//
// A resident key is uploaded once, by the first proof or Preload that
// needs it; proofs arriving meanwhile wait for that upload but return when
// their context ends, and retry if it fails. Evict and Close free a key
// once the proofs using it end, and cancel its upload if one runs. A
// streamed key is decoded once into pinned host memory, shared by the
// devices. Where two streamed proofs fit, one's aux MSMs run beside the
// other's H and h MSM; where one does, beside its own h MSM when the
// limit holds both.
//
// # Constraint matrices
//
// With groth16.WithMatrices a resident device keeps the matrices beside
// the key (PreloadMatrices, or the first such proof) and evaluates a, b, c
// itself, so only the witness is uploaded; a streaming device does too,
// the matrices streamed in chunks from one pinned copy, where a proof that
// holds its witness fits the limit as often as a plain one
// (Plan.MatricesOnDevice); elsewhere they are evaluated on the host. A
// witness synthesized into Vectors' memory (synth.NewWitnessAssignmentIn),
// or a full assignment's aux, a, b and c (synth.NewProvingAssignmentIn),
// reaches the device by one DMA each at the link's speed; any other vector
// goes through the device's staging chunks, which the CPU fills.
//
// A device out of memory is ErrOutOfDeviceMemory; use after Close,
// ErrClosed; without the native library, ErrCUDAUnavailable.
package gpu
