package bench

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"
)

// sampleChart is two panels, one with a series of writer (a), and a legend.
func sampleChart(points []Point) Chart {
	return Chart{
		Title: "t", XLabel: "N", YLabel: "time", Columns: 2,
		Panels: []Panel{
			{Title: "p", Series: []Series{{Color: writerColor[Sync], Marker: Square, Points: points}}},
			{Title: "empty"},
		},
		Legend: []LegendEntry{{Label: "(c)", Color: writerColor[Floor], Line: true}, {Label: "v", Color: black, Marker: Square}},
	}
}

func renderPNG(t *testing.T, ch Chart) image.Image {
	t.Helper()
	var buf bytes.Buffer
	if err := ch.WritePNG(&buf); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// has reports whether any pixel of img is exactly c.
func has(img image.Image, c color.RGBA) bool {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if color.RGBAModel.Convert(img.At(x, y)) == c {
				return true
			}
		}
	}
	return false
}

func TestChartPNG(t *testing.T) {
	cases := []struct {
		name     string
		points   []Point
		drawsSet bool // whether writer (a)'s colour appears
	}{
		{name: "measured", points: []Point{{1000, 0.1, 0.09, 0.2}, {10000, 1, 0.9, 1.5}}, drawsSet: true},
		{name: "one point", points: []Point{{1000, 0.02, 0.02, 0.02}}, drawsSet: true},
		{name: "no points", points: nil},
		{name: "non-positive values skipped", points: []Point{{1000, 0, 0, 0}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ch := sampleChart(tc.points)
			img := renderPNG(t, ch)
			w, h := ch.Size()
			if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
				t.Errorf("image is %dx%d, Size says %dx%d", b.Dx(), b.Dy(), w, h)
			}
			if got := has(img, writerColor[Sync]); got != tc.drawsSet {
				t.Errorf("series colour drawn: %v, want %v", got, tc.drawsSet)
			}
			if !has(img, writerColor[Floor]) {
				t.Error("the legend's line is not drawn")
			}
		})
	}
}

func TestChartWithoutPanels(t *testing.T) {
	img := renderPNG(t, Chart{Title: "nothing measured"})
	if img.Bounds().Empty() {
		t.Error("empty image")
	}
}
