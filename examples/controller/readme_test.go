package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// excerptMarker precedes each code block of the repository's documents
// that is an excerpt of one of its examples: the marker names the example's
// directory and the test that checks the block.
var excerptMarker = regexp.MustCompile(`<!-- excerpt of examples/([a-z]+), checked by (Test[A-Za-z]+) -->`)

// TestREADMEExcerpts keeps the README's example code true: every block
// marked as an excerpt is made of pieces, separated by "// ..." lines, each
// of which appears verbatim in the named example's source, which compiles.
func TestREADMEExcerpts(t *testing.T) {
	checkExcerpts(t, "README.md", "TestREADMEExcerpts")
}

// TestMigratingExcerpts does the same for the migration guide.
func TestMigratingExcerpts(t *testing.T) {
	checkExcerpts(t, filepath.Join("docs", "migrating.md"), "TestMigratingExcerpts")
}

// checkExcerpts checks the blocks of the repository's document doc marked
// as checked by test; there must be at least one.
func checkExcerpts(t *testing.T, doc, test string) {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("..", "..", doc))
	require.NoError(t, err)
	blocks := excerpts(string(text), test)
	require.NotEmpty(t, blocks, "no block in %s marked as checked by %s", doc, test)
	sources := make(map[string]string)
	for i, b := range blocks {
		src, ok := sources[b.example]
		if !ok {
			src = exampleSource(t, b.example)
			sources[b.example] = src
		}
		for _, piece := range pieces(b.code) {
			assert.True(t, strings.Contains(src, piece), "%s excerpt %d: not in the source of examples/%s:\n%s", doc, i+1, b.example, piece)
		}
	}
}

// exampleSource returns the Go files of examples/<name>, tests left out,
// one after the other.
func exampleSource(t *testing.T, name string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", name, "*.go"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no Go files in examples/%s", name)
	var source strings.Builder
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		source.Write(b)
	}
	return source.String()
}

// excerpt is one marked code block and the example it is taken from.
type excerpt struct {
	example string
	code    string
}

// excerpts returns the code blocks that follow a marker naming test.
func excerpts(doc, test string) []excerpt {
	var out []excerpt
	marks := excerptMarker.FindAllStringSubmatchIndex(doc, -1)
	for _, m := range marks {
		if doc[m[4]:m[5]] != test {
			continue
		}
		part := strings.TrimLeft(doc[m[1]:], "\n")
		if !strings.HasPrefix(part, "```go\n") {
			continue
		}
		body := strings.TrimPrefix(part, "```go\n")
		if end := strings.Index(body, "```"); end >= 0 {
			out = append(out, excerpt{example: doc[m[2]:m[3]], code: body[:end]})
		}
	}
	return out
}

// pieces splits a block at its "// ..." lines, dropping blank lines at
// either end of each piece.
func pieces(block string) []string {
	var out []string
	var cur []string
	flush := func() {
		p := strings.Trim(strings.Join(cur, "\n"), "\n")
		if strings.TrimSpace(p) != "" {
			out = append(out, p)
		}
		cur = nil
	}
	for _, line := range strings.Split(block, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "// ...") {
			flush()
			continue
		}
		cur = append(cur, line)
	}
	flush()
	return out
}
