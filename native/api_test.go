package native_test

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/printer"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// sourceDir is the package's source directory: this file's, wherever the
// test binary runs (a binary carried to a GPU machine runs from the
// repository's root, or where the sources are absent: then it skips).
func sourceDir(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	dir := filepath.Dir(file)
	if _, err := os.Stat(filepath.Join(dir, "api.go")); !ok || err != nil {
		t.Skipf("the package's sources are not at %s", dir)
	}
	return dir
}

// exportedAPI returns the package's exported names, each with its
// signature for functions and methods ("Recv.Name" for methods), as built
// with or without cgo.
func exportedAPI(t *testing.T, cgo bool) map[string]string {
	t.Helper()
	ctx := build.Default
	ctx.CgoEnabled = cgo
	dir := sourceDir(t)
	pkg, err := ctx.ImportDir(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	files := slices.Concat(pkg.GoFiles, pkg.CgoFiles)
	if cgo == (len(pkg.CgoFiles) == 0) {
		t.Fatalf("cgo=%v: cgo files %v", cgo, pkg.CgoFiles)
	}
	fset := token.NewFileSet()
	typeString := func(e ast.Expr) string {
		var b strings.Builder
		if err := printer.Fprint(&b, fset, e); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	// fieldTypes lists a parameter list's types, one per parameter, so that
	// "a, b int" and "x int, y int" compare equal.
	fieldTypes := func(fl *ast.FieldList) string {
		var out []string
		if fl != nil {
			for _, f := range fl.List {
				for range max(1, len(f.Names)) {
					out = append(out, typeString(f.Type))
				}
			}
		}
		return "(" + strings.Join(out, ", ") + ")"
	}
	api := map[string]string{}
	for _, name := range files {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				key := d.Name.Name
				if d.Recv != nil {
					key = strings.TrimPrefix(typeString(d.Recv.List[0].Type), "*") + "." + key
				}
				api[key] = fieldTypes(d.Type.Params) + " " + fieldTypes(d.Type.Results)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							api[s.Name.Name] = "type"
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								api[n.Name] = d.Tok.String()
							}
						}
					}
				}
			}
		}
	}
	return api
}

// The build without cgo must offer exactly the cgo build's API, so that code
// written against one compiles against the other.
func TestAPISameWithoutCgo(t *testing.T) {
	withCgo, without := exportedAPI(t, true), exportedAPI(t, false)
	for _, k := range slices.Sorted(maps.Keys(withCgo)) {
		if w, ok := without[k]; !ok {
			t.Errorf("%s %s: missing without cgo", k, withCgo[k])
		} else if w != withCgo[k] {
			t.Errorf("%s: %s with cgo, %s without", k, withCgo[k], w)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(without)) {
		if _, ok := withCgo[k]; !ok {
			t.Errorf("%s: only without cgo", k)
		}
	}
	if len(withCgo) < 40 {
		t.Fatalf("found only %d exported names: %v", len(withCgo), slices.Sorted(maps.Keys(withCgo)))
	}
}
