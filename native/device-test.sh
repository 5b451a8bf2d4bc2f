#!/usr/bin/env bash
# Runs gpuc2's native GPU tests and benchmarks on a machine with a CUDA GPU,
# in one go, and writes logs and a markdown table (bench.md) to $OUT.
#
# Prepare on a build machine (Go is not needed on the GPU machine):
#   make -C native ARCHS="-gencode arch=compute_90,code=sm_90"     # or build there
#   mkdir -p .dev && cp native/build/libgpuc2cuda.so .dev/
#   CGO_ENABLED=1 go test -c -o .dev/native.test ./native
#   CGO_ENABLED=1 go test -c -o .dev/msm.test ./msm/cuda
#   CGO_ENABLED=1 go test -c -o .dev/gpu.test ./groth16/gpu      # for stream, partition, sector
#   go test -c -o .dev/stacked.test ./synth/stacked; go test -c -o .dev/sha256.test ./synth/gadgets/sha256  # synth
#   CGO_ENABLED=1 go test -c -o .dev/gpuc2.test .                 # for facade
#   CGO_ENABLED=1 go test -c -o .dev/update.test ./synth/update   # for update
#   CGO_ENABLED=1 go test -c -o .dev/post.test ./synth/post       # for post (and gpuc2.test, testsetup -post)
#   CGO_ENABLED=1 go build -ldflags='-s -w' -o .dev/testsetup ./examples/testsetup   # for facade-sector
#   CGO_ENABLED=1 go build -ldflags='-s -w' -o .dev/c2prove ./examples/c2prove
#   CGO_ENABLED=1 go build -ldflags='-s -w' -o .dev/gpuc2d ./examples/gpuc2d; go build -ldflags='-s -w' -o .dev/cuzkclient ./examples/cuzkclient  # daemon
# (add -ldflags='-s -w' to keep .dev under the carry limit)
# Then on the GPU machine, from the repository root:
#   native/device-test.sh [tests] [stream] [sanitize] [racecheck] [bench] [big] [windows] [ncu] [partition] [synth]
#                         [facade] [sector] [facade-sector] [update] [daemon] [post]
#   (default: tests sanitize bench)
# "big" adds the 2^24-class sizes to the correctness tests (GPUC2_TEST_BIG=1);
# "windows" times the MSMs ${WINDOW_SIZES:-g1-24} (g1-K / g2-K: G1 / G2 at 2^K) at forced window sizes
# ${WINDOWS:-15 16 18 20} (GPUC2_BENCH_WINDOW, which TestBenchTable passes as native.WithWindow); "ncu" reads the hardware counters of one level-1
# accumulation launch for each of ${NCU_SIZES:-g1-24 g2-22};
# "stream" runs the stream-API tests and the GPU prover's tests (workers,
# cancellation loop); "racecheck" runs compute-sanitizer's racecheck on the
# kernels; "partition" times GPU proofs of a synthetic ${PARTITION:-32GiB}
# partition with ${PARTITION_WORKERS:-1,2,3} workers on ${PARTITION_DEVICES:-1} GPU(s), compute
# width ${PARTITION_WIDTH:-1} (trace in partition-trace.json); "synth"
# times witness synthesis of a 32 GiB partition with 1 and 16 workers (fresh
# and reused buffers) and the SHA-256 gadget; "facade" runs the root package's
# GPU tests (gpuc2.test); "sector" sets up, proves and verifies whole synthetic
# ${SECTOR:-32GiB} sectors (${SECTOR_COUNT:-1} proofs, ${SECTOR_WORKERS:-1} GPU workers), the key in
# memory; "facade-sector" writes a TEST-ONLY ${FACADE_SIZE:-32GiB} setup made on the GPU to a .params
# file (./testsetup, ~47 GB at 32 GiB, in ${FACADE_CACHE:-.dev/facade-cache}, deleted at the end) and
# proves ${FACADE_COUNT:-3} synthetic sectors from that file through the facade in another process
# (./c2prove, ${FACADE_WORKERS:-2} GPU workers), once per device memory limit in ${FACADE_LIMITS:-unlimited}
# (e.g. "16GiB 24GiB 48GiB unlimited": c2prove -device-memory; FACADE_UPDATE=1 proves SnapDeals updates instead, -update; FACADE_FLAGS adds c2prove flags, such as
# -matrices=false, and FACADE_TAG a suffix to the run's file names): peak VRAM sampled by nvidia-smi, GPU
# busy and PCIe rx by nvidia-smi dmon, peak RSS by GNU time and its moment by sampling (ps). "partition" with PARTITION_LIMITS (e.g.
# 16GiB,24GiB) also streams the tiled key from pinned memory under each limit and checks the proofs
# against the resident one's. "update" proves a synthetic SnapDeals update partition
# (${UPDATE_SIZE:-8MiB}; 32GiB: one partition of 81 M constraints) on the GPU, resident and streamed,
# under a TEST-ONLY setup made on the GPU, against the CPU's proof for the same r, s (byte-identical),
# then times the witness synthesis of a 32 GiB update partition (the 16 cores). FACADE_KEEP=1 keeps the setup file; FACADE_REUSE=1 uses one found in
# FACADE_CACHE instead of making it (consecutive calls on a machine still warm). PACK=1 packs every
# log and trace but summary.txt into $OUT/logs.tgz.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/.dev/out}
DEV=${DEV:-.dev}
mkdir -p "$OUT"
steps="${*:-tests sanitize bench}"
has() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
summary="$OUT/summary.txt"
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }
# "(P pass, F fail, S skip)" of a go test -v log.
counts() { echo "($(grep -c -- '--- PASS' "$1") pass, $(grep -c -- '--- FAIL' "$1") fail, $(grep -c -- '--- SKIP' "$1") skip)"; }
# Peak host memory where GNU time exists.
timev() { if [ -x /usr/bin/time ]; then /usr/bin/time -v "$@"; else "$@"; fi; }
# GPU memory used, sampled every 2 s into $1 until vram_stop; vram_peak $1 prints the largest sample (MiB).
vram_start() {
	nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -l 2 >"$1" 2>/dev/null &
	vram_pid=$!
}
vram_stop() { kill "$vram_pid" 2>/dev/null; wait "$vram_pid" 2>/dev/null; }
vram_peak() { awk '$1 + 0 > m { m = $1 + 0 } END { print m + 0 }' "$1"; }
# Resident memory of the processes named $2, sampled every second into $1 ("seconds-since-start KiB")
# until rss_stop; rss_peak $1 prints the largest sample in GiB and when it was taken, so that a run's
# peak can be matched to its progress lines ("progress 154.5 s: …").
rss_start() {
	(t=0; while sleep 1; do t=$((t + 1)); echo "$t $(ps -C "$2" -o rss= | awk '{ s += $1 } END { print s + 0 }')"; done) >"$1" 2>/dev/null &
	rss_pid=$!
}
rss_stop() { kill "$rss_pid" 2>/dev/null; wait "$rss_pid" 2>/dev/null; }
rss_peak() { awk '$2 + 0 > m { m = $2 + 0; t = $1 } END { printf "%.1f GiB at %d s", m / 1048576, t }' "$1"; }

if [ ! -f "$DEV/libgpuc2cuda.so" ]; then
	note "building libgpuc2cuda.so with $(nvcc --version | tail -1)"
	t0=$(date +%s)
	make -C native -j4 ARCHS="-gencode arch=compute_90,code=sm_90" EXTRA_NVFLAGS="--threads 0" >"$OUT/build.log" 2>&1 || {
		note "BUILD FAILED"
		tail -30 "$OUT/build.log"
		exit 1
	}
	mkdir -p "$DEV" && cp native/build/libgpuc2cuda.so "$DEV/"
	note "built in $(($(date +%s) - t0)) s"
fi
export GPUC2_NATIVE_LIB="$PWD/$DEV/libgpuc2cuda.so"
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,driver_version --format=csv >>"$summary" 2>&1
if has big; then export GPUC2_TEST_BIG=1; fi

rc=0
if has tests; then
	t0=$(date +%s)
	"$DEV/native.test" -test.v -test.timeout 20m -test.run 'Test(Devices|ErrorIs|NTT|H|FixedBase|MSMOptions|MSMScratchCoversPeak|StreamedMSMEqualsDevice|HStepEqualsHDevice)$' >"$OUT/native-test.log" 2>&1
	r=$?
	note "native tests: rc=$r $(counts "$OUT/native-test.log") in $(($(date +%s) - t0)) s"
	grep -- '--- FAIL' "$OUT/native-test.log" | head -20 | tee -a "$summary"
	[ $r -ne 0 ] && rc=1
	t0=$(date +%s)
	"$DEV/msm.test" -test.v -test.timeout 20m -test.run 'TestCUDA' >"$OUT/msm-test.log" 2>&1
	r=$?
	note "msm tests: rc=$r $(counts "$OUT/msm-test.log") in $(($(date +%s) - t0)) s"
	grep -- '--- FAIL' "$OUT/msm-test.log" | head -20 | tee -a "$summary"
	[ $r -ne 0 ] && rc=1
fi
if has sanitize; then
	t0=$(date +%s)
	{
		compute-sanitizer --tool memcheck --error-exitcode 9 "$DEV/msm.test" -test.short -test.v \
			-test.run 'TestCUDAG1/(random/257|bits|infinity-points|density/1-in-2|zero-scalars)$|TestCUDAG2/(random/3|density)$'
		echo "msm memcheck rc=$?"
		compute-sanitizer --tool memcheck --error-exitcode 9 "$DEV/native.test" -test.short -test.v \
			-test.run 'TestNTT/2\^(3|11)/|TestH/m=2\^(2|10)/|TestStreamedMSMEqualsDevice/(random|bits)/canonical=true/density=(true|false)/chunk=1000$|TestHStepEqualsHDevice'
		echo "native memcheck rc=$?"
	} >"$OUT/sanitizer.log" 2>&1
	note "memcheck: $(grep -E 'memcheck rc=|ERROR SUMMARY' "$OUT/sanitizer.log" | tr '\n' ' ') in $(($(date +%s) - t0)) s"
fi
if has bench; then
	t0=$(date +%s)
	# GPUC2_BENCH_TRACE prints per-phase MSM times to bench.log (adds a few stream syncs per call).
	GPUC2_BENCH_TRACE=1 GPUC2_BENCH_OUT="$OUT/bench.md" "$DEV/native.test" -test.v -test.timeout 30m -test.run 'TestBenchTable' >"$OUT/bench.log" 2>&1
	note "bench rc=$? in $(($(date +%s) - t0)) s"
	cat "$OUT/bench.md" 2>/dev/null | tee -a "$summary"
fi
if has windows; then
	# forced window sizes (GPUC2_BENCH_WINDOW) at each of WINDOW_SIZES; per-phase times in windows.log
	for size in ${WINDOW_SIZES:-g1-24}; do
		for c in ${WINDOWS:-15 16 18 20}; do
			echo "== $size c=$c" >>"$OUT/windows.log"
			GPUC2_BENCH_WINDOW=$c GPUC2_BENCH_TRACE=1 GPUC2_BENCH_SIZES=$size GPUC2_BENCH_OUT="$OUT/windows-$c.md" \
				"$DEV/native.test" -test.v -test.run 'TestBenchTable' >>"$OUT/windows.log" 2>&1
			note "window $size c=$c: $(grep 'MSM' "$OUT/windows-$c.md")"
			rm -f "$OUT/windows-$c.md"
		done
	done
fi
if has ncu; then
	# hardware counters of one level-1 accumulation launch per NCU_SIZES entry (ncu report in ncu-*.txt)
	for size in ${NCU_SIZES:-g1-24 g2-22}; do
		t0=$(date +%s)
		GPUC2_BENCH_SIZES=$size GPUC2_BENCH_OUT="$OUT/ncu-$size.md" ncu --clock-control none -k regex:k_accumulate_affine -c 1 \
			--section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy \
			--section SchedulerStats --section InstructionStats --section LaunchStats --section MemoryWorkloadAnalysis \
			"$DEV/native.test" -test.run 'TestBenchTable' >"$OUT/ncu-$size.txt" 2>&1
		note "ncu $size rc=$? in $(($(date +%s) - t0)) s"
		grep -E 'Duration|Executed Ipc A|Issue Slots Busy|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|No Eligible|Warp Cycles Per Issued' \
			"$OUT/ncu-$size.txt" | head -12 | tee -a "$summary"
	done
fi
if has stream; then
	t0=$(date +%s)
	"$DEV/native.test" -test.v -test.timeout 20m -test.run 'Test(Stream|Device)' >"$OUT/stream-test.log" 2>&1
	r=$?
	"$DEV/gpu.test" -test.v -test.timeout 20m -test.run 'CUDA' >>"$OUT/stream-test.log" 2>&1
	r2=$?
	note "stream + GPU prover tests: rc=$r/$r2 $(counts "$OUT/stream-test.log") in $(($(date +%s) - t0)) s"
	grep -E -- '--- FAIL|cancellations hit' "$OUT/stream-test.log" | head -20 | tee -a "$summary"
	[ $r -ne 0 ] || [ $r2 -ne 0 ] && rc=1
fi
if has racecheck; then
	t0=$(date +%s)
	{
		compute-sanitizer --tool racecheck --error-exitcode 9 "$DEV/native.test" -test.short -test.v \
			-test.run 'TestDeviceHEqualsHost|TestDeviceMSMEqualsHost|TestNTT/2\^(3|11)/'
		echo "native racecheck rc=$?"
		compute-sanitizer --tool memcheck --error-exitcode 9 "$DEV/native.test" -test.short -test.v \
			-test.run 'TestDeviceHEqualsHost|TestDeviceMSMEqualsHost|TestStreamCopiesAndBounds'
		echo "stream memcheck rc=$?"
	} >"$OUT/racecheck.log" 2>&1
	note "racecheck/memcheck (stream API): $(grep -E 'check rc=|ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/racecheck.log" | tr '\n' ' ') in $(($(date +%s) - t0)) s"
fi
if has partition; then
	t0=$(date +%s)
	timev "$DEV/gpu.test" -test.run XX -test.bench CUDAPartition -test.benchtime 1x -test.timeout 30m \
		-partition "${PARTITION:-32GiB}" -partition-workers "${PARTITION_WORKERS:-1,2,3}" -partition-proofs "${PARTITION_PROOFS:-3}" \
		-partition-width "${PARTITION_WIDTH:-1}" -partition-devices "${PARTITION_DEVICES:-1}" \
		-partition-limits "${PARTITION_LIMITS:-}" \
		-partition-trace "$OUT/partition-trace.json" >"$OUT/partition.log" 2>&1
	note "partition bench rc=$? in $(($(date +%s) - t0)) s"
	grep -E 'partition:|aux values|resident|pinned|workers ×|limit .*workers|s/partition|differs|FAIL|Maximum resident' "$OUT/partition.log" | cut -c1-400 | tee -a "$summary"
	nvidia-smi --query-gpu=memory.used,memory.total --format=csv >>"$summary" 2>&1
fi
if has synth; then
	t0=$(date +%s)
	# fresh memory: one process per run (Go would zero reused memory on one thread)
	for w in 1 16; do
		timev "$DEV/stacked.test" -test.run XX -test.bench "BenchmarkWitness/^32GiB\$/workers=$w\$" -bench32 \
			-test.benchtime 1x -test.timeout 20m >>"$OUT/synth.log" 2>&1
	done
	# reused buffers, the pipeline's path
	"$DEV/stacked.test" -test.run XX -test.bench 'BenchmarkWitness/^32GiB-reuse$/workers=(1|16)$' -bench32 \
		-test.benchtime 2x -test.timeout 20m >>"$OUT/synth.log" 2>&1
	"$DEV/sha256.test" -test.run xxx -test.bench 'CompressionWitness$' -test.benchtime=300x -test.count 3 \
		-test.cpu 1 >>"$OUT/synth.log" 2>&1
	note "synthesis benches in $(($(date +%s) - t0)) s"
	grep -E '^Benchmark|Maximum resident' "$OUT/synth.log" | tee -a "$summary"
fi
if has facade; then
	t0=$(date +%s)
	GPUC2_TEST_8MIB=1 GPUC2_TEST_FACADE=1 "$DEV/gpuc2.test" -test.v -test.timeout 20m \
		-test.run 'TestProveSynthetic2KiB|TestCUDAProof8MiB|TestSealCommitPhase2$|TestProveSealPipeline|TestProveSeal8MiB|TestNewBackends|TestProveUpdate2KiB$|TestSealAndUpdateOnOneProver$' \
		>"$OUT/facade.log" 2>&1
	note "facade tests on the GPU: rc=$? $(counts "$OUT/facade.log") in $(($(date +%s) - t0)) s"
	grep -E -- '--- (FAIL|PASS|SKIP)' "$OUT/facade.log" | tee -a "$summary"
fi
if has update; then
	t0=$(date +%s)
	GOMEMLIMIT=${GOMEMLIMIT:-100GiB} GPUC2_TEST_UPDATE_GPU=1 GPUC2_UPDATE_GPU_SIZE=${UPDATE_SIZE:-8MiB} timev "$DEV/update.test" -test.run 'TestGPUEqualsCPU$' \
		-test.v -test.timeout 40m >"$OUT/update.log" 2>&1
	note "update circuit, GPU against CPU (${UPDATE_SIZE:-8MiB}): rc=$? $(counts "$OUT/update.log") in $(($(date +%s) - t0)) s"
	# Filecoin's real update parameters, where FIL_PROOFS_PARAMETER_CACHE holds them (skips otherwise)
	GPUC2_UPDATE_REAL_SIZE=${UPDATE_SIZE:-8MiB} "$DEV/update.test" -test.run 'TestRealParams$' -test.v -test.timeout 20m \
		>>"$OUT/update.log" 2>&1
	GPUC2_UPDATE_32GIB=1 timev "$DEV/update.test" -test.run XX -test.bench 'SynthesizeWitness/32GiB$' -test.benchtime 2x \
		-test.timeout 20m >>"$OUT/update.log" 2>&1
	grep -E -- '--- (FAIL|PASS|SKIP)|proof_test.go|realparams_test.go|^Benchmark|Maximum resident' "$OUT/update.log" | tee -a "$summary"
fi
if has sector; then
	t0=$(date +%s)
	GOMEMLIMIT=${GOMEMLIMIT:-110GiB} timev "$DEV/gpu.test" -test.run XX -test.bench CUDASector -test.benchtime 1x -test.timeout 30m \
		-sector "${SECTOR:-32GiB}" -sector-count "${SECTOR_COUNT:-1}" -sector-workers "${SECTOR_WORKERS:-1}" >"$OUT/sector.log" 2>&1
	note "sector bench rc=$? in $(($(date +%s) - t0)) s"
	grep -E 'setup|resident|proof\(s\)|steady|Maximum resident|FAIL|panic' "$OUT/sector.log" | tee -a "$summary"
fi
if has facade-sector; then
	fsize=${FACADE_SIZE:-32GiB}
	fdir=${FACADE_CACHE:-$(cd "$DEV" && pwd)/facade-cache} # on the local disk, not under $OUT (copied back)
	mkdir -p "$fdir"
	# FACADE_UPDATE=1: SnapDeals update proofs (testsetup -update, c2prove -update), tagged "-update"
	kind=() setupglob=TEST-ONLY-StackedDrg utag=
	[ -n "${FACADE_UPDATE:-}" ] && kind=(-update) setupglob=TEST-ONLY-EmptySectorUpdate- utag=-update
	t0=$(date +%s)
	if [ -n "${FACADE_REUSE:-}" ] && ls "$fdir"/gpuc2/test-params/"$setupglob"*.params >/dev/null 2>&1; then
		r=0
		note "facade-sector: reusing the TEST-ONLY setup in $fdir (FACADE_REUSE)"
	else
		vram_start "$OUT/facade-setup-vram.log"
		GOMEMLIMIT=${GOMEMLIMIT:-110GiB} timev "$DEV/testsetup" "${kind[@]}" -sector-size "$fsize" -cache "$fdir" -backend cuda -force \
			>"$OUT/facade-setup.log" 2>&1
		r=$?
		vram_stop
		note "facade-sector: testsetup $fsize rc=$r in $(($(date +%s) - t0)) s, peak VRAM $(vram_peak "$OUT/facade-setup-vram.log") MiB"
		grep -E '^(setup|write|file|size|total):|Maximum resident|testsetup:|panic' "$OUT/facade-setup.log" | tee -a "$summary"
	fi
	if [ $r -eq 0 ]; then
		df -h "$fdir" >>"$summary" 2>&1
		# One c2prove run per device memory limit (FACADE_LIMITS; "unlimited": the default limit).
		for limit in ${FACADE_LIMITS:-unlimited}; do
			tag=${limit}${utag}${FACADE_TAG:-}
			memflag=()
			[ "$limit" != unlimited ] && memflag=(-device-memory "$limit")
			t0=$(date +%s)
			vram_start "$OUT/facade-sector-$tag-vram.log"
			rss_start "$OUT/facade-sector-$tag-rss.log" c2prove
			# GPU utilization (sm %) and PCIe traffic (rxpci MB/s) once a second
			nvidia-smi dmon -s ut -d 1 >"$OUT/facade-sector-$tag-dmon.log" 2>/dev/null &
			dmon_pid=$!
			# No -params (a -params directory must hold real files): an empty default directory makes
			# c2prove use the TEST-ONLY file under -test-params, and say so (params=TEST-ONLY).
			FIL_PROOFS_PARAMETER_CACHE=/nonexistent GOMEMLIMIT=${GOMEMLIMIT:-110GiB} timev "$DEV/c2prove" "${kind[@]}" -sector-size "$fsize" \
				-count "${FACADE_COUNT:-3}" -workers "${FACADE_WORKERS:-2}" -backend cuda -test-params "$fdir" "${memflag[@]}" ${FACADE_FLAGS:-} \
				-trace "$OUT/facade-trace-$tag.json" >"$OUT/facade-sector-$tag.log" 2>&1
			r=$?
			kill "$dmon_pid" 2>/dev/null
			wait "$dmon_pid" 2>/dev/null
			vram_stop
			rss_stop
			note "facade-sector $tag: c2prove $fsize × ${FACADE_COUNT:-3} rc=$r in $(($(date +%s) - t0)) s, peak VRAM $(vram_peak "$OUT/facade-sector-$tag-vram.log") MiB," \
				"peak RSS sampled $(rss_peak "$OUT/facade-sector-$tag-rss.log")," \
				"GPU busy (mean sm% over samples with sm>0) $(awk '$1 ~ /^[0-9]+$/ && $2 + 0 > 0 { s += $2; n++ } END { if (n) printf "%.0f", s / n }' "$OUT/facade-sector-$tag-dmon.log")%," \
				"PCIe rx mean/max $(awk '$1 ~ /^[0-9]+$/ && $2 + 0 > 0 { s += $(NF-1); n++; if ($(NF-1) + 0 > m) m = $(NF-1) + 0 } END { if (n) printf "%.1f/%.1f", s / n / 1000, m / 1000 }' "$OUT/facade-sector-$tag-dmon.log") GB/s"
			# the log is not a terminal: c2prove writes plain lines (its progress lines start "progress")
			cut -c1-300 <"$OUT/facade-sector-$tag.log" |
				grep -E 'TEST-ONLY|^backend:|^parameters:|^pipeline:|^device memory:|constraint matrices|^proof [0-9]|^summary|^  [a-zA-Z]|verified=|Maximum resident|c2prove:|panic' |
				grep -v '^proof=' | tee -a "$summary"
			grep -E '^proof=' "$OUT/facade-sector-$tag.log" | cut -c1-20 | tee -a "$summary"
			grep -Eo 'verified=[a-z]+' "$OUT/facade-sector-$tag.log" | tee -a "$summary"
			# Requirements against the truth (issue 44): the host peak c2prove was promised beside its VmHWM
			note "facade-sector $tag: requirements $(grep -Eo 'host peak: .*' "$OUT/facade-sector-$tag.log" || echo 'host peak: not printed')"
		done
	fi
	[ $r -ne 0 ] && rc=1
	[ -z "${FACADE_KEEP:-}" ] && rm -rf "$fdir/gpuc2/test-params" # the TEST-ONLY file (and any .tmp), unless FACADE_KEEP
fi
if has daemon; then
	# gpuc2d (examples/gpuc2d) serving the facade-sector setup: DAEMON_COUNT 32 GiB TEST-ONLY sectors (default 4)
	# submitted at once over gRPC by ./cuzkclient, another process, as Curio sends them (Commit2In envelopes), with
	# FACADE_WORKERS GPU workers, once per limit in DAEMON_LIMITS (default FACADE_LIMITS): the client's per-proof
	# send times and steady s/proof, the daemon's peak RSS (sampled) and VRAM. Run after facade-sector (FACADE_KEEP=1)
	# in the same call, or with FACADE_REUSE=1 on a machine still warm, so that c2prove's figures come from this
	# machine.
	fsize=${FACADE_SIZE:-32GiB}
	fdir=${FACADE_CACHE:-$(cd "$DEV" && pwd)/facade-cache}
	circuit=porep-$(echo "$fsize" | tr 'A-Z' 'a-z' | sed 's/ib$//; s/kib$/k/')
	# FACADE_UPDATE=1: SnapDeals updates (the snap- circuit, cuzkclient -kind snap), tagged "-update"
	ckind=porep utag=
	[ -n "${FACADE_UPDATE:-}" ] && circuit=snap-${circuit#porep-} ckind=snap utag=-update
	sock=/tmp/gpuc2d-test.sock
	for limit in ${DAEMON_LIMITS:-${FACADE_LIMITS:-unlimited}}; do
		tag=${limit}${utag}${FACADE_TAG:-}
		memflag=()
		[ "$limit" != unlimited ] && memflag=(-device-memory "$limit")
		t0=$(date +%s)
		vram_start "$OUT/daemon-$tag-vram.log"
		rss_start "$OUT/daemon-$tag-rss.log" gpuc2d
		FIL_PROOFS_PARAMETER_CACHE=/nonexistent GOMEMLIMIT=${GOMEMLIMIT:-110GiB} "$DEV/gpuc2d" -listen "unix://$sock" \
			-backend cuda -test-params "$fdir" -preload "$circuit" -workers "${FACADE_WORKERS:-2}" "${memflag[@]}" \
			>"$OUT/daemon-$tag.log" 2>&1 &
		dpid=$!
		# serving once the key is preloaded: GetStatus answers
		until "$DEV/cuzkclient" -addr "unix://$sock" -status >/dev/null 2>&1; do
			kill -0 "$dpid" 2>/dev/null || break
			sleep 1
		done
		note "daemon $tag: serving after $(($(date +%s) - t0)) s"
		"$DEV/cuzkclient" -addr "unix://$sock" -kind "$ckind" -sector-size "$fsize" -count "${DAEMON_COUNT:-4}" >"$OUT/daemon-client-$tag.log" 2>&1
		r=$?
		"$DEV/cuzkclient" -addr "unix://$sock" -metrics >"$OUT/daemon-metrics-$tag.txt" 2>&1
		kill -TERM "$dpid" 2>/dev/null
		wait "$dpid"
		dr=$?
		vram_stop
		rss_stop
		note "daemon $tag: cuzkclient $fsize × ${DAEMON_COUNT:-4} rc=$r, daemon exit $dr, in $(($(date +%s) - t0)) s," \
			"peak VRAM $(vram_peak "$OUT/daemon-$tag-vram.log") MiB, daemon peak RSS sampled $(rss_peak "$OUT/daemon-$tag-rss.log")"
		cut -c1-300 <"$OUT/daemon-client-$tag.log" | tee -a "$summary"
		grep -E '^gpuc2d_proofs_total|^gpuc2_gpu_busy_seconds_total|^process_resident_memory_bytes' "$OUT/daemon-metrics-$tag.txt" | tee -a "$summary"
		grep -E 'level=(WARN|ERROR)|panic' "$OUT/daemon-$tag.log" | cut -c1-300 | head -5 | tee -a "$summary"
		[ $r -ne 0 ] && rc=1
	done
	[ -z "${FACADE_KEEP:-}" ] && rm -rf "$fdir/gpuc2d/test-params"
fi
if has post; then
	# PoSt: the GPU's proofs equal the CPU's at 8 MiB (WindowPoSt, WinningPoSt), then with POST_32G=1 the
	# 32 GiB WinningPoSt and WindowPoSt partition (2,349 sectors) in memory, two resident and one streamed
	# proof (no CPU proof: minutes; the WindowPoSt's key held twice, on the heap and pinned where it streams,
	# so on an 80 GB card it needs more than 128 GiB of host RAM: killed for memory on the H100 host,
	# 2026-12-07); then, where POST_CACHE holds TEST-ONLY 32 GiB setups (testsetup -post
	# window|winning, and the PoRep one for "inflight"), the facade's figures under each of
	# ${POST_LIMITS:-unlimited 16GiB} for ${POST_STEPS:-window winning inflight} (TestPoStGPU; RESULT lines;
	# POST_MATRICES puts the matrices cache elsewhere, e.g. /dev/shm/mx: a 32 GiB WindowPoSt key and its
	# matrices crowd a 64 GiB disk). POST_WINDOW_EQUAL=1 first checks the 32 GiB WindowPoSt partition's GPU
	# proofs against the CPU's from the window setup file in POST_CACHE (two processes; =gpu or =cpu: that half
	# only). The facade's
	# traces: post-trace-<limit>.json (python3 native/trace-stats.py -gaps on them).
	t0=$(date +%s)
	GPUC2_TEST_POST_GPU=1 "$DEV/post.test" -test.v -test.timeout 20m -test.run 'TestGPUEqualsCPU$' >"$OUT/post-gpu.log" 2>&1
	note "PoSt GPU = CPU (8 MiB): rc=$? $(counts "$OUT/post-gpu.log") in $(($(date +%s) - t0)) s"
	grep -E -- '--- (FAIL|PASS)|proof_test.go' "$OUT/post-gpu.log" | tee -a "$summary"
	if [ -n "${POST_32G:-}" ]; then
		t0=$(date +%s)
		GOMEMLIMIT=${GOMEMLIMIT:-110GiB} GPUC2_TEST_POST_GPU=1 GPUC2_POST_GPU_SIZE=32GiB GPUC2_POST_NO_CPU=1 timev "$DEV/post.test" \
			-test.v -test.timeout 30m -test.run 'TestGPUEqualsCPU$' >"$OUT/post-gpu-32g.log" 2>&1
		note "PoSt 32 GiB on the GPU: rc=$? $(counts "$OUT/post-gpu-32g.log") in $(($(date +%s) - t0)) s"
		grep -E -- '--- (FAIL|PASS)|proof_test.go|Maximum resident' "$OUT/post-gpu-32g.log" | tee -a "$summary"
	fi
	# testsetup -cache DIR writes DIR/gpuc2/test-params/TEST-ONLY-<type>.params.
	wkey=$(find "${POST_CACHE:-/nonexistent}" -maxdepth 3 -name '*.params' 2>/dev/null | grep -i window | head -1)
	if [ -n "${POST_WINDOW_EQUAL:-}" ] && [ -n "$wkey" ]; then
		# The 32 GiB WindowPoSt partition GPU = CPU from its setup file, in two processes (one
		# holds the key only pinned, the other decoded on the heap for the CPU proof): the GPU
		# half runs first and leaves its verified proof in a file, which the CPU half's proof
		# must equal. The CPU half (dense MSMs over 125 M constraints) takes more than 590 s on
		# the H100 host's 16 cores: more than one device call allows, so there run the halves apart:
		# POST_WINDOW_EQUAL=gpu runs the GPU half alone, then POST_WINDOW_EQUAL=cpu the CPU half alone,
		# started with setsid so that it outlives the call, and its log polled in later calls.
		[ "$POST_WINDOW_EQUAL" != cpu ] && rm -f "$POST_CACHE/window-proof"
		for run in gpu cpu; do
			[ "$run" = cpu ] && [ "$POST_WINDOW_EQUAL" = gpu ] && break
			[ "$run" = gpu ] && [ "$POST_WINDOW_EQUAL" = cpu ] && continue
			# Without the GPU half's proof the CPU half would compare nothing and pass.
			if [ "$run" = cpu ] && [ ! -s "$POST_CACHE/window-proof" ]; then
				note "PoSt 32 GiB WindowPoSt GPU = CPU: no GPU proof in $POST_CACHE/window-proof, the CPU half not run"
				rc=1
				break
			fi
			t0=$(date +%s)
			# An array: the modes' list holds a space that must stay in one variable.
			if [ $run = cpu ]; then extra=(GPUC2_POST_GPU_MODES=none); else extra=(GPUC2_POST_NO_CPU=1 "GPUC2_POST_GPU_MODES=${POST_GPU_MODES:-streamed-unlimited streamed}"); fi
			env "${extra[@]}" GPUC2_TEST_POST_GPU=1 GPUC2_POST_GPU_SIZE=32GiB GPUC2_POST_KEY="$wkey" GPUC2_POST_PROOF_FILE="$POST_CACHE/window-proof" \
				timev "$DEV/post.test" -test.v -test.timeout 30m -test.run 'TestGPUEqualsCPU$/Window' >"$OUT/post-window-$run.log" 2>&1
			note "PoSt 32 GiB WindowPoSt GPU = CPU ($run process): rc=$? $(counts "$OUT/post-window-$run.log") in $(($(date +%s) - t0)) s"
			grep -E -- '--- (FAIL|PASS)|proof_test.go|Maximum resident' "$OUT/post-window-$run.log" | tee -a "$summary"
		done
	fi
	if [ -n "${POST_CACHE:-}" ]; then
		t0=$(date +%s)
		GOMEMLIMIT=${GOMEMLIMIT:-110GiB} GPUC2_TEST_POST_GPU=1 GPUC2_POST_CACHE="$POST_CACHE" GPUC2_POST_MATRICES="${POST_MATRICES:-}" GPUC2_POST_LIMITS="${POST_LIMITS:-unlimited 16GiB}" \
			GPUC2_POST_TRACE="$OUT/post-trace" \
			GPUC2_POST_STEPS="${POST_STEPS:-window winning inflight}" timev "$DEV/gpuc2.test" -test.v -test.timeout 40m \
			-test.run 'TestPoStGPU$' >"$OUT/post-facade.log" 2>&1
		note "PoSt through the facade: rc=$? in $(($(date +%s) - t0)) s"
		grep -E 'RESULT|--- (FAIL|PASS)|Maximum resident' "$OUT/post-facade.log" | tee -a "$summary"
	fi
fi
# PACK=1: everything but the summary into one archive (the device tool returns a few files only).
if [ -n "${PACK:-}" ]; then
	pack=$(mktemp) && tar czf "$pack" -C "$OUT" . && find "$OUT" -type f ! -name summary.txt -delete &&
		mv "$pack" "$OUT/logs.tgz"
fi
cat "$summary"
exit $rc
