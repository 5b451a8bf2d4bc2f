// Package cuzk serves Curio's proving-daemon protocol
// (cuzk.v1.ProvingEngine over gRPC, package cuzkv1) over a gpuc2.Prover: the
// service behind examples/gpuc2d. It adds no pipeline of its own: every job
// is one Prover.ProveSeal, Prover.ProveUpdate or Prover.ProvePoSt call,
// whose partitions queue in the Prover's pipeline by priority; the service
// keeps the jobs (for idempotent submits, awaits and cancels), answers
// status from Prover.Status, and counts metrics for Prometheus.
//
// What it serves: the four kinds Curio sends. POREP_SEAL_COMMIT for every
// RegisteredSealProof; the answer is SealCommitPhase2's bytes (for
// NI-PoRep types the SnarkPack aggregate of the partition proofs, which
// needs gpuc2.SRSFileName beside the parameters). SNAP_DEALS_UPDATE for every
// RegisteredUpdateProof, as Curio's ProveUpdateCuzk sends it: the partition
// proofs in vanilla_proofs, comm_r_old, comm_r_new and comm_d_new as 32 raw
// bytes or binary CIDs. WINDOW_POST_PARTITION and WINNING_POST for the
// RegisteredPoStProof types the facade serves (gpuc2.PoStProofCircuit), as
// Curio's WindowPoStCuzk (priority HIGH) and WinningPoStCuzk (CRITICAL) send
// them: the 32-byte randomness, one vanilla proof per sector in
// vanilla_proofs, a WindowPoSt's partition_index; the answer is the
// partition's 192-byte proof. A PoSt whose sectors' vanilla proofs do not
// hold fails with the facade's gpuc2.FaultySectorsError, whose text (the
// job's error_message) lists the faulty sector numbers. The circuits, with
// their ids (porep-2k … porep-64g, snap-2k … snap-64g, and the PoSt ones),
// are the facade's table, gpuc2.Circuits.
package cuzk
