package gpuc2_test

import (
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

// Every figure in the README links to the BENCHMARKS.md section that
// gives its command: each such link must name a heading there (GitHub's
// anchors: lower case, punctuation dropped, spaces as hyphens).
func TestReadmeBenchmarkLinks(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	bench, err := os.ReadFile("BENCHMARKS.md")
	require.NoError(t, err)
	anchors := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^#+ (.*)$`).FindAllStringSubmatch(string(bench), -1) {
		anchors[githubAnchor(m[1])] = true
	}
	links := regexp.MustCompile(`\(BENCHMARKS\.md#([^)]+)\)`).FindAllStringSubmatch(string(readme), -1)
	require.NotEmpty(t, links)
	for _, l := range links {
		assert.True(t, anchors[l[1]], "README.md links to BENCHMARKS.md#%s, which is no heading there", l[1])
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
