package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// modFile is the part of `go mod edit -json` the check compares.
type modFile struct {
	Go        string
	Toolchain *struct{ Name string }
	Require   []struct {
		Path    string
		Version string
	}
}

// move is one line of the importer's go.mod that the get changed, as the
// line read before and after ("(none)" where there was or is no line).
type move struct {
	Before, After string
}

// result is what one check found.
type result struct {
	Before modFile
	Moved  []move
	// Output is what go get printed.
	Output []byte
}

const none = "(none)"

// moved lists the lines of before that after changes or drops: the go
// line, the toolchain line (an importer without one gets one only when its
// go line moves) and every required version. Requirements after adds are
// not moves.
func moved(before, after modFile) []move {
	var out []move
	if before.Go != after.Go {
		out = append(out, move{Before: "go " + before.Go, After: "go " + after.Go})
	}
	if b, a := toolchain(before), toolchain(after); b != a {
		out = append(out, move{Before: b, After: a})
	}
	versions := make(map[string]string, len(after.Require))
	for _, r := range after.Require {
		versions[r.Path] = r.Version
	}
	for _, r := range before.Require {
		v, ok := versions[r.Path]
		switch {
		case !ok:
			out = append(out, move{Before: r.Path + " " + r.Version, After: none})
		case v != r.Version:
			out = append(out, move{Before: r.Path + " " + r.Version, After: r.Path + " " + v})
		}
	}
	return out
}

func toolchain(m modFile) string {
	if m.Toolchain == nil {
		return none
	}
	return "toolchain " + m.Toolchain.Name
}

// check runs go get of the module at root in a copy of the importer in
// fixture and reports what moved.
func check(ctx context.Context, root, fixture string) (result, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return result{}, err
	}
	fixture, err = filepath.Abs(fixture)
	if err != nil {
		return result{}, err
	}
	dir, err := os.MkdirTemp("", "importcheck-")
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(dir)
	for _, name := range []string{"go.mod", "go.sum"} {
		if err := copyFile(filepath.Join(fixture, name), filepath.Join(dir, name)); err != nil {
			return result{}, err
		}
	}
	env, err := goEnv(ctx, dir, fixture)
	if err != nil {
		return result{}, err
	}
	if _, err := goCmd(ctx, dir, env, "mod", "edit", "-replace", modulePath+"="+root); err != nil {
		return result{}, err
	}
	before, err := readMod(ctx, dir, env)
	if err != nil {
		return result{}, err
	}
	// Any version does: the replacement serves them all, from root's go.mod.
	out, err := goCmd(ctx, dir, env, "get", modulePath+"@v0.0.0")
	if err != nil {
		return result{}, err
	}
	after, err := readMod(ctx, dir, env)
	if err != nil {
		return result{}, err
	}
	return result{Before: before, Moved: moved(before, after), Output: out}, nil
}

// goEnv is the environment go get runs in: the importer's own view of the
// module graph (no workspace, go.mod updated, the toolchain that runs, so
// that a go line the module demands shows as a move, not a download), with
// the fixture's proxy ahead of the configured one.
func goEnv(ctx context.Context, dir, fixture string) ([]string, error) {
	out, err := goCmd(ctx, dir, os.Environ(), "env", "GOPROXY", "GOFLAGS")
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 2 {
		return nil, fmt.Errorf("go env: unexpected output %q", out)
	}
	proxy := "file://" + filepath.ToSlash(filepath.Join(fixture, "proxy"))
	if lines[0] != "" && lines[0] != "off" {
		proxy += "," + lines[0]
	}
	return append(os.Environ(),
		"GOPROXY="+proxy,
		"GOFLAGS="+strings.TrimSpace(lines[1]+" -mod=mod"),
		"GOWORK=off",
		"GOTOOLCHAIN=local",
	), nil
}

func readMod(ctx context.Context, dir string, env []string) (modFile, error) {
	out, err := goCmd(ctx, dir, env, "mod", "edit", "-json")
	if err != nil {
		return modFile{}, err
	}
	var m modFile
	if err := json.Unmarshal(out, &m); err != nil {
		return modFile{}, fmt.Errorf("read go mod edit -json: %w", err)
	}
	return m, nil
}

// goCmd runs the go command in dir and returns what it printed, both
// streams; a failure carries that output.
func goCmd(ctx context.Context, dir string, env []string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return out.Bytes(), fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, out.Bytes())
	}
	return out.Bytes(), nil
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if errors.Is(err, os.ErrNotExist) && filepath.Base(from) == "go.sum" {
		return nil // an importer without go.sum: the get writes one
	}
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}
