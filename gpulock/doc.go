// Package gpulock is the per-device VRAM/compute protocol that lets several
// proving workers share one GPU and overlap one worker's uploads with another's
// kernels, without the two failures of the design it replaces (memory
// "reserved" only while a mutex was held, so a second worker's buffers landed
// on the first's; device-global calls inside the memory lock that waited on
// the other worker's kernels).
//
// Per device there are two independent gates:
//
//   - a VRAM ledger of Config.MemoryLimit bytes, every device allocation
//     (a resident key, each proof's working set) counted against it. Reserve
//     blocks, first come first served and cancellable, until the bytes are
//     free, and the Reservation is held until the worker's buffers are
//     really freed. A request larger than the limit fails at once with
//     ErrTooLarge, as does one larger than what the held reservations
//     leave of it: Job.Hold marks a reservation long-lived (a resident key
//     or matrices, given back only when evicted), and waiting for those
//     would wait for ever.
//   - a compute lock of configurable width (default 1), held only while the
//     worker's kernels run.
//
// Both serve their waiters first come first served within a priority: a
// job made with NewPriorityJob (a WinningPoSt's proof) goes before every
// waiting job of a lower one, to reserve and to compute. It takes bytes
// free now at once, ahead of a job that holds the ledger's turn and waits
// for more; otherwise it waits for the turn's holder and for its bytes. A
// computing job lets it compute between its kernels (Yield). A held
// reservation may be set aside for such jobs (Job.SetAside: one proof's
// memory beside a WinningPoSt's resident key): they take from it first, so
// one of them never waits for memory other jobs hold, and the others
// never get it.
//
// A Job walks the fixed order reserve → upload → compute → release compute →
// [stream →] read back → release reservation, and refuses any other order
// (ErrOrder); Stream is copy-bound device work after the compute lock (MSMs
// over points streamed from host memory), overlapping the next job's
// kernels, and Suspend lets a computing job give the lock up while it copies
// what its next kernels need, then queue for it again. In particular a job
// never waits for memory while holding the compute lock, so the two gates
// cannot deadlock. The package never calls the GPU: the caller's
// allocations come from its own arenas, and gpulock only accounts for them.
//
// Where one job's memory fills the ledger, the next one's upload could
// only follow its end. A job may instead reserve its upload ahead
// (ReserveUpload), upload while another job computes, and reserve the rest
// (Extend) before it computes; a computing job gives back what it has
// freed (Shrink). Between ReserveUpload and Extend the job holds the
// ledger's turn, which every reservation takes: so one job at most holds
// part of what it needs, and it waits only on jobs that need nothing more.
//
//	dev, err := gpulock.NewDevice(gpulock.Config{Ordinal: 0, MemoryLimit: limit})
//	…
//	job := dev.NewJob()
//	defer job.Done()                       // releases whatever is still held
//	if err := job.Reserve(ctx, bytes); err != nil { … }      // or ReserveUpload(ctx, upload, rest)
//	if err := job.Upload(func() error { … }); err != nil { … } // copy stream, overlaps others' compute
//	                                                          // then Extend(ctx), after ReserveUpload
//	if err := job.Compute(ctx); err != nil { … }
//	… kernels …                                               // Shrink(bytes) as buffers are freed
//	if err := job.EndCompute(); err != nil { … }
//	if err := job.ReadBack(func() error { … }); err != nil { … }
//	job.Done()
//
// TryReserve is Reserve that never blocks: it takes only bytes free now,
// with no job waiting before it, for long-lived reservations such as a
// resident key.
//
// Metrics (wait and hold times, bytes reserved, upload/compute overlap, busy
// fraction) are kept per device so benchmarks can show the overlap instead of
// assuming it. Everything is safe for concurrent use; the package is pure Go.
package gpulock
