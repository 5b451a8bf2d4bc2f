package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/cuzk"
	"github.com/gpuc2/gpuc2/examples/internal/cli"
)

// DefaultListen is cuzk's address: localhost, never a public one unless asked.
const DefaultListen = "127.0.0.1:9820"

type options struct {
	config        string
	listen        string
	metricsListen string
	paramsDir     string
	testParams    string // the cache root of TEST-ONLY setups (testParamsRoot)
	testParamsArg string // -test-params as given
	preload       []string
	plan          bool   // -plan: print -preload's modelled needs and exit
	backend       string // "cpu" or "cuda", once checked
	backendAuto   bool   // -backend auto chose it
	backendWhy    string // why (cli.Backend)
	devices       []int
	deviceMem     int64
	hostMem       int64
	workers       int
	maxPending    int
	drain         time.Duration
	retain        time.Duration
	logFormat     string
	logLevel      string
	level         slog.Level // -log-level, parsed
}

// parseFlags parses the command line, then the -config file for the flags
// the command line did not set.
func parseFlags(args []string, output io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("gpuc2d", flag.ContinueOnError)
	fs.SetOutput(output)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: gpuc2d [flags]\n\n"+
			"Serves Curio's proving-daemon protocol (cuzk.v1.ProvingEngine, gRPC) over gpuc2: PoRep C2, SnapDeals\n"+
			"update, WindowPoSt and WinningPoSt proofs on the GPUs (or the CPU), with the parameters kept loaded. Every\n"+
			"flag can also be set in the -config TOML file.\n\n")
		fs.PrintDefaults()
	}
	fs.StringVar(&o.config, "config", "", "TOML file setting any of these flags by name (the command line wins)")
	fs.StringVar(&o.listen, "listen", DefaultListen, "gRPC address: host:port, or unix:///path/to.sock (created mode 0660); no authentication: keep it on localhost, a unix socket or a private network")
	fs.StringVar(&o.metricsListen, "metrics-listen", "", "host:port to serve Prometheus metrics at /metrics over HTTP; empty: off (GetMetrics serves them over gRPC)")
	fs.StringVar(&o.paramsDir, "params", gpuc2.DefaultParamsDir(), "directory of Filecoin's parameter files")
	fs.StringVar(&o.testParams, "test-params", "", "cache directory of TEST-ONLY setups, kept in its gpuc2/test-params (that folder is taken too), used where -params has no real files: created on first use up to 512 MiB, made beforehand with examples/testsetup for 32/64 GiB; their proofs never verify on chain. Empty: none")
	fs.Func("preload", "circuits to load at start, comma-separated ("+strings.Join(cuzk.CircuitIDs(), ", ")+"); gpuc2d refuses to start when one's parameters are missing", func(s string) error {
		for _, id := range strings.Split(s, ",") {
			if id = strings.TrimSpace(id); id != "" {
				o.preload = append(o.preload, id)
			}
		}
		return nil
	})
	fs.BoolVar(&o.plan, "plan", false, "print what -preload's circuits need together on a GPU host under -device-memory and -host-memory (the resource model: where each key is held, host RAM, pinned memory, VRAM) and exit; needs no GPU and no parameter files")
	fs.StringVar(&o.backend, "backend", "auto", "where H and the MSMs run: auto (cuda when the native library loads), cpu or cuda")
	fs.Func("devices", "GPUs to prove on, comma-separated ordinals (default every visible one)", cli.DevicesFlag(&o.devices))
	fs.Func("device-memory", "device memory gpuc2 may use per GPU, e.g. 16GiB (default: the free memory less a margin); below the key's need the key streams from pinned host memory", cli.BytesFlag(&o.deviceMem))
	fs.Func("host-memory", "host memory budget of the partitions' working sets, e.g. 64GiB (default: the machine's memory less a margin)", cli.BytesFlag(&o.hostMem))
	fs.IntVar(&o.workers, "workers", 0, "prover workers per GPU, or on the CPU (0: gpuc2's default)")
	fs.IntVar(&o.maxPending, "max-pending", 0, "refuse SubmitProof (ResourceExhausted) of a PoRep or SnapDeals proof while this many of them are queued or running (PoSt is never refused); 0: no limit")
	fs.DurationVar(&o.drain, "drain", 60*time.Second, "on SIGTERM or SIGINT, how long running proofs may finish before they are cancelled")
	fs.DurationVar(&o.retain, "retain", cuzk.DefaultRetain, "how long a finished job's outcome is kept for AwaitProof and for a repeated request (same request_id and content; completed jobs only)")
	fs.StringVar(&o.logFormat, "log-format", "text", "log format: text or json")
	fs.StringVar(&o.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	if err := cli.Parse(fs, args); err != nil {
		return nil, err
	}
	if o.config != "" {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if err := applyConfig(fs, o.config, set); err != nil {
			return nil, err
		}
	}
	return o, o.check()
}

// applyConfig sets, from the TOML file path, every flag the command line
// did not set; an unknown key is a usage error.
func applyConfig(fs *flag.FlagSet, path string, set map[string]bool) error {
	var values map[string]any
	if _, err := toml.DecodeFile(path, &values); err != nil {
		return cli.Usagef("-config %s: %w", path, err)
	}
	for name, v := range values {
		if name == "config" || fs.Lookup(name) == nil {
			return cli.Usagef("-config %s: unknown key %q (the keys are the flags' names; gpuc2d -h lists them)", path, name)
		}
		if set[name] {
			continue
		}
		var s string
		switch v := v.(type) {
		case []any:
			parts := make([]string, len(v))
			for i, x := range v {
				parts[i] = fmt.Sprint(x)
			}
			s = strings.Join(parts, ",")
		default:
			s = fmt.Sprint(v)
		}
		if err := fs.Set(name, s); err != nil {
			return cli.Usagef("-config %s: %s = %v: %w", path, name, v, err)
		}
	}
	return nil
}

// check refuses a bad combination before any work.
func (o *options) check() error {
	switch {
	case o.workers < 0:
		return cli.Usagef("-workers must not be negative, not %d", o.workers)
	case o.maxPending < 0:
		return cli.Usagef("-max-pending must not be negative, not %d", o.maxPending)
	case o.drain < 0:
		return cli.Usagef("-drain must not be negative, not %v", o.drain)
	case o.logFormat != "text" && o.logFormat != "json":
		return cli.Usagef("-log-format must be text or json, not %q", o.logFormat)
	}
	if err := o.level.UnmarshalText([]byte(o.logLevel)); err != nil {
		return cli.Usagef("-log-level %q: want debug, info, warn or error", o.logLevel)
	}
	for _, id := range o.preload {
		if !slices.Contains(cuzk.CircuitIDs(), id) {
			return cli.Usagef("-preload %q: gpuc2d serves %s", id, strings.Join(cuzk.CircuitIDs(), ", "))
		}
	}
	if _, err := listenAddr(o.listen); err != nil {
		return cli.Usagef("-listen: %w", err)
	}
	if o.plan {
		// A model of a GPU host needs no GPU here: cuda unless -backend cpu.
		switch {
		case len(o.preload) == 0:
			return cli.Usagef("-plan needs -preload: the circuits to model")
		case o.backend == "cpu":
		default:
			o.backend = "cuda"
		}
		return nil
	}
	backend, why, err := cli.Backend("backend", o.backend)
	if err != nil {
		return err
	}
	o.backendAuto = o.backend == "auto"
	o.backend, o.backendWhy = backend, why
	if backend != "cuda" {
		switch {
		case len(o.devices) > 0:
			return cli.Usagef("-devices needs the cuda backend; the backend is cpu (%s)", why)
		case o.deviceMem > 0:
			return cli.Usagef("-device-memory needs the cuda backend; the backend is cpu (%s)", why)
		}
	}
	o.testParamsArg = o.testParams
	if o.testParams != "" {
		if o.testParams, err = testParamsRoot(o.testParams); err != nil {
			return err
		}
	}
	return cli.Devices("devices", o.devices...)
}

// testParamsRoot is the cache root that -test-params dir names: dir, or
// the root above it where dir is the setups' folder itself
// (<root>/gpuc2/test-params, testSetupsDir) with none beneath it. A folder
// that holds setups but is no such folder is refused: they would not be
// found there, and a new one would be made beneath it.
func testParamsRoot(dir string) (string, error) {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return "", cli.Usagef("-test-params %s is not a directory", dir)
	}
	clean := filepath.Clean(dir)
	if root := filepath.Dir(filepath.Dir(clean)); testSetupsDir(root) == clean {
		if _, err := os.Stat(testSetupsDir(clean)); err != nil {
			return root, nil
		}
	}
	entries, _ := os.ReadDir(clean)
	for _, e := range entries {
		if name := e.Name(); strings.HasPrefix(name, "TEST-ONLY-") && strings.HasSuffix(name, ".params") {
			return "", cli.Usagef("-test-params %s holds a TEST-ONLY setup itself (%s), but it names the cache directory: "+
				"setups are looked for in %s. Name the directory whose gpuc2/test-params holds them, or move them there",
				dir, name, testSetupsDir(clean))
		}
	}
	return clean, nil
}

// testSetupsDir is the folder of the TEST-ONLY setups under the cache root
// (gpuc2.TestParamsPath's, the same for every proof type).
func testSetupsDir(root string) string {
	return filepath.Dir(gpuc2.TestParamsPath(root, abi.RegisteredSealProof_StackedDrg2KiBV1_1))
}

// address is a parsed -listen: a network and its address.
type address struct{ network, addr string }

// listenAddr parses -listen: unix:///path (or unix:path), else host:port
// (a dns:/// prefix, as Curio's client writes bare addresses, is dropped).
func listenAddr(s string) (address, error) {
	switch {
	case strings.HasPrefix(s, "unix://"):
		p := strings.TrimPrefix(s, "unix://")
		if !strings.HasPrefix(p, "/") {
			return address{}, fmt.Errorf("%q: want unix:///absolute/path.sock", s)
		}
		return address{"unix", p}, nil
	case strings.HasPrefix(s, "unix:"):
		return address{"unix", strings.TrimPrefix(s, "unix:")}, nil
	}
	s = strings.TrimPrefix(s, "dns:///")
	if !strings.Contains(s, ":") {
		return address{}, errors.New("want host:port or unix:///path.sock, not " + strconv.Quote(s))
	}
	return address{"tcp", s}, nil
}
