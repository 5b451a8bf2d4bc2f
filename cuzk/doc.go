// Package cuzk serves Curio's proving-daemon protocol
// (cuzk.v1.ProvingEngine over gRPC, package cuzkv1) over a gpuc2.Prover: the
// service behind examples/gpuc2d. It adds no pipeline of its own: every job
// is one Prover.ProveSeal or Prover.ProveUpdate call, whose partitions
// queue in the Prover's pipeline by priority; the service keeps the jobs
// (for idempotent submits, awaits and cancels), answers status from
// Prover.Status, and counts metrics for Prometheus.
//
// What it serves: POREP_SEAL_COMMIT for every V1, V1_1 and synthetic
// RegisteredSealProof (NI-PoRep types fail with the library's
// ErrUnsupported text), and SNAP_DEALS_UPDATE for every
// RegisteredUpdateProof, as Curio's ProveUpdateCuzk sends it: the partition
// proofs in vanilla_proofs, comm_r_old, comm_r_new and comm_d_new as 32 raw
// bytes or binary CIDs. Their circuits are porep-2k … porep-64g and
// snap-2k … snap-64g. WINDOW_POST_PARTITION and WINNING_POST are refused
// with the gRPC status Unimplemented, naming the kind: Curio's client turns
// that into a task error at once, no job is made and no proof counted as
// failed. Curio sends them whenever its [Cuzk] Address is set, without a
// fallback, so a node pointed here must run no PoSt ([Subsystems]
// EnableWindowPost and EnableWinningPost false; README.md).
package cuzk
