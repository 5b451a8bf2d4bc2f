package cuzk

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/expfmt"

	pb "github.com/gpuc2/gpuc2/cuzk/cuzkv1"
)

// metrics are the daemon's Prometheus metrics: its own counters and
// histograms, the Prover's state read at each scrape, and the Go runtime's
// and the process's (RSS among them).
type metrics struct {
	reg      *prometheus.Registry
	submits  *prometheus.CounterVec
	outcomes *prometheus.CounterVec
	stages   *prometheus.HistogramVec
	// completed and failed count as outcomes does, for GetStatus.
	completed, failed atomic.Uint64
}

// stage names of gpuc2d_stage_seconds, as AwaitProofResponse's timings.
// prove is gpu_compute_ms: H and the MSMs, on the GPUs or on the CPU as
// the backend says (gpuc2_backend_info).
const (
	stageQueueWait = "queue_wait"
	stageKeyLoad   = "key_load"
	stageSynthesis = "synthesis"
	stageProve     = "prove"
	stageTotal     = "total"
)

func newMetrics(s *Server) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.submits = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gpuc2d_proofs_submitted_total",
		Help: "Proof jobs accepted, by kind."}, []string{"kind"})
	m.outcomes = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gpuc2d_proofs_total",
		Help: "Proof jobs ended, by kind and outcome (completed, failed, cancelled)."}, []string{"kind", "outcome"})
	m.stages = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "gpuc2d_stage_seconds",
		Help: "Completed proofs' stage durations: queue_wait (entry into the pipeline to first synthesis), key_load " +
			"(waiting for parameters), synthesis and prove (H and the MSMs, on the GPUs or the CPU: gpuc2_backend_info; " +
			"summed over partitions), total (submit to end).",
		Buckets: prometheus.ExponentialBuckets(0.01, 2, 17)}, []string{"stage"})
	m.reg.MustRegister(m.submits, m.outcomes, m.stages, proverCollector{s},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) submitted(j *job) { m.submits.WithLabelValues(j.kind.String()).Inc() }

func (m *metrics) ended(j *job) {
	outcome := "failed"
	switch j.status {
	case pb.AwaitProofResponse_COMPLETED:
		outcome = "completed"
		m.completed.Add(1)
		t := j.timings
		for stage, d := range map[string]time.Duration{stageQueueWait: t.Wait, stageKeyLoad: t.ParamLoad,
			stageSynthesis: t.Synthesis, stageProve: t.Prove, stageTotal: j.finished.Sub(j.submitted)} {
			m.stages.WithLabelValues(stage).Observe(d.Seconds())
		}
	case pb.AwaitProofResponse_CANCELLED:
		outcome = "cancelled"
	default:
		m.failed.Add(1)
	}
	m.outcomes.WithLabelValues(j.kind.String(), outcome).Inc()
}

// totals are the completed and failed proofs so far.
func (m *metrics) totals() (completed, failed uint64) { return m.completed.Load(), m.failed.Load() }

// text is the metrics in Prometheus' text exposition format.
func (m *metrics) text() (string, error) {
	families, err := m.reg.Gather()
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, f := range families {
		if err := enc.Encode(f); err != nil {
			return "", err
		}
	}
	return buf.String(), nil
}

// GetMetrics returns the metrics in Prometheus' text format.
func (s *Server) GetMetrics(context.Context, *pb.GetMetricsRequest) (*pb.GetMetricsResponse, error) {
	text, err := s.metrics.text()
	if err != nil {
		return nil, err
	}
	return &pb.GetMetricsResponse{PrometheusText: text}, nil
}

// MetricsHandler serves the same metrics over HTTP, for a scraper.
func (s *Server) MetricsHandler() http.Handler {
	return promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})
}

// proverCollector reads the Prover's and the job table's state at each
// scrape.
type proverCollector struct{ s *Server }

var (
	descQueue = prometheus.NewDesc("gpuc2d_queue_jobs", "Unfinished jobs by kind and state (pending, in_progress).",
		[]string{"kind", "state"}, nil)
	descPartitions = prometheus.NewDesc("gpuc2_partitions", "Partitions in the pipeline by state.", []string{"state"}, nil)
	descGPUBusy    = prometheus.NewDesc("gpuc2_gpu_busy_seconds_total", "Wall time a GPU had a partition computing.",
		[]string{"gpu"}, nil)
	descGPUUpload = prometheus.NewDesc("gpuc2_gpu_upload_seconds_total", "Time spent in host-to-device uploads, all workers.",
		[]string{"gpu"}, nil)
	descGPUReserved = prometheus.NewDesc("gpuc2_gpu_memory_reserved_bytes", "Device memory reserved by proofs now (ledger).",
		[]string{"gpu"}, nil)
	descGPULimit = prometheus.NewDesc("gpuc2_gpu_memory_limit_bytes", "Device memory gpuc2 may use (-device-memory or default).",
		[]string{"gpu"}, nil)
	descHostBudget   = prometheus.NewDesc("gpuc2_host_budget_bytes", "Host memory budget of partition working sets.", nil, nil)
	descHostReserved = prometheus.NewDesc("gpuc2_host_reserved_bytes",
		"Host memory budget reserved by the proofs in the pipeline now (0 once every proof has ended).", nil, nil)
	descHostParked = prometheus.NewDesc("gpuc2_host_parked_bytes", "Host memory budget held by parked partition "+
		"working sets: allocated, kept after their proofs for the next partition of their shape, dropped when the "+
		"budget needs the room or the parameters are evicted.", nil, nil)
	descPinned   = prometheus.NewDesc("gpuc2_pinned_host_bytes", "Page-locked host memory held for GPU proving.", nil, nil)
	descKeyBytes = prometheus.NewDesc("gpuc2_loaded_key_bytes", "Loaded parameter files' sizes, by circuit and tier.",
		[]string{"circuit", "tier"}, nil)
	descUptime  = prometheus.NewDesc("gpuc2d_uptime_seconds", "Seconds since the daemon started.", nil, nil)
	descBackend = prometheus.NewDesc("gpuc2_backend_info", "Where H and the MSMs run: 1 for the backend in use (cpu or cuda).",
		[]string{"backend"}, nil)
)

func (c proverCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descQueue, descPartitions, descGPUBusy, descGPUUpload, descGPUReserved,
		descGPULimit, descHostBudget, descHostReserved, descHostParked, descPinned, descKeyBytes, descUptime, descBackend} {
		ch <- d
	}
}

func (c proverCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.s.prover.Status()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	queues := c.s.queues(st)
	for _, kind := range servedKinds {
		gauge(descQueue, float64(queues[kind].pending), kind.String(), "pending")
		gauge(descQueue, float64(queues[kind].running), kind.String(), "in_progress")
	}
	for state, n := range map[string]int{"queued": st.PartitionsQueued, "synthesizing": st.PartitionsSynthesizing,
		"waiting_prover": st.PartitionsWaitingProver, "proving": st.PartitionsProving} {
		gauge(descPartitions, float64(n), state)
	}
	for _, d := range st.Devices {
		gpu := strconv.Itoa(d.Ordinal)
		counter(descGPUBusy, d.Gate.ComputeBusy.Seconds(), gpu)
		counter(descGPUUpload, d.Gate.UploadTime.Seconds(), gpu)
		gauge(descGPUReserved, float64(d.Gate.ReservedBytes), gpu)
		gauge(descGPULimit, float64(d.Gate.MemoryLimitBytes), gpu)
	}
	gauge(descHostBudget, float64(st.HostBudgetBytes))
	gauge(descHostReserved, float64(st.HostReservedBytes-st.HostParkedBytes)) // the facade's count includes the parked
	gauge(descHostParked, float64(st.HostParkedBytes))
	gauge(descPinned, float64(st.PinnedHostBytes))
	for _, srs := range c.s.srsStatus(st.Keys) {
		if srs.Tier != pb.SRSStatus_COLD {
			gauge(descKeyBytes, float64(srs.SizeBytes), srs.CircuitId, srs.Tier.String())
		}
	}
	gauge(descUptime, time.Since(c.s.since).Seconds())
	gauge(descBackend, 1, string(st.Backend))
}
