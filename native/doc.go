// Package native loads gpuc2's CUDA backend, libgpuc2cuda.so, at run time and
// exposes its devices and kernels with Go types.
//
// It is the only package of the module that imports "C", and it uses cgo only
// for dlopen/dlsym: building it needs a C compiler and dlfcn.h, never CUDA.
// Without the library (or without a GPU) every function returns
// ErrNotAvailable and callers fall back to the CPU. Built without cgo
// (CGO_ENABLED=0), the package keeps the same API and behaves as if the
// library were missing, so the CPU prover builds as pure Go.
//
// # Loading
//
// Load (called implicitly by every entry) looks for the library, in order, at
// the path in GPUC2_NATIVE_LIB, beside the running executable, and on the
// dynamic linker's search path, and checks the ABI version (ABIVersion) of its
// function table (include/gpuc2.h). When none loads, its error names each
// place tried and why that failed (no such file, dlopen's message, an ABI
// mismatch, no CUDA device). Build the library with
//
//	make -C native            # native/build/libgpuc2cuda.so, nvcc >= 11.8
//
// # Usage
//
//	if native.Available() {
//		res, err := native.MSMG1(0, bases, scalars, nil) // bls12381.G1Jac
//		...
//	}
//
// cuda.Engine{Device: 0} (package msm/cuda) wraps MSMG1/MSMG2 as an
// msm.Engine.
//
// # Data
//
// Field elements, points and scalars are gnark-crypto's types and pass to the
// GPU unchanged (Montgomery form, little-endian 64-bit limbs). Every call
// names its device by ordinal.
//
// Two kinds of entries:
//   - host-pointer calls (MSMG1, MSMG2, H, FixedBaseG1, FixedBaseG2) are
//     synchronous: Go slices are read or written only during the call;
//   - the stream API (Stream, Buffer, Pinned, Stream.MSMG1, HDevice…) keeps
//     data on the device across calls and enqueues work on explicit
//     streams, so one worker's uploads overlap another's kernels. Temporaries
//     come from the device's stream-ordered pool; nothing synchronizes the
//     whole device. groth16/gpu's Device is built on it.
//
// Host memory reaches a stream in two ways. Stream.CopyToDevice and
// CopyToHost take byte slices (AsBytes views []fr.Element and point slices)
// and return when the copy is done, so the slice may be reused at once.
// Stream.CopyToDeviceAsync takes Pinned memory and returns at once: the
// copy runs by DMA while the caller goes on, and the Pinned must stay
// allocated and unchanged until the stream has passed it (Sync).
//
// # Tuning and memory
//
// MSMs take options (WithWindow, WithTrace, WithoutSplit) for experiments
// and benchmarks; the library reads no environment variables. What an MSM
// allocates on the device beyond its inputs is MSMScratchBytes (the
// library's own answer, for its window choice) or, without a library,
// MSMScratchBound (an upper bound from the header's limits).
//
// # Errors
//
// A failing native call returns *Error with the library's status Code and
// message; errors.Is(err, ErrOutOfMemory) and errors.Is(err, ErrNotSupported)
// work on it.
//
// # Concurrency
//
// All functions are safe for concurrent use. Host-pointer calls run on the
// calling thread's default stream; a Stream and its buffers belong to one
// goroutine at a time.
package native

// The field constants and PTX field kernels of the CUDA sources are derived
// from gnark-crypto (the test of internal/gen fails when they are stale).
//go:generate go run ./internal/gen -constants cuda/constants.cuh
