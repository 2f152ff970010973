package bench

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
)

// Marker is the shape a series draws at its points.
type Marker int

// Markers.
const (
	Circle Marker = iota
	Square
	Triangle
	Diamond
)

// Point is one measured value: the median Y at X, with its minimum and
// maximum.
type Point struct{ X, Y, Lo, Hi float64 }

// Series is a line of points.
type Series struct {
	Color  color.RGBA
	Dashed bool
	Marker Marker
	Points []Point
}

// Panel is one plot, with logarithmic axes.
type Panel struct {
	Title  string
	Series []Series
}

// LegendEntry explains a colour and line style, or a marker.
type LegendEntry struct {
	Label  string
	Color  color.RGBA
	Dashed bool
	Marker Marker
	// Line is true for an entry that explains a line, false for one that
	// explains a marker.
	Line bool
}

// Chart is a grid of panels sharing a title, axis labels and a legend.
type Chart struct {
	Title          string
	XLabel, YLabel string
	Columns        int
	Panels         []Panel
	Legend         []LegendEntry
}

// Chart geometry, in image pixels.
const (
	chartScale  = 2 // image pixels per font pixel
	panelWidth  = 560
	panelHeight = 400
	chartMargin = 24
	plotLeft    = 110 // room for the y tick labels
	plotRight   = 20
	plotTop     = 44 // room for the panel title
	plotBottom  = 60 // room for the x tick labels and axis label
	legendRow   = 30
)

var (
	white    = color.RGBA{255, 255, 255, 255}
	black    = color.RGBA{0, 0, 0, 255}
	gridGrey = color.RGBA{225, 225, 225, 255}
)

// WritePNG draws the chart as a PNG.
func (ch Chart) WritePNG(w io.Writer) error {
	cols := max(ch.Columns, 1)
	rows := (len(ch.Panels) + cols - 1) / cols
	// Lines take a row each; markers share rows, four to a row.
	legendRows, markers := 0, 0
	for _, e := range ch.Legend {
		if e.Line {
			legendRows++
		} else {
			markers++
		}
	}
	legendRows += (markers + 3) / 4
	width := 2*chartMargin + cols*panelWidth
	height := 2*chartMargin + 40 + rows*panelHeight + 20 + legendRows*legendRow
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	fill(img, img.Bounds(), white)
	c := &canvas{img}
	c.text(chartMargin, chartMargin, ch.Title, black)
	for i, p := range ch.Panels {
		x0 := chartMargin + (i%cols)*panelWidth
		y0 := chartMargin + 40 + (i/cols)*panelHeight
		c.panel(image.Rect(x0, y0, x0+panelWidth, y0+panelHeight), p, ch.XLabel, ch.YLabel)
	}
	y := chartMargin + 40 + rows*panelHeight + 20
	m := 0
	for _, e := range ch.Legend {
		if e.Line {
			c.legend(chartMargin, y, e)
			y += legendRow
		}
	}
	for _, e := range ch.Legend {
		if !e.Line {
			c.legend(chartMargin+(m%4)*(width-2*chartMargin)/4, y+(m/4)*legendRow, e)
			m++
		}
	}
	if err := png.Encode(w, img); err != nil {
		return fmt.Errorf("encode chart: %w", err)
	}
	return nil
}

type canvas struct{ img *image.RGBA }

func fill(img *image.RGBA, r image.Rectangle, col color.RGBA) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetRGBA(x, y, col)
		}
	}
}

// text draws s with its top-left corner at (x, y).
func (c *canvas) text(x, y int, s string, col color.RGBA) {
	for _, r := range s {
		g, ok := glyphs[r]
		if !ok {
			g = unknownGlyph
		}
		for gy, row := range g {
			for gx := 0; gx < glyphWidth; gx++ {
				if row[gx] == '#' {
					fill(c.img, image.Rect(x+gx*chartScale, y+gy*chartScale, x+(gx+1)*chartScale, y+(gy+1)*chartScale), col)
				}
			}
		}
		x += glyphAdvance * chartScale
	}
}

func textWidth(s string) int {
	n := 0
	for range s {
		n++
	}
	return n * glyphAdvance * chartScale
}

// line draws a line 2 pixels wide, dashed or not.
func (c *canvas) line(x0, y0, x1, y1 float64, col color.RGBA, dashed bool) {
	dx, dy := x1-x0, y1-y0
	steps := int(math.Max(math.Abs(dx), math.Abs(dy)))
	for i := 0; i <= steps; i++ {
		if dashed && (i/10)%2 == 1 {
			continue
		}
		t := 0.0
		if steps > 0 {
			t = float64(i) / float64(steps)
		}
		x, y := int(math.Round(x0+t*dx)), int(math.Round(y0+t*dy))
		fill(c.img, image.Rect(x-1, y-1, x+1, y+1), col)
	}
}

func (c *canvas) marker(x, y int, m Marker, col color.RGBA) {
	const r = 6
	for dy := -r; dy <= r; dy++ {
		for dx := -r; dx <= r; dx++ {
			in := false
			switch m {
			case Circle:
				in = dx*dx+dy*dy <= r*r
			case Square:
				in = abs(dx) <= r-1 && abs(dy) <= r-1
			case Triangle:
				in = dy >= -r && dy <= r-2 && 2*abs(dx) <= dy+r
			case Diamond:
				in = abs(dx)+abs(dy) <= r
			}
			if in {
				c.img.SetRGBA(x+dx, y+dy, col)
			}
		}
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// panel draws one plot in r.
func (c *canvas) panel(r image.Rectangle, p Panel, xLabel, yLabel string) {
	plot := image.Rect(r.Min.X+plotLeft, r.Min.Y+plotTop, r.Max.X-plotRight, r.Max.Y-plotBottom)
	c.text(plot.Min.X, r.Min.Y+12, p.Title, black)

	xs, ys := []float64{}, []float64{}
	for _, s := range p.Series {
		for _, pt := range s.Points {
			xs = append(xs, pt.X)
			ys = append(ys, pt.Lo, pt.Hi, pt.Y)
		}
	}
	if len(xs) == 0 {
		return
	}
	xMin, xMax := bounds(xs)
	yMin, yMax := bounds(ys)
	// x: a margin of a quarter decade each side; y: whole decades.
	lx0, lx1 := math.Log10(xMin)-0.25, math.Log10(xMax)+0.25
	ly0, ly1 := math.Floor(math.Log10(yMin)), math.Ceil(math.Log10(yMax))
	if ly1 == ly0 {
		ly1++
	}
	px := func(x float64) float64 {
		return float64(plot.Min.X) + (math.Log10(x)-lx0)/(lx1-lx0)*float64(plot.Dx())
	}
	py := func(y float64) float64 {
		return float64(plot.Max.Y) - (math.Log10(y)-ly0)/(ly1-ly0)*float64(plot.Dy())
	}

	for d := ly0; d <= ly1; d++ {
		y := int(math.Round(py(math.Pow(10, d))))
		fill(c.img, image.Rect(plot.Min.X, y, plot.Max.X, y+1), gridGrey)
		label := secondsLabel(math.Pow(10, d))
		c.text(plot.Min.X-10-textWidth(label), y-glyphHeight, label, black)
	}
	seen := map[float64]bool{}
	for _, x := range xs {
		if seen[x] {
			continue
		}
		seen[x] = true
		xp := int(math.Round(px(x)))
		fill(c.img, image.Rect(xp, plot.Min.Y, xp+1, plot.Max.Y), gridGrey)
		label := groupDigits(int(x))
		c.text(xp-textWidth(label)/2, plot.Max.Y+8, label, black)
	}
	c.text(plot.Min.X+(plot.Dx()-textWidth(xLabel))/2, plot.Max.Y+34, xLabel, black)
	if yLabel != "" {
		c.text(plot.Max.X-textWidth(yLabel), r.Min.Y+12, yLabel, black)
	}
	// Axes.
	fill(c.img, image.Rect(plot.Min.X, plot.Min.Y, plot.Min.X+1, plot.Max.Y+1), black)
	fill(c.img, image.Rect(plot.Min.X, plot.Max.Y, plot.Max.X, plot.Max.Y+1), black)

	for _, s := range p.Series {
		for i, pt := range s.Points {
			x, y := px(pt.X), py(pt.Y)
			// The min–max whisker.
			c.line(x, py(pt.Lo), x, py(pt.Hi), s.Color, false)
			fill(c.img, image.Rect(int(x)-5, int(py(pt.Lo)), int(x)+6, int(py(pt.Lo))+1), s.Color)
			fill(c.img, image.Rect(int(x)-5, int(py(pt.Hi)), int(x)+6, int(py(pt.Hi))+1), s.Color)
			if i > 0 {
				prev := s.Points[i-1]
				c.line(px(prev.X), py(prev.Y), x, y, s.Color, s.Dashed)
			}
		}
		for _, pt := range s.Points {
			c.marker(int(math.Round(px(pt.X))), int(math.Round(py(pt.Y))), s.Marker, s.Color)
		}
	}
}

func (c *canvas) legend(x, y int, e LegendEntry) {
	if e.Line {
		c.line(float64(x), float64(y+8), float64(x+50), float64(y+8), e.Color, e.Dashed)
	} else {
		c.marker(x+25, y+8, e.Marker, e.Color)
	}
	c.text(x+64, y, e.Label, black)
}

func bounds(v []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range v {
		if x > 0 {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	return lo, hi
}

// secondsLabel prints a power of ten of seconds: 1 ms, 10 ms, 100 ms, 1 s…
func secondsLabel(s float64) string {
	switch {
	case s < 1e-3:
		return fmt.Sprintf("%g us", math.Round(s*1e6))
	case s < 1:
		return fmt.Sprintf("%g ms", math.Round(s*1e3))
	default:
		return fmt.Sprintf("%g s", math.Round(s))
	}
}
