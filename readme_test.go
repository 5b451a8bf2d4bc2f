package gpuc2_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The README's code and flag lists are copies of what the tests build and
// run. A fenced block after the line `<!-- example: NAME -->` is the body
// of func NAME in example_test.go (up to its Output comment, one tab
// less); one after `<!-- flags: DIR -->` is what the program in DIR
// prints for -h.

// readmeBlock is a fenced block of README.md and the marker before it.
type readmeBlock struct {
	kind, arg, text string
}

var readmeMarker = regexp.MustCompile("(?m)^<!-- (example|flags): (\\S+) -->\n```[a-z]*\n((?s:.*?))^```$")

func readmeBlocks(t *testing.T, kind string) []readmeBlock {
	t.Helper()
	b, err := os.ReadFile("README.md")
	require.NoError(t, err)
	var out []readmeBlock
	for _, m := range readmeMarker.FindAllStringSubmatch(string(b), -1) {
		if m[1] == kind {
			out = append(out, readmeBlock{kind: m[1], arg: m[2], text: m[3]})
		}
	}
	require.NotEmpty(t, out, "README.md has no <!-- %s: … --> marker followed by a fenced block", kind)
	return out
}

func TestReadmeExamples(t *testing.T) {
	src, err := os.ReadFile("example_test.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "example_test.go", src, parser.ParseComments)
	require.NoError(t, err)
	for _, blk := range readmeBlocks(t, "example") {
		t.Run(blk.arg, func(t *testing.T) {
			body := exampleBody(t, fset, f, src, blk.arg)
			assert.Equal(t, body, blk.text, "README.md's block after <!-- example: %s --> must be the body of %s in example_test.go", blk.arg, blk.arg)
		})
	}
}

// exampleBody is the body of func name, without its Output comment and
// one tab less, as the README shows it.
func exampleBody(t *testing.T, fset *token.FileSet, f *ast.File, src []byte, name string) string {
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != name {
			continue
		}
		end := fset.Position(fn.Body.Rbrace).Offset
		for _, cg := range f.Comments {
			if cg.Pos() > fn.Body.Lbrace && cg.End() < fn.Body.Rbrace && strings.HasPrefix(cg.Text(), "Output:") {
				end = fset.Position(cg.Pos()).Offset
			}
		}
		text := string(src[fset.Position(fn.Body.Lbrace).Offset+1 : end])
		var lines []string
		for _, l := range strings.Split(strings.Trim(text, "\n\t"), "\n") {
			lines = append(lines, strings.TrimPrefix(l, "\t"))
		}
		return strings.Join(lines, "\n") + "\n"
	}
	t.Fatalf("example_test.go has no func %s", name)
	return ""
}

func TestReadmeFlags(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the README shows the defaults of a Linux user whose home is /home/user")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("needs the go command to build the programs:", err)
	}
	for _, blk := range readmeBlocks(t, "flags") {
		t.Run(blk.arg, func(t *testing.T) {
			bin := filepath.Join(t.TempDir(), filepath.Base(blk.arg))
			build := exec.Command(goTool, "build", "-o", bin, "./"+blk.arg)
			out, err := build.CombinedOutput()
			require.NoError(t, err, "go build ./%s: %s", blk.arg, out)
			help := exec.Command(bin, "-h")
			help.Env = []string{"HOME=/home/user", "PATH=" + os.Getenv("PATH")} // defaults that do not depend on this machine
			out, err = help.CombinedOutput()
			require.NoError(t, err, "%s -h exits 0", blk.arg)
			assert.Equal(t, string(out), blk.text, "README.md's block after <!-- flags: %s --> must be `go run ./%s -h` (HOME=/home/user)", blk.arg, blk.arg)
		})
	}
}

// markdownAnchors are the anchors GitHub gives a file's headings (a repeated
// one gets -1, -2, … appended); fenced blocks hold no headings.
func markdownAnchors(t *testing.T, file string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
			continue
		}
		m := regexp.MustCompile(`^#{1,6} (.*)$`).FindStringSubmatch(l)
		if fenced || m == nil {
			continue
		}
		a := githubAnchor(m[1])
		if n := seen[a]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}

// Every link to an anchor, from README.md or BENCHMARKS.md into either (a
// README figure links to the BENCHMARKS.md table that gives its command),
// names a heading there: GitHub's anchors, lower case, punctuation but '-'
// and '_' dropped, spaces as hyphens.
func TestReadmeAnchorLinks(t *testing.T) {
	files := []string{"README.md", "BENCHMARKS.md"}
	anchors := map[string]map[string]bool{}
	for _, f := range files {
		anchors[f] = markdownAnchors(t, f)
	}
	link := regexp.MustCompile(`\]\(((?:README|BENCHMARKS)\.md)?#([^)]+)\)`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		links := link.FindAllStringSubmatch(string(b), -1)
		require.NotEmpty(t, links, "%s links to no anchor", f)
		for _, l := range links {
			target := l[1]
			if target == "" {
				target = f
			}
			assert.True(t, anchors[target][l[2]], "%s links to %s#%s, which is no heading there", f, target, l[2])
		}
	}
}

// BENCHMARKS.md is a reference, not a diary: it and the README name what
// was measured, card and date, never the work session that measured it.
func TestReadmeAndBenchmarksNameNoSessions(t *testing.T) {
	word := regexp.MustCompile(`(?i)\bsessions?\b`)
	for _, f := range []string{"README.md", "BENCHMARKS.md"} {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for i, l := range strings.Split(string(b), "\n") {
			assert.False(t, word.MatchString(l), "%s:%d says %q", f, i+1, word.FindString(l))
		}
	}
}

func githubAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// readmeCode splits README.md into the command lines of its fenced blocks
// (not Go code, not the -h copies after <!-- flags: … -->, which
// TestReadmeFlags checks; a line ending in a backslash joined to the next)
// and its inline code spans, each a string to read as a command.
func readmeCode(t *testing.T) (blocks map[string][]string, spans []string) {
	t.Helper()
	b, err := os.ReadFile("README.md")
	require.NoError(t, err)
	blocks = map[string][]string{}
	var prose strings.Builder
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if !strings.HasPrefix(l, "```") {
			prose.WriteString(l + "\n")
			continue
		}
		lang := strings.TrimPrefix(l, "```")
		flags := i > 0 && strings.HasPrefix(lines[i-1], "<!-- flags:")
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
			if lang == "go" || flags {
				continue
			}
			l := lines[i]
			for strings.HasSuffix(l, "\\") && i+1 < len(lines) {
				i++
				l = strings.TrimSuffix(l, "\\") + " " + lines[i]
			}
			blocks[lang] = append(blocks[lang], l)
		}
	}
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(prose.String(), -1) {
		spans = append(spans, strings.Join(strings.Fields(m[1]), " "))
	}
	return blocks, spans
}

func readmeCommands(t *testing.T) []string {
	blocks, spans := readmeCode(t)
	var cmds []string
	for _, ls := range blocks {
		cmds = append(cmds, ls...)
	}
	return append(cmds, spans...)
}

// Every package a README command builds, runs, installs or tests exists.
func TestReadmeCommandPaths(t *testing.T) {
	goCmd := regexp.MustCompile(`\bgo (?:run|build|install|test|get)\b([^;&|#]*)`)
	n := 0
	for _, c := range readmeCommands(t) {
		for _, m := range goCmd.FindAllStringSubmatch(c, -1) {
			for _, tok := range strings.Fields(m[1]) {
				dir := ""
				switch {
				case strings.HasPrefix(tok, "./"):
					dir = strings.TrimSuffix(strings.TrimSuffix(tok, "..."), "/")
				case strings.HasPrefix(tok, "github.com/gpuc2/gpuc2/"):
					dir = "./" + strings.TrimPrefix(strings.SplitN(tok, "@", 2)[0], "github.com/gpuc2/gpuc2/")
				default:
					continue
				}
				if dir == "." || dir == "" {
					continue
				}
				n++
				st, err := os.Stat(dir)
				if assert.NoError(t, err, "README.md runs `%s`: %s does not exist", strings.TrimSpace(m[0]), dir) {
					assert.True(t, st.IsDir(), "README.md's `%s`: %s is no package directory", strings.TrimSpace(m[0]), dir)
				}
			}
		}
	}
	require.NotZero(t, n, "README.md names no package in a go command")
}

// Every flag a README command gives one of the example programs is one that
// program has (its -h lists it).
func TestReadmeProgramFlags(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("builds the example programs")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("needs the go command to build the programs:", err)
	}
	entries, err := os.ReadDir("examples")
	require.NoError(t, err)
	progs := map[string]bool{}
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join("examples", e.Name(), "main.go")); err == nil {
			progs[e.Name()] = true
		}
	}
	flagTok := regexp.MustCompile(`^--?([a-z][a-z0-9-]*)(=.*)?$`)
	used := map[string]map[string]string{} // program → flag → the command using it
	for _, c := range readmeCommands(t) {
		toks := strings.Fields(c)
		for i, tok := range toks {
			name := tok[strings.LastIndexAny(tok, "/=")+1:]
			if !progs[name] || (name != tok && !strings.Contains(tok, "/")) {
				continue
			}
			for _, a := range toks[i+1:] {
				if strings.HasPrefix(a, "#") || strings.ContainsAny(a[:1], "|;&>") {
					break
				}
				if m := flagTok.FindStringSubmatch(a); m != nil {
					if used[name] == nil {
						used[name] = map[string]string{}
					}
					used[name][m[1]] = c
				}
				if strings.HasSuffix(a, ";") || strings.HasSuffix(a, "&") {
					break
				}
			}
		}
	}
	require.NotEmpty(t, used["gpuc2d"], "README.md gives gpuc2d no flag")
	require.NotEmpty(t, used["cuzkclient"], "README.md gives cuzkclient no flag")
	// A program whose -h the README copies (checked by TestReadmeFlags) is
	// read from there; the others are built.
	helps := map[string]string{}
	for _, blk := range readmeBlocks(t, "flags") {
		helps[filepath.Base(blk.arg)] = blk.text
	}
	dir := t.TempDir()
	args := []string{"build", "-o", dir + "/"}
	for p := range used {
		if _, ok := helps[p]; !ok {
			args = append(args, "./examples/"+p)
		}
	}
	if len(args) > 3 {
		out, err := exec.Command(goTool, args...).CombinedOutput()
		require.NoError(t, err, "go %s: %s", strings.Join(args, " "), out)
	}
	listed := regexp.MustCompile(`(?m)^\s+-([a-z][a-z0-9-]*)`)
	for p, flags := range used {
		help, ok := helps[p]
		if !ok {
			out, _ := exec.Command(filepath.Join(dir, p), "-h").CombinedOutput()
			help = string(out)
		}
		have := map[string]bool{"h": true, "help": true}
		for _, m := range listed.FindAllStringSubmatch(help, -1) {
			have[m[1]] = true
		}
		require.Greater(t, len(have), 2, "%s -h lists no flags: %s", p, help)
		for f, c := range flags {
			assert.True(t, have[f], "README.md gives %s the flag -%s, which `%s -h` does not list (in `%s`)", p, f, p, c)
		}
	}
}

// The systemd unit runs a binary and loads a library that an install step
// of the README put there.
func TestReadmeInstallsWhatTheUnitRuns(t *testing.T) {
	blocks, _ := readmeCode(t)
	var want []string
	for _, l := range blocks["ini"] {
		if m := regexp.MustCompile(`^ExecStart=(\S+)`).FindStringSubmatch(l); m != nil {
			want = append(want, m[1])
		}
		if m := regexp.MustCompile(`^Environment=GPUC2_NATIVE_LIB=(\S+)`).FindStringSubmatch(l); m != nil {
			want = append(want, m[1])
		}
	}
	require.Len(t, want, 2, "README.md's unit: an ExecStart and a GPUC2_NATIVE_LIB")
	type install struct {
		srcs []string
		dest string
	}
	var installs []install
	for _, l := range blocks["sh"] {
		l, _, _ = strings.Cut(l, "#")
		toks := strings.Fields(l)
		if len(toks) > 0 && toks[0] == "sudo" {
			toks = toks[1:]
		}
		if len(toks) < 3 || toks[0] != "install" {
			continue
		}
		var srcs []string
		for i := 1; i < len(toks)-1; i++ {
			switch {
			case toks[i] == "-m" || toks[i] == "-o" || toks[i] == "-g":
				i++
			case !strings.HasPrefix(toks[i], "-"):
				srcs = append(srcs, toks[i])
			}
		}
		installs = append(installs, install{srcs, toks[len(toks)-1]})
	}
	for _, w := range want {
		found := false
		for _, in := range installs {
			for _, s := range in.srcs {
				if in.dest == w || (strings.HasSuffix(in.dest, "/") && in.dest+filepath.Base(s) == w) {
					found = true
				}
			}
		}
		assert.True(t, found, "README.md's systemd unit uses %s, which no `install` line of the README puts there", w)
	}
}
