// Package cli is what the example commands share: a command line checked
// before any work (flags parsed, stray arguments refused, -h answered),
// usage errors that exit 2 as package flag's own do, the -backend flag
// resolved — with why the CPU is used when the GPU is not — and whether
// output goes to a terminal.
//
//	fs := flag.NewFlagSet("c2prove", flag.ContinueOnError)
//	backend := fs.String("backend", "auto", "auto, cpu or cuda")
//	err := cli.Parse(fs, os.Args[1:])
//	if err == nil {
//		_, _, err = cli.Backend("backend", *backend)
//	}
//	if err == nil {
//		err = run()
//	}
//	cli.Exit("c2prove", err) // 0, 1, or 2 after a usage error
//
// Usage errors exit 2, as package flag's own do: a bad value, a stray
// argument, -backend cuda without the native library. Nothing has been
// done when they are reported. -h prints the usage and exits 0.
package cli
