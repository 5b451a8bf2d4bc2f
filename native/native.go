//go:build cgo

package native

/*
#cgo CFLAGS: -I${SRCDIR}/include
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include "gpuc2.h"

// Go cannot call C function pointers: one static shim per table entry.

typedef const gpuc2_api_t* (*gpuc2_entry_fn)(void);

static void* go_gpuc2_dlopen(const char* path, char** err) {
	void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) *err = dlerror();
	return h;
}

static const gpuc2_api_t* go_gpuc2_resolve(void* h, char** err) {
	void* sym = dlsym(h, "gpuc2_api");
	if (!sym) { *err = dlerror(); return NULL; }
	return ((gpuc2_entry_fn)sym)();
}

static const char* go_gpuc2_version(const gpuc2_api_t* a) { return a->version(); }

static int go_gpuc2_device_count(const gpuc2_api_t* a, int32_t* n, char* msg, size_t len) {
	return a->device_count(n, msg, len);
}

static int go_gpuc2_device_info(const gpuc2_api_t* a, int32_t d, gpuc2_device_info* info, char* msg, size_t len) {
	return a->device_info(d, info, msg, len);
}

static int go_gpuc2_msm(const gpuc2_api_t* a, int g2, int32_t d, const void* bases, uint64_t nb,
                     const void* scalars, uint64_t ns, const uint64_t* density, uint64_t dw,
                     uint32_t flags, void* out, char* msg, size_t len) {
	if (g2) return a->msm_g2(d, bases, nb, scalars, ns, density, dw, flags, out, msg, len);
	return a->msm_g1(d, bases, nb, scalars, ns, density, dw, flags, out, msg, len);
}

static int go_gpuc2_msm_scratch_bytes(const gpuc2_api_t* a, int32_t d, int32_t group, uint64_t nb, uint64_t ns,
                                   uint32_t flags, uint64_t* bytes, char* msg, size_t len) {
	return a->msm_scratch_bytes(d, group, nb, ns, flags, bytes, msg, len);
}

static int go_gpuc2_ntt(const gpuc2_api_t* a, int32_t d, void* data, uint32_t log_m, int32_t dir, char* msg, size_t len) {
	return a->ntt(d, data, log_m, dir, msg, len);
}

static int go_gpuc2_h(const gpuc2_api_t* a, int32_t d, const void* x, const void* y, const void* z, uint64_t n,
                   uint32_t log_m, void* out, char* msg, size_t len) {
	return a->h(d, x, y, z, n, log_m, out, msg, len);
}

static int go_gpuc2_bench(const gpuc2_api_t* a, int32_t d, int32_t op, const void* i0, const void* i1,
                       const void* i2, uint64_t n, uint32_t log_m, uint32_t iters, uint32_t flags, float* ms,
                       char* msg, size_t len) {
	return a->bench_resident(d, op, i0, i1, i2, n, log_m, iters, flags, ms, msg, len);
}

static int go_gpuc2_msm_stream_scratch_bytes(const gpuc2_api_t* a, int32_t d, int32_t group, uint64_t nb,
                                          uint64_t ns, uint32_t flags, uint64_t chunk, uint64_t* bytes, char* msg,
                                          size_t len) {
	return a->msm_stream_scratch_bytes(d, group, nb, ns, flags, chunk, bytes, msg, len);
}
static int go_gpuc2_h_scratch_bytes(const gpuc2_api_t* a, uint32_t log_m, uint64_t* bytes, char* msg, size_t len) {
	return a->h_scratch_bytes(log_m, bytes, msg, len);
}
static int go_gpuc2_pool_peak(const gpuc2_api_t* a, int32_t d, uint64_t* peak, char* msg, size_t len) {
	return a->pool_peak(d, peak, msg, len);
}
*/
import "C"

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// The constants of api.go equal gpuc2.h's: indexing a one-element array
// with their difference compiles only when it is 0.
var _ = [...]struct{}{
	[1]struct{}{}[ABIVersion-C.GPUC2_ABI_VERSION],
	[1]struct{}{}[CodeOK-C.GPUC2_OK],
	[1]struct{}{}[CodeInvalidArgument-C.GPUC2_ERR_INVALID_ARGUMENT],
	[1]struct{}{}[CodeOutOfMemory-C.GPUC2_ERR_OUT_OF_MEMORY],
	[1]struct{}{}[CodeCUDA-C.GPUC2_ERR_CUDA],
	[1]struct{}{}[CodeNotSupported-C.GPUC2_ERR_NOT_SUPPORTED],
	[1]struct{}{}[CodeInternal-C.GPUC2_ERR_INTERNAL],
	[1]struct{}{}[G1-C.GPUC2_G1],
	[1]struct{}{}[G2-C.GPUC2_G2],
	[1]struct{}{}[MSMWindowMin-C.GPUC2_MSM_WINDOW_MIN],
	[1]struct{}{}[MSMWindowMax-C.GPUC2_MSM_WINDOW_MAX],
	[1]struct{}{}[msmBucketBytesG1-C.GPUC2_MSM_BUCKET_BYTES_G1],
	[1]struct{}{}[msmBucketBytesG2-C.GPUC2_MSM_BUCKET_BYTES_G2],
	[1]struct{}{}[msmGroupEntries-C.GPUC2_MSM_GROUP_ENTRIES],
	[1]struct{}{}[msmPartialsMax-C.GPUC2_MSM_PARTIALS_MAX],
	[1]struct{}{}[MSMStreamChunkMin-C.GPUC2_MSM_STREAM_CHUNK_MIN],
	[1]struct{}{}[HStepA-C.GPUC2_H_STEP_A],
	[1]struct{}{}[HStepB-C.GPUC2_H_STEP_B],
	[1]struct{}{}[HStepC-C.GPUC2_H_STEP_C],
	[1]struct{}{}[nttForward-C.GPUC2_NTT_FORWARD],
	[1]struct{}{}[nttInverse-C.GPUC2_NTT_INVERSE],
	[1]struct{}{}[nttCosetForward-C.GPUC2_NTT_COSET_FORWARD],
	[1]struct{}{}[nttCosetInverse-C.GPUC2_NTT_COSET_INVERSE],
}

const msgLen = 1024

type library struct {
	path    string
	api     *C.gpuc2_api_t
	devices int
}

// call runs one table entry with a fresh message buffer: a status other
// than GPUC2_OK becomes *Error with the library's message.
func call(op string, entry func(msg *C.char, n C.size_t) C.int) error {
	msg := make([]byte, msgLen)
	rc := entry((*C.char)(unsafe.Pointer(&msg[0])), msgLen)
	if rc == C.GPUC2_OK {
		return nil
	}
	for i, c := range msg {
		if c == 0 {
			msg = msg[:i]
			break
		}
	}
	return &Error{Op: op, Code: int(rc), Msg: string(msg)}
}

// candidate is a place Load looks for the library, and how the error of a
// failed try names it.
type candidate struct {
	path, where string
}

// candidates are the places Load tries, in order: $GPUC2_NATIVE_LIB,
// beside the running executable, the dynamic linker's search path.
func candidates() []candidate {
	var out []candidate
	if p := os.Getenv(EnvLibrary); p != "" {
		out = append(out, candidate{p, "$" + EnvLibrary})
	}
	if exe, err := os.Executable(); err == nil {
		out = append(out, candidate{filepath.Join(filepath.Dir(exe), LibraryName), "beside the executable"})
	}
	return append(out, candidate{LibraryName, "the dynamic linker's search path"})
}

// load tries each candidate; its error names every place tried and why
// each failed.
func load() (*library, error) {
	var errs []string
	if os.Getenv(EnvLibrary) == "" {
		errs = append(errs, "$"+EnvLibrary+" is not set")
	}
	for _, c := range candidates() {
		if c.path != LibraryName {
			if _, err := os.Stat(c.path); err != nil {
				errs = append(errs, fmt.Sprintf("%s: %v", c.where, err))
				continue
			}
		}
		l, err := open(c.path)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", c.where, err))
			continue
		}
		return l, nil
	}
	return nil, fmt.Errorf("%w: %s; %s", ErrNotAvailable, LibraryName, strings.Join(errs, "; "))
}

func open(path string) (*library, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var cerr *C.char
	h := C.go_gpuc2_dlopen(cpath, &cerr)
	if h == nil {
		return nil, fmt.Errorf("dlopen %s: %s", path, C.GoString(cerr))
	}
	// The table and dlerror's text live in memory dlclose may unmap or
	// reuse: each error reads them first.
	api := C.go_gpuc2_resolve(h, &cerr)
	if api == nil {
		err := fmt.Errorf("dlsym gpuc2_api in %s (a library older than ABI 2?): %s", path, C.GoString(cerr))
		C.dlclose(h)
		return nil, err
	}
	if api.abi_version != ABIVersion || uintptr(api.struct_size) < unsafe.Sizeof(*api) {
		err := fmt.Errorf("%s: ABI version %d (table %d bytes), want %d (%d bytes)", path,
			api.abi_version, api.struct_size, ABIVersion, unsafe.Sizeof(*api))
		C.dlclose(h)
		return nil, err
	}
	var n C.int32_t
	if err := call("device_count", func(m *C.char, k C.size_t) C.int {
		return C.go_gpuc2_device_count(api, &n, m, k)
	}); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if n <= 0 {
		return nil, fmt.Errorf("%s: no CUDA device", path)
	}
	return &library{path: path, api: api, devices: int(n)}, nil
}

var (
	loadOnce sync.Once
	lib      *library
	loadErr  error
)

// Load loads the library once; later calls return the first result. The error
// wraps ErrNotAvailable when no library (or no device) was found.
func Load() error {
	loadOnce.Do(func() { lib, loadErr = load() })
	return loadErr
}

func get() (*library, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	return lib, nil
}

// getDevice returns the library after checking the device ordinal.
func getDevice(device int) (*library, error) {
	l, err := get()
	if err != nil {
		return nil, err
	}
	if device < 0 || device >= l.devices {
		return nil, fmt.Errorf("%w: device %d of %d", ErrInvalidArgument, device, l.devices)
	}
	return l, nil
}

// LibraryPath returns the path the library was loaded from.
func LibraryPath() (string, error) {
	l, err := get()
	if err != nil {
		return "", err
	}
	return l.path, nil
}

// Version returns the library's version string.
func Version() (string, error) {
	l, err := get()
	if err != nil {
		return "", err
	}
	return C.GoString(C.go_gpuc2_version(l.api)), nil
}

// DeviceCount returns the number of CUDA devices (without querying each,
// as Devices does).
func DeviceCount() (int, error) {
	l, err := get()
	if err != nil {
		return 0, err
	}
	return l.devices, nil
}

// Devices lists the CUDA devices.
func Devices() ([]Device, error) {
	l, err := get()
	if err != nil {
		return nil, err
	}
	out := make([]Device, 0, l.devices)
	for i := 0; i < l.devices; i++ {
		var info C.gpuc2_device_info
		if err := call("device_info", func(m *C.char, k C.size_t) C.int {
			return C.go_gpuc2_device_info(l.api, C.int32_t(i), &info, m, k)
		}); err != nil {
			return nil, err
		}
		out = append(out, Device{
			Index:        i,
			Name:         C.GoString(&info.name[0]),
			TotalMemory:  uint64(info.total_memory),
			SMs:          int(info.sm_count),
			ComputeMajor: int(info.cc_major),
			ComputeMinor: int(info.cc_minor),
		})
	}
	return out, nil
}

// flags are the options' MSM flag bits; canonical adds
// GPUC2_MSM_SCALARS_CANONICAL.
func (o msmOptions) flags(canonical bool) C.uint32_t {
	var f C.uint32_t
	if canonical {
		f |= C.GPUC2_MSM_SCALARS_CANONICAL
	}
	if o.trace {
		f |= C.GPUC2_MSM_TRACE
	}
	if o.noSplit {
		f |= C.GPUC2_MSM_NO_SPLIT
	}
	if o.batchedSplit {
		f |= C.GPUC2_MSM_BATCHED_SPLIT
	}
	return f | C.uint32_t(o.window)<<C.GPUC2_MSM_WINDOW_SHIFT
}

// densityWords checks a density bitmap's length for ns scalars and returns
// its C pointer (nil for no bitmap).
func densityWords(op string, density []uint64, ns int) (*C.uint64_t, error) {
	if density == nil {
		return nil, nil
	}
	if len(density) != (ns+63)/64 {
		return nil, fmt.Errorf("%w: %s: %d density words for %d scalars", ErrInvalidArgument, op, len(density), ns)
	}
	return (*C.uint64_t)(unsafe.Pointer(unsafe.SliceData(density))), nil
}

// MSMG1 returns Σ scalars[i]·bases[j(i)] on the given device. density may be
// nil (then len(bases) == len(scalars)); otherwise it holds ceil(len(scalars)/64)
// words, bit i set meaning scalar i is used with the next base, and
// len(bases) equals its popcount. Scalars are in Montgomery form.
func MSMG1(device int, bases []bls12381.G1Affine, scalars []fr.Element, density []uint64, opts ...MSMOption) (bls12381.G1Jac, error) {
	var res bls12381.G1Jac
	err := msm("msm_g1", 0, device, unsafe.Pointer(unsafe.SliceData(bases)), len(bases), scalars, density, unsafe.Pointer(&res), opts)
	return res, err
}

// MSMG2 is MSMG1 over G2.
func MSMG2(device int, bases []bls12381.G2Affine, scalars []fr.Element, density []uint64, opts ...MSMOption) (bls12381.G2Jac, error) {
	var res bls12381.G2Jac
	err := msm("msm_g2", 1, device, unsafe.Pointer(unsafe.SliceData(bases)), len(bases), scalars, density, unsafe.Pointer(&res), opts)
	return res, err
}

func msm(op string, g2 int, device int, bases unsafe.Pointer, nb int, scalars []fr.Element, density []uint64, out unsafe.Pointer, opts []MSMOption) error {
	o, err := configure(opts)
	if err != nil {
		return err
	}
	l, err := getDevice(device)
	if err != nil {
		return err
	}
	dp, err := densityWords(op, density, len(scalars))
	if err != nil {
		return err
	}
	return call(op, func(m *C.char, k C.size_t) C.int {
		return C.go_gpuc2_msm(l.api, C.int(g2), C.int32_t(device), bases, C.uint64_t(nb),
			unsafe.Pointer(unsafe.SliceData(scalars)), C.uint64_t(len(scalars)), dp, C.uint64_t(len(density)),
			o.flags(false), out, m, k)
	})
}

// MSMScratchBytes returns the device memory that Stream.MSMG1 (g = G1) or
// Stream.MSMG2 (G2) over m's sizes, with these options, allocates on device
// at its peak beyond its bases and scalars (m's buffers and bitmap are not
// read; the bitmap's copy is counted whether m has one or not): digit keys
// and values and their sort, bucket table, partial sums, bucket reduction,
// the 0/1 split's arrays, a converted copy of Montgomery scalars. It holds
// for any scalar values, with the window the library picks for m.NBases
// points (or WithWindow's). MSMG1 and MSMG2 (host slices) need this with
// m.Canonical set, plus their copies of bases and scalars. A host
// computation: it enqueues nothing. See MSMScratchBound where no library is
// loaded.
func MSMScratchBytes(device int, g Group, m DeviceMSM, opts ...MSMOption) (int64, error) {
	o, err := configure(opts)
	if err != nil {
		return 0, err
	}
	if m.NBases < 0 || m.NScalars < 0 {
		return 0, fmt.Errorf("%w: msm_scratch_bytes: negative sizes", ErrInvalidArgument)
	}
	l, err := getDevice(device)
	if err != nil {
		return 0, err
	}
	var b C.uint64_t
	err = call("msm_scratch_bytes", func(msg *C.char, k C.size_t) C.int {
		return C.go_gpuc2_msm_scratch_bytes(l.api, C.int32_t(device), C.int32_t(g), C.uint64_t(m.NBases),
			C.uint64_t(m.NScalars), o.flags(m.Canonical), &b, msg, k)
	})
	return int64(b), err
}

// MSMStreamScratchBytes is MSMScratchBytes for Stream.MSMG1Streamed (g =
// G1) or MSMG2Streamed (G2) over m's sizes: the device memory the call
// allocates at its peak beyond its scalars, its two chunk buffers
// included. See MSMStreamScratchBound where no library is loaded.
func MSMStreamScratchBytes(device int, g Group, m StreamedMSM, opts ...MSMOption) (int64, error) {
	o, err := configure(opts)
	if err != nil {
		return 0, err
	}
	if m.NBases < 0 || m.NScalars < 0 || m.ChunkPoints < 0 {
		return 0, fmt.Errorf("%w: msm_stream_scratch_bytes: negative sizes", ErrInvalidArgument)
	}
	l, err := getDevice(device)
	if err != nil {
		return 0, err
	}
	var b C.uint64_t
	err = call("msm_stream_scratch_bytes", func(msg *C.char, k C.size_t) C.int {
		return C.go_gpuc2_msm_stream_scratch_bytes(l.api, C.int32_t(device), C.int32_t(g), C.uint64_t(m.NBases),
			C.uint64_t(m.NScalars), o.flags(m.Canonical), C.uint64_t(m.ChunkPoints), &b, msg, k)
	})
	return int64(b), err
}

// HScratchBytes is the pool memory Stream.HStep and HDevice allocate
// beside their vectors at 2^logM elements (the NTT tables).
func HScratchBytes(logM uint32) (int64, error) {
	l, err := get()
	if err != nil {
		return 0, err
	}
	var b C.uint64_t
	err = call("h_scratch_bytes", func(msg *C.char, k C.size_t) C.int {
		return C.go_gpuc2_h_scratch_bytes(l.api, C.uint32_t(logM), &b, msg, k)
	})
	return int64(b), err
}

// PoolHighWater returns the most bytes the device's stream-ordered pool has
// held allocated at once since the process began using it (every proof's
// working set; a resident key is allocated outside the pool). It reads and
// resets the library's mark, keeping the maximum here.
func PoolHighWater(device int) (uint64, error) {
	p, err := poolPeak(device)
	if err != nil {
		return 0, err
	}
	highWater.mu.Lock()
	defer highWater.mu.Unlock()
	if highWater.max == nil {
		highWater.max = map[int]uint64{}
		highWater.since = map[int]uint64{}
	}
	highWater.max[device] = max(highWater.max[device], p)
	highWater.since[device] = max(highWater.since[device], p)
	return highWater.max[device], nil
}

// highWater keeps the pool marks that poolPeak resets: since process start
// (PoolHighWater) and since the previous PoolPeak (tests).
var highWater struct {
	mu         sync.Mutex
	max, since map[int]uint64
}

func logPow2(n int) (uint32, bool) {
	if n <= 0 || n&(n-1) != 0 {
		return 0, false
	}
	var k uint32
	for 1<<k < n {
		k++
	}
	return k, true
}

// ntt transforms data (length a power of two, at most 2^28) in place; the
// test-only NTT.
func ntt(device int, data []fr.Element, dir int32) error {
	l, err := getDevice(device)
	if err != nil {
		return err
	}
	k, ok := logPow2(len(data))
	if !ok {
		return fmt.Errorf("%w: ntt: length %d is not a power of two", ErrInvalidArgument, len(data))
	}
	return call("ntt", func(m *C.char, n C.size_t) C.int {
		return C.go_gpuc2_ntt(l.api, C.int32_t(device), unsafe.Pointer(&data[0]), C.uint32_t(k), C.int32_t(dir), m, n)
	})
}

// H computes the Groth16 quotient as bellperson does. a, b and c hold n ≤ m
// evaluations each (zero-padded to m = len(out), a power of two); out
// receives the m coefficients of (a·b − c)/Z on the coset (the caller keeps
// the first m−1).
func H(device int, a, b, c, out []fr.Element) error {
	l, err := getDevice(device)
	if err != nil {
		return err
	}
	k, ok := logPow2(len(out))
	if !ok {
		return fmt.Errorf("%w: h: output length %d is not a power of two", ErrInvalidArgument, len(out))
	}
	n := len(a)
	if len(b) != n || len(c) != n || n > len(out) {
		return fmt.Errorf("%w: h: lengths a %d, b %d, c %d, out %d", ErrInvalidArgument, len(a), len(b), len(c), len(out))
	}
	return call("h", func(m *C.char, z C.size_t) C.int {
		return C.go_gpuc2_h(l.api, C.int32_t(device), unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)),
			unsafe.Pointer(unsafe.SliceData(c)), C.uint64_t(n), C.uint32_t(k), unsafe.Pointer(&out[0]), m, z)
	})
}

// benchResident uploads the inputs once and times iters runs of op on the
// device with CUDA events, returning each run's milliseconds; for the
// test-only Bench functions.
func benchResident(device int, op benchOp, in [3]unsafe.Pointer, n, iters int, opts []MSMOption) ([]float32, error) {
	o, err := configure(opts)
	if err != nil {
		return nil, err
	}
	l, err := getDevice(device)
	if err != nil {
		return nil, err
	}
	if iters <= 0 || n <= 0 {
		return nil, fmt.Errorf("%w: bench: n %d, iters %d", ErrInvalidArgument, n, iters)
	}
	var k uint32
	if op == benchNTT || op == benchH || op >= benchNTTDir {
		var ok bool
		if k, ok = logPow2(n); !ok {
			return nil, fmt.Errorf("%w: bench: n %d is not a power of two", ErrInvalidArgument, n)
		}
	}
	ms := make([]float32, iters)
	err = call("bench", func(m *C.char, z C.size_t) C.int {
		return C.go_gpuc2_bench(l.api, C.int32_t(device), C.int32_t(op), in[0], in[1], in[2], C.uint64_t(n), C.uint32_t(k),
			C.uint32_t(iters), o.flags(false), (*C.float)(unsafe.Pointer(&ms[0])), m, z)
	})
	return ms, err
}

// PoolPeakSince returns the most bytes the device's pool has held
// allocated at once since the previous PoolPeakSince (or the pool's first
// use) and starts a new interval; PoolHighWater is unaffected. For tests
// and benchmarks that check a working set against a limit.
func PoolPeakSince(device int) (uint64, error) {
	if _, err := PoolHighWater(device); err != nil {
		return 0, err
	}
	highWater.mu.Lock()
	defer highWater.mu.Unlock()
	p := highWater.since[device]
	highWater.since[device] = 0
	return p, nil
}

// poolPeak returns the library's high-water mark of allocated bytes since
// its previous call and resets it.
func poolPeak(device int) (uint64, error) {
	l, err := getDevice(device)
	if err != nil {
		return 0, err
	}
	var p C.uint64_t
	err = call("pool_peak", func(m *C.char, k C.size_t) C.int {
		return C.go_gpuc2_pool_peak(l.api, C.int32_t(device), &p, m, k)
	})
	return uint64(p), err
}
