//go:build cgo

package native

/*
#cgo CFLAGS: -I${SRCDIR}/include
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include "gpuc2.h"

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

static int go_gpuc2_ntt(const gpuc2_api_t* a, int32_t d, void* data, uint32_t log_m, int32_t dir, char* msg, size_t len) {
	return a->ntt(d, data, log_m, dir, msg, len);
}

static int go_gpuc2_h(const gpuc2_api_t* a, int32_t d, const void* x, const void* y, const void* z, uint64_t n,
                   uint32_t log_m, void* out, char* msg, size_t len) {
	return a->h(d, x, y, z, n, log_m, out, msg, len);
}

static int go_gpuc2_bench(const gpuc2_api_t* a, int32_t d, int32_t op, const void* i0, const void* i1,
                       const void* i2, uint64_t n, uint32_t log_m, uint32_t iters, float* ms, char* msg, size_t len) {
	return a->bench_resident(d, op, i0, i1, i2, n, log_m, iters, ms, msg, len);
}
*/
import "C"

import (
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

const msgLen = 1024

type library struct {
	path    string
	api     *C.gpuc2_api_t
	devices int
}

func candidates() []string {
	var out []string
	if p := os.Getenv(EnvLibrary); p != "" {
		out = append(out, p)
	}
	if exe, err := os.Executable(); err == nil {
		out = append(out, filepath.Join(filepath.Dir(exe), LibraryName))
	}
	return append(out, LibraryName) // dynamic linker search path
}

func load() (*library, error) {
	var errs []string
	for _, path := range candidates() {
		if path != LibraryName {
			if _, err := os.Stat(path); err != nil {
				errs = append(errs, fmt.Sprintf("%s: %v", path, err))
				continue
			}
		}
		l, err := open(path)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		return l, nil
	}
	return nil, fmt.Errorf("%w: %v", ErrNotAvailable, errs)
}

func open(path string) (*library, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var cerr *C.char
	h := C.go_gpuc2_dlopen(cpath, &cerr)
	if h == nil {
		return nil, fmt.Errorf("dlopen %s: %s", path, C.GoString(cerr))
	}
	api := C.go_gpuc2_resolve(h, &cerr)
	if api == nil {
		C.dlclose(h)
		return nil, fmt.Errorf("dlsym gpuc2_api in %s (a library older than ABI 2?): %s", path, C.GoString(cerr))
	}
	if api.abi_version != ABIVersion || uintptr(api.struct_size) < unsafe.Sizeof(*api) {
		C.dlclose(h)
		return nil, fmt.Errorf("%s: ABI version %d (table %d bytes), want %d (%d bytes)", path,
			api.abi_version, api.struct_size, ABIVersion, unsafe.Sizeof(*api))
	}
	l := &library{path: path, api: api}
	var n C.int32_t
	msg := make([]byte, msgLen)
	if rc := C.go_gpuc2_device_count(api, &n, cmsg(msg), msgLen); rc != 0 {
		return nil, fmt.Errorf("%s: device count: %s (code %d)", path, goMsg(msg), int(rc))
	}
	if n <= 0 {
		return nil, fmt.Errorf("%s: no CUDA device", path)
	}
	l.devices = int(n)
	return l, nil
}

func cmsg(b []byte) *C.char { return (*C.char)(unsafe.Pointer(&b[0])) }

func goMsg(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

func get() (*library, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	return lib, nil
}

func status(op string, rc C.int, msg []byte) error {
	if rc == 0 {
		return nil
	}
	return &Error{Op: op, Code: int(rc), Msg: goMsg(msg)}
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

// Devices lists the CUDA devices.
func Devices() ([]Device, error) {
	l, err := get()
	if err != nil {
		return nil, err
	}
	out := make([]Device, 0, l.devices)
	msg := make([]byte, msgLen)
	for i := 0; i < l.devices; i++ {
		var info C.gpuc2_device_info
		if err := status("device_info", C.go_gpuc2_device_info(l.api, C.int32_t(i), &info, cmsg(msg), msgLen), msg); err != nil {
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

func checkDevice(l *library, device int) error {
	if device < 0 || device >= l.devices {
		return fmt.Errorf("%w: device %d of %d", ErrInvalidArgument, device, l.devices)
	}
	return nil
}

// MSMG1 returns Σ scalars[i]·bases[j(i)] on the given device. density may be
// nil (then len(bases) == len(scalars)); otherwise it holds ceil(len(scalars)/64)
// words, bit i set meaning scalar i is used with the next base, and
// len(bases) equals its popcount. Scalars are in Montgomery form.
func MSMG1(device int, bases []bls12381.G1Affine, scalars []fr.Element, density []uint64) (bls12381.G1Jac, error) {
	var res bls12381.G1Jac
	err := msm("msm_g1", 0, device, unsafe.Pointer(unsafe.SliceData(bases)), len(bases), scalars, density, unsafe.Pointer(&res))
	return res, err
}

// MSMG2 is MSMG1 over G2.
func MSMG2(device int, bases []bls12381.G2Affine, scalars []fr.Element, density []uint64) (bls12381.G2Jac, error) {
	var res bls12381.G2Jac
	err := msm("msm_g2", 1, device, unsafe.Pointer(unsafe.SliceData(bases)), len(bases), scalars, density, unsafe.Pointer(&res))
	return res, err
}

func msm(op string, g2 int, device int, bases unsafe.Pointer, nb int, scalars []fr.Element, density []uint64, out unsafe.Pointer) error {
	l, err := get()
	if err != nil {
		return err
	}
	if err := checkDevice(l, device); err != nil {
		return err
	}
	var dp *C.uint64_t
	if density != nil {
		if len(density) != (len(scalars)+63)/64 {
			return fmt.Errorf("%w: %s: %d density words for %d scalars", ErrInvalidArgument, op, len(density), len(scalars))
		}
		if len(density) > 0 {
			dp = (*C.uint64_t)(unsafe.Pointer(&density[0]))
		}
	}
	msg := make([]byte, msgLen)
	rc := C.go_gpuc2_msm(l.api, C.int(g2), C.int32_t(device), bases, C.uint64_t(nb),
		unsafe.Pointer(unsafe.SliceData(scalars)), C.uint64_t(len(scalars)), dp, C.uint64_t(len(density)),
		0, out, cmsg(msg), msgLen)
	return status(op, rc, msg)
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

// NTT transforms data (length a power of two, at most 2^28) in place.
func NTT(device int, data []fr.Element, dir Direction) error {
	l, err := get()
	if err != nil {
		return err
	}
	if err := checkDevice(l, device); err != nil {
		return err
	}
	k, ok := logPow2(len(data))
	if !ok {
		return fmt.Errorf("%w: ntt: length %d is not a power of two", ErrInvalidArgument, len(data))
	}
	msg := make([]byte, msgLen)
	rc := C.go_gpuc2_ntt(l.api, C.int32_t(device), unsafe.Pointer(&data[0]), C.uint32_t(k), C.int32_t(dir), cmsg(msg), msgLen)
	return status("ntt", rc, msg)
}

// H computes the Groth16 quotient as bellperson does. a, b and c hold n ≤ m
// evaluations each (zero-padded to m = len(out), a power of two); out
// receives the m coefficients of (a·b − c)/Z on the coset (the caller keeps
// the first m−1).
func H(device int, a, b, c, out []fr.Element) error {
	l, err := get()
	if err != nil {
		return err
	}
	if err := checkDevice(l, device); err != nil {
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
	msg := make([]byte, msgLen)
	rc := C.go_gpuc2_h(l.api, C.int32_t(device), unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)),
		unsafe.Pointer(unsafe.SliceData(c)), C.uint64_t(n), C.uint32_t(k), unsafe.Pointer(&out[0]), cmsg(msg), msgLen)
	return status("h", rc, msg)
}

// BenchResident uploads the inputs once and times iters runs of op on the
// device with CUDA events, returning each run's milliseconds. For benchmarks.
func BenchResident(device int, op BenchOp, in0, in1, in2 unsafe.Pointer, n int, iters int) ([]float32, error) {
	l, err := get()
	if err != nil {
		return nil, err
	}
	if err := checkDevice(l, device); err != nil {
		return nil, err
	}
	if iters <= 0 || n <= 0 {
		return nil, fmt.Errorf("%w: bench: n %d, iters %d", ErrInvalidArgument, n, iters)
	}
	var k uint32
	if op == BenchNTT || op == BenchH {
		var ok bool
		if k, ok = logPow2(n); !ok {
			return nil, fmt.Errorf("%w: bench: n %d is not a power of two", ErrInvalidArgument, n)
		}
	}
	ms := make([]float32, iters)
	msg := make([]byte, msgLen)
	rc := C.go_gpuc2_bench(l.api, C.int32_t(device), C.int32_t(op), in0, in1, in2, C.uint64_t(n), C.uint32_t(k),
		C.uint32_t(iters), (*C.float)(unsafe.Pointer(&ms[0])), cmsg(msg), msgLen)
	return ms, status("bench", rc, msg)
}
