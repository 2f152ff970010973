package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
)

// The platform whose build of the module the record describes.
const (
	recordGOOS   = "linux"
	recordGOARCH = "amd64"
)

// listed is what go list tells of a package.
type listed struct {
	ImportPath string
	Name       string
	Export     string
	DepOnly    bool
	Module     *struct{ Path string }
	Error      *struct{ Err string }
}

// moduleAPI returns the record lines of every public package of the module
// in dir: the packages' types come from the export data the go command
// builds, as the compiler would see them when an importer compiles against
// the module.
func moduleAPI(ctx context.Context, dir string) ([]string, error) {
	pkgs, err := goList(ctx, dir)
	if err != nil {
		return nil, err
	}
	exports := make(map[string]string, len(pkgs))
	var public []listed
	for _, p := range pkgs {
		if p.Error != nil {
			return nil, fmt.Errorf("package %s: %s", p.ImportPath, p.Error.Err)
		}
		exports[p.ImportPath] = p.Export
		if !p.DepOnly && isPublic(p) {
			public = append(public, p)
		}
	}
	if len(public) == 0 {
		return nil, fmt.Errorf("no public package in %s", dir)
	}
	sort.Slice(public, func(i, j int) bool { return public[i].ImportPath < public[j].ImportPath })

	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	var lines []string
	for _, p := range public {
		pkg, err := imp.Import(p.ImportPath)
		if err != nil {
			return nil, fmt.Errorf("read the types of %s: %w", p.ImportPath, err)
		}
		lines = append(lines, packageAPI(pkg)...)
	}
	return sortUnique(lines), nil
}

// goList lists the packages of the module in dir with their dependencies,
// building export data for each.
func goList(ctx context.Context, dir string) ([]listed, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-e", "-deps", "-export",
		"-json=ImportPath,Name,Export,DepOnly,Module,Error", "./...")
	cmd.Dir = dir
	// One platform for every machine: a record written on a Mac must match
	// one written on Linux, whatever files build constraints select.
	cmd.Env = append(os.Environ(), "GOOS="+recordGOOS, "GOARCH="+recordGOARCH)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go list in %s: %w\n%s", dir, err, strings.TrimSpace(stderr.String()))
	}
	var pkgs []listed
	dec := json.NewDecoder(&stdout)
	for {
		var p listed
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			return pkgs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read go list's output: %w", err)
		}
		pkgs = append(pkgs, p)
	}
}

// isPublic reports whether an importer of the module can use the package:
// it is a library package of the module, not under internal/ (which the go
// command hides) nor examples/ (which are programs to read, not to import).
func isPublic(p listed) bool {
	if p.Name == "main" || p.Module == nil {
		return false
	}
	rel, ok := strings.CutPrefix(p.ImportPath, p.Module.Path)
	if !ok || (rel != "" && rel[0] != '/') {
		return false
	}
	parts := strings.Split(strings.TrimPrefix(rel, "/"), "/")
	if parts[0] == "examples" {
		return false
	}
	for _, part := range parts {
		if part == "internal" {
			return false
		}
	}
	return true
}

// packageAPI is the exported API of pkg as record lines, unsorted.
func packageAPI(pkg *types.Package) []string {
	w := &writer{pkg: pkg}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		w.object(obj)
	}
	return w.lines
}

// sortUnique sorts lines and drops repeats.
func sortUnique(lines []string) []string {
	sort.Strings(lines)
	out := lines[:0]
	for i, l := range lines {
		if i > 0 && l == lines[i-1] {
			continue
		}
		out = append(out, l)
	}
	return out
}
