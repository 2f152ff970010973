package main

import (
	"bytes"
	"context"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/fixture.api.txt from testdata/fixture")

const fixturePkg = "pkg example.com/fixture, "

// copyFixture copies testdata/fixture into a fresh directory, so that a test
// can change it.
func copyFixture(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir("testdata/fixture", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel("testdata/fixture", path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatalf("copy the fixture: %v", err)
	}
	return dst
}

// edit replaces from, which must occur once, with to in file of dir.
func edit(t *testing.T, dir, file, from, to string) {
	t.Helper()
	path := filepath.Join(dir, file)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), from); n != 1 {
		t.Fatalf("%s holds %q %d times, want once", file, from, n)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), from, to, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func recordOf(t *testing.T, dir string) []string {
	t.Helper()
	lines, err := moduleAPI(context.Background(), dir)
	if err != nil {
		t.Fatalf("moduleAPI: %v", err)
	}
	return lines
}

// TestFixtureRecord compares the fixture's record with the golden file, and
// checks that the record is sorted and the same on a second run.
func TestFixtureRecord(t *testing.T) {
	dir := copyFixture(t)
	got := recordOf(t, dir)
	golden := filepath.Join("testdata", "fixture.api.txt")
	if *update {
		if err := writeRecord(golden, got); err != nil {
			t.Fatal(err)
		}
	}
	want, err := readRecord(golden)
	if err != nil {
		t.Fatal(err)
	}
	if d := diff(want, got); len(d) != 0 {
		var b bytes.Buffer
		printDiff(&b, golden, d)
		t.Errorf("the fixture's record differs from the golden file (go test -update rewrites it):\n%s", b.String())
	}
	if !slices.IsSorted(got) {
		t.Errorf("the record is not sorted:\n%s", strings.Join(got, "\n"))
	}
	if again := recordOf(t, dir); !slices.Equal(got, again) {
		t.Errorf("a second run gave another record:\n%s", strings.Join(again, "\n"))
	}
	for _, l := range got {
		for _, hidden := range []string{"Secret", "Show", "Exported", "inner", "embeddedFields"} {
			if strings.Contains(l, hidden) {
				t.Errorf("the record names %s, which no importer sees: %s", hidden, l)
			}
		}
	}
}

// TestChanges changes the fixture's API and checks that exactly the lines
// that name the change are removed and added.
func TestChanges(t *testing.T) {
	tests := []struct {
		name           string
		file, from, to string
		want           changes
	}{{
		name: "unchanged",
	}, {
		name: "parameter renamed",
		file: "fixture.go",
		from: "func Lookup(name string) (int, error) { return len(name), nil }",
		to:   "func Lookup(key string) (int, error) { return len(key), nil }",
	}, {
		name: "internal package changed",
		file: "internal/hidden/hidden.go",
		from: "func Secret() {}",
		to:   "func Secret(int) {}",
	}, {
		name: "signature changed",
		file: "fixture.go",
		from: "func Lookup(name string) (int, error) {",
		to:   "func Lookup(name string, strict bool) (int, error) {",
		want: changes{
			{'-', fixturePkg + "func Lookup(string) (int, error)"},
			{'+', fixturePkg + "func Lookup(string, bool) (int, error)"},
		},
	}, {
		name: "method removed",
		file: "fixture.go",
		from: "func (t *Thing) Close() error { return nil }",
		to:   "",
		want: changes{{'-', fixturePkg + "method (*Thing) Close() error"}},
	}, {
		name: "receiver made a pointer",
		file: "fixture.go",
		from: "func (t Thing) String() string",
		to:   "func (t *Thing) String() string",
		want: changes{
			{'+', fixturePkg + "method (*Thing) String() string"},
			{'-', fixturePkg + "method (Thing) String() string"},
		},
	}, {
		name: "constant added",
		file: "fixture.go",
		from: "\tKindB\n",
		to:   "\tKindB\n\tKindC\n",
		want: changes{{'+', fixturePkg + "const KindC Kind = 3"}},
	}, {
		name: "constant value changed",
		file: "fixture.go",
		from: "const Ratio = 0.3",
		to:   "const Ratio = 0.5",
		want: changes{
			{'-', fixturePkg + "const Ratio untyped float = 0.3"},
			{'+', fixturePkg + "const Ratio untyped float = 0.5"},
		},
	}, {
		name: "interface method added",
		file: "fixture.go",
		from: "\tUndo() <-chan struct{}\n",
		to:   "\tUndo() <-chan struct{}\n\tRedo()\n",
		want: changes{
			{'+', fixturePkg + "type Doer interface, Redo()"},
			{'-', fixturePkg + "type Doer interface { Do, Undo }"},
			{'+', fixturePkg + "type Doer interface { Do, Redo, Undo }"},
		},
	}, {
		name: "field type changed",
		file: "fixture.go",
		from: "\tCount int\n",
		to:   "\tCount int64\n",
		want: changes{
			{'-', fixturePkg + "type Thing struct, Count int"},
			{'+', fixturePkg + "type Thing struct, Count int64"},
		},
	}, {
		name: "function of a second package added",
		file: "sub/sub.go",
		from: "func Wrap(",
		to:   "func Unwrap(v any) *fixture.Thing { return nil }\n\nfunc Wrap(",
		want: changes{{'+', "pkg example.com/fixture/sub, func Unwrap(any) *example.com/fixture.Thing"}},
	}}
	base := recordOf(t, copyFixture(t))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyFixture(t)
			if tt.file != "" {
				edit(t, dir, tt.file, tt.from, tt.to)
			}
			got := diff(base, recordOf(t, dir))
			sortChanges(got)
			sortChanges(tt.want)
			if !slices.Equal(got, tt.want) {
				t.Errorf("diff:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func sortChanges(d changes) {
	slices.SortFunc(d, func(a, b change) int {
		if c := strings.Compare(a.Line, b.Line); c != 0 {
			return c
		}
		return int(a.Op) - int(b.Op)
	})
}

// TestRun writes a record with -w, checks it, changes the API and checks
// again: the second check fails with the diff and says how to update.
func TestRun(t *testing.T) {
	dir := copyFixture(t)
	ctx := context.Background()
	var stdout, stderr bytes.Buffer
	if code := run(ctx, dir, "api.txt", false, &stdout, &stderr); code != 1 {
		t.Fatalf("check without a record: exit %d, want 1\n%s%s", code, &stdout, &stderr)
	}
	if code := run(ctx, dir, "api.txt", true, &stdout, &stderr); code != 0 {
		t.Fatalf("-w: exit %d, want 0\n%s", code, &stderr)
	}
	stdout.Reset()
	stderr.Reset()
	if code := run(ctx, dir, "api.txt", false, &stdout, &stderr); code != 0 {
		t.Fatalf("check after -w: exit %d, want 0\n%s%s", code, &stdout, &stderr)
	}
	edit(t, dir, "fixture.go", "func (t *Thing) Close() error { return nil }", "")
	stdout.Reset()
	stderr.Reset()
	if code := run(ctx, dir, "api.txt", false, &stdout, &stderr); code != 1 {
		t.Fatalf("check after a change: exit %d, want 1", code)
	}
	wantOut := "--- api.txt\n+++ api.txt (from the tree)\n-" + fixturePkg + "method (*Thing) Close() error\n"
	if stdout.String() != wantOut {
		t.Errorf("stdout:\n%s\nwant:\n%s", &stdout, wantOut)
	}
	if !strings.Contains(stderr.String(), "make api") {
		t.Errorf("stderr does not say how to update the record:\n%s", &stderr)
	}
}

// TestRunBrokenModule checks that a package that does not compile is an
// error, not an empty record.
func TestRunBrokenModule(t *testing.T) {
	dir := copyFixture(t)
	edit(t, dir, "sub/sub.go", "return t", "return undefined")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), dir, "api.txt", true, &stdout, &stderr); code != 2 {
		t.Fatalf("exit %d, want 2\n%s%s", code, &stdout, &stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "api.txt")); err == nil {
		t.Error("a record was written for a module that does not compile")
	}
}

func TestDiff(t *testing.T) {
	tests := []struct {
		name              string
		recorded, current []string
		want              changes
	}{
		{"both empty", nil, nil, nil},
		{"same", []string{"a", "b"}, []string{"a", "b"}, nil},
		{"all added", nil, []string{"a", "b"}, changes{{'+', "a"}, {'+', "b"}}},
		{"all removed", []string{"a", "b"}, nil, changes{{'-', "a"}, {'-', "b"}}},
		{"interleaved", []string{"a", "c", "e"}, []string{"b", "c", "d"},
			changes{{'-', "a"}, {'+', "b"}, {'+', "d"}, {'-', "e"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := diff(tt.recorded, tt.current); !slices.Equal(got, tt.want) {
				t.Errorf("diff = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestReadRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "api.txt")
	if lines, err := readRecord(path); err != nil || lines != nil {
		t.Fatalf("missing record: %q, %v; want nothing and no error", lines, err)
	}
	if err := os.WriteFile(path, []byte("b\r\n\na\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lines, err := readRecord(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b"}; !slices.Equal(lines, want) {
		t.Errorf("readRecord = %q, want %q", lines, want)
	}
}
