package bench

import (
	"bytes"
	"image/png"
	"testing"
)

func TestGlyphs(t *testing.T) {
	for r, g := range glyphs {
		for i, row := range g {
			if len(row) != glyphWidth {
				t.Errorf("glyph %q row %d is %d wide, want %d", r, i, len(row), glyphWidth)
			}
		}
	}
}

func TestChartPNG(t *testing.T) {
	ch := Chart{
		Title: "t", XLabel: "N", YLabel: "time", Columns: 2,
		Panels: []Panel{
			{Title: "p", Series: []Series{{Color: writerColor[Sync], Points: []Point{{1000, 0.1, 0.09, 0.2}, {10000, 1, 0.9, 1.5}}}}},
			{Title: "empty"},
		},
		Legend: []LegendEntry{{Label: "(a)", Color: writerColor[Sync], Line: true}, {Label: "v", Color: black, Marker: Square}},
	}
	var buf bytes.Buffer
	if err := ch.WritePNG(&buf); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 2*chartMargin+2*panelWidth {
		t.Errorf("width %d", b.Dx())
	}
}
