package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// excerptMarker precedes each code block of the repository's README that
// is an excerpt of this program.
const excerptMarker = "<!-- excerpt of examples/controller, checked by TestREADMEExcerpts -->"

// TestREADMEExcerpts keeps the README's controller code true: every block
// marked as an excerpt is made of pieces, separated by "// ..." lines, each
// of which appears verbatim in this program's source, which compiles.
func TestREADMEExcerpts(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var source strings.Builder
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		source.Write(b)
	}

	blocks := excerpts(string(readme))
	require.NotEmpty(t, blocks, "no block marked %q in README.md", excerptMarker)
	for i, block := range blocks {
		for _, piece := range pieces(block) {
			assert.True(t, strings.Contains(source.String(), piece), "README excerpt %d: not in the source:\n%s", i+1, piece)
		}
	}
}

// excerpts returns the code blocks that follow the marker.
func excerpts(readme string) []string {
	var out []string
	for _, part := range strings.Split(readme, excerptMarker)[1:] {
		part = strings.TrimLeft(part, "\n")
		if !strings.HasPrefix(part, "```go\n") {
			continue
		}
		body := strings.TrimPrefix(part, "```go\n")
		if end := strings.Index(body, "```"); end >= 0 {
			out = append(out, body[:end])
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
