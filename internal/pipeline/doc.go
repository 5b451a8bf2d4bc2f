// Package pipeline is the facade's scheduler: it takes the partitions of
// every proof in flight through synthesis and proving under a host memory
// budget.
//
//	Enqueue ─▶ synthesis queue, in (proof, partition) order
//	             │ dispatch: an idle synthesis worker, room ahead of the provers,
//	             │ then the partition's bytes of the Budget (a spare assignment
//	             │ of its shape, if any)
//	             ▼
//	           synthesis workers (Config.Synthesis): Spec.Circuit(k).Synthesize
//	             ▼
//	           prover queue, in (proof, partition) order
//	             ▼
//	           prover workers (Config.Provers: per GPU, or on the CPU, and one
//	           more each for urgent partitions): Prove,
//	           then the bytes go back to the Budget, the assignment as a spare
//	             ▼
//	Collect ◀─ each partition's proof, in the order they finish
//
// A proof's partitions never wait behind those of a later proof, and one
// dispatcher reserves memory for one partition at a time, so the budget
// serves them in queue order too. The synthesis workers are bounded
// separately from the provers so that, with a GPU, the next partitions are
// synthesized while the current ones prove; the budget bounds what they all
// hold of the host (at 32 GiB about 20 GiB a partition, 4.2 GB for a
// witness-only one proved from the circuit's matrices, Spec.Matrices), and
// no more partitions are synthesized or waiting for a prover than there
// are synthesis workers, whatever room the budget leaves, and one more of a
// priority above the default: that one does not wait for a prover to take
// the partitions ahead of it. Such partitions have a synthesis worker of
// their own, and each device one more prover worker that proves only them,
// so they wait for no other partition's synthesis or proof to end (on a
// GPU they then go first for the device's memory and compute lock, and a
// resident proof yields between its sections: groth16.WithPriority), and
// the other syntheses yield to theirs (par.Urgent). With
// Config.Witness a witness-only partition is synthesized into that memory
// (pinned, for one DMA to the GPU), kept with its spare assignment and
// freed when the budget lets the assignment go.
//
// The first error of a job (a partition's, the caller's in Collect, or its
// context's end) cancels the job: its queued partitions are withdrawn, its
// running ones stop at their next check, and Collect returns once all have
// given their memory back. Close cuts every job short with ErrClosed.
//
// Every goroutine runs its work through par.Recover: a panic in a
// partition's synthesis or proof fails that job with an error holding the
// *par.PanicError; the pipeline goes on. Stage reports (Spec.Report), the
// prover's phases among them as each starts, come from the pipeline's
// goroutines, in each partition's order, and must not block. The package knows nothing of the facade: its callers map ErrBudget
// and ErrClosed onto their own errors.
package pipeline
