package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// readRecord reads the record's lines; a missing record reads as empty, so
// that the first check prints the whole API as added.
func readRecord(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the record: %w", err)
	}
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimRight(l, "\r"); l != "" {
			lines = append(lines, l)
		}
	}
	return sortUnique(lines), nil
}

// writeRecord writes lines, one a line.
func writeRecord(path string, lines []string) error {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("write the record: %w", err)
	}
	return nil
}

// change is one line of a diff: '-' for a line only the record has, '+' for
// one only the tree has.
type change struct {
	Op   byte
	Line string
}

type changes []change

func (d changes) count(op byte) int {
	n := 0
	for _, c := range d {
		if c.Op == op {
			n++
		}
	}
	return n
}

// diff compares two sorted, repeat-free lists of lines and returns what
// differs, in order of the lines.
func diff(recorded, current []string) changes {
	var d changes
	i, j := 0, 0
	for i < len(recorded) || j < len(current) {
		switch {
		case j == len(current) || (i < len(recorded) && recorded[i] < current[j]):
			d = append(d, change{'-', recorded[i]})
			i++
		case i == len(recorded) || current[j] < recorded[i]:
			d = append(d, change{'+', current[j]})
			j++
		default:
			i++
			j++
		}
	}
	return d
}

// printDiff prints d in the form of a unified diff without context lines.
func printDiff(out io.Writer, record string, d changes) {
	fmt.Fprintf(out, "--- %s\n+++ %s (from the tree)\n", record, record)
	for _, c := range d {
		fmt.Fprintf(out, "%c%s\n", c.Op, c.Line)
	}
}
