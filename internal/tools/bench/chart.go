package bench

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Marker is the shape a series draws at its points.
type Marker int

// Markers.
const (
	Circle Marker = iota
	Square
	Triangle
	Cross
	Ring
	Plus
	OpenTriangle
	OpenSquare
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

// Chart geometry, in points; the image has chartDPI pixels per inch.
const (
	chartDPI    = 144
	panelWidth  = 280
	panelHeight = 200
	chartMargin = 10
	titleHeight = 24
	legendGap   = 8
	legendRow   = 14
	// markersPerRow is how many marker entries share a legend row.
	markersPerRow = 3
)

var (
	black    = color.RGBA{0, 0, 0, 255}
	gridGrey = color.RGBA{225, 225, 225, 255}
	dashes   = []vg.Length{vg.Points(6), vg.Points(4)}
)

// Size is the chart's size in pixels.
func (ch Chart) Size() (width, height int) {
	w, h := ch.extent()
	return int(math.Ceil(w.Dots(chartDPI))), int(math.Ceil(h.Dots(chartDPI)))
}

func (ch Chart) grid() (cols, rows int) {
	cols = max(ch.Columns, 1)
	return cols, (len(ch.Panels) + cols - 1) / cols
}

// extent is the chart's size: a title row, the panels, and one legend row
// per line entry and one for every markersPerRow marker entries.
func (ch Chart) extent() (width, height vg.Length) {
	cols, rows := ch.grid()
	lines, markers := 0, 0
	for _, e := range ch.Legend {
		if e.Line {
			lines++
		} else {
			markers++
		}
	}
	legendRows := lines + (markers+markersPerRow-1)/markersPerRow
	width = 2*chartMargin + vg.Length(cols)*panelWidth
	height = 2*chartMargin + titleHeight + vg.Length(rows)*panelHeight + legendGap + vg.Length(legendRows)*legendRow
	return width, height
}

// WritePNG draws the chart as a PNG.
func (ch Chart) WritePNG(w io.Writer) error {
	width, height := ch.extent()
	img := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(chartDPI), vgimg.UseBackgroundColor(color.White))
	dc := draw.New(img)
	area := draw.Crop(dc, chartMargin, -chartMargin, chartMargin, -chartMargin)

	title := plot.New().Title.TextStyle
	title.Color = black
	title.XAlign, title.YAlign = draw.XLeft, draw.YTop
	dc.FillText(title, vg.Point{X: area.Min.X, Y: area.Max.Y}, ch.Title)

	_, rows := ch.grid()
	legendHeight := area.Size().Y - titleHeight - vg.Length(rows)*panelHeight - legendGap
	panels := draw.Crop(area, 0, 0, legendHeight+legendGap, -titleHeight)
	if err := ch.drawPanels(panels); err != nil {
		return err
	}
	ch.drawLegend(draw.Crop(area, 0, 0, 0, legendHeight-area.Size().Y))

	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(w); err != nil {
		return fmt.Errorf("encode chart: %w", err)
	}
	return nil
}

func (ch Chart) drawPanels(dc draw.Canvas) error {
	cols, rows := ch.grid()
	if rows == 0 {
		return nil
	}
	plots := make([][]*plot.Plot, rows)
	for r := range plots {
		plots[r] = make([]*plot.Plot, cols)
	}
	for i, p := range ch.Panels {
		pl, err := ch.panel(p)
		if err != nil {
			return err
		}
		plots[i/cols][i%cols] = pl
	}
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(12), PadY: vg.Points(8)}
	canvases := plot.Align(plots, tiles, dc)
	for r := range plots {
		for c, pl := range plots[r] {
			if pl != nil {
				pl.Draw(canvases[r][c])
			}
		}
	}
	return nil
}

// panel builds one plot: log-log axes with a tick at every measured X and
// at every decade of Y, the series as lines with markers at the medians and
// whiskers from minimum to maximum.
func (ch Chart) panel(p Panel) (*plot.Plot, error) {
	pl := plot.New()
	pl.Title.Text = p.Title
	pl.X.Label.Text = ch.XLabel
	pl.Y.Label.Text = ch.YLabel

	var xs, ys []float64
	for _, s := range p.Series {
		for _, pt := range s.Points {
			if pt.X > 0 && pt.Lo > 0 && pt.Y > 0 && pt.Hi > 0 {
				xs = append(xs, pt.X)
				ys = append(ys, pt.Lo, pt.Y, pt.Hi)
			}
		}
	}
	if len(xs) == 0 {
		return pl, nil // no measurement: title and empty axes
	}
	slices.Sort(xs)
	xs = slices.Compact(xs)
	lx0, lx1 := math.Log10(xs[0])-0.25, math.Log10(xs[len(xs)-1])+0.25
	ly0, ly1 := math.Floor(math.Log10(slices.Min(ys))), math.Ceil(math.Log10(slices.Max(ys)))
	if ly1 == ly0 {
		ly1++
	}
	pl.X.Scale, pl.Y.Scale = plot.LogScale{}, plot.LogScale{}
	pl.X.Min, pl.X.Max = math.Pow(10, lx0), math.Pow(10, lx1)
	pl.Y.Min, pl.Y.Max = math.Pow(10, ly0), math.Pow(10, ly1)
	var xt plot.ConstantTicks
	for _, x := range xs {
		xt = append(xt, plot.Tick{Value: x, Label: groupDigits(int(x))})
	}
	pl.X.Tick.Marker = xt
	pl.Y.Tick.Marker = decadeTicks(ly0, ly1)

	grid := plotter.NewGrid()
	grid.Vertical.Color, grid.Horizontal.Color = gridGrey, gridGrey
	grid.Vertical.Dashes, grid.Horizontal.Dashes = nil, nil
	pl.Add(grid)

	for _, s := range p.Series {
		if err := addSeries(pl, s); err != nil {
			return nil, fmt.Errorf("chart panel %q: %w", p.Title, err)
		}
	}
	return pl, nil
}

// decadeTicks labels every power of ten from 10^lo to 10^hi and marks the
// values between them without a label.
func decadeTicks(lo, hi float64) plot.ConstantTicks {
	var t plot.ConstantTicks
	for d := lo; d <= hi; d++ {
		v := math.Pow(10, d)
		t = append(t, plot.Tick{Value: v, Label: secondsLabel(v)})
		if d < hi {
			for m := 2.0; m < 10; m++ {
				t = append(t, plot.Tick{Value: m * v})
			}
		}
	}
	return t
}

// whiskers is what plotter.NewYErrorBars draws: each point with its
// distance down to the minimum and up to the maximum.
type whiskers struct {
	plotter.XYs
	plotter.YErrors
}

func addSeries(pl *plot.Plot, s Series) error {
	var w whiskers
	for _, pt := range s.Points {
		if pt.X > 0 && pt.Lo > 0 && pt.Y > 0 && pt.Hi > 0 {
			w.XYs = append(w.XYs, plotter.XY{X: pt.X, Y: pt.Y})
			w.YErrors = append(w.YErrors, struct{ Low, High float64 }{pt.Y - pt.Lo, pt.Hi - pt.Y})
		}
	}
	if len(w.XYs) == 0 {
		return nil
	}
	line, points, err := plotter.NewLinePoints(w.XYs)
	if err != nil {
		return err
	}
	line.LineStyle = lineStyle(s.Color, s.Dashed)
	points.GlyphStyle = glyphStyle(s.Marker, s.Color)
	bars, err := plotter.NewYErrorBars(w)
	if err != nil {
		return err
	}
	bars.LineStyle = lineStyle(s.Color, false)
	bars.CapWidth = vg.Points(6)
	pl.Add(bars, line, points)
	return nil
}

func lineStyle(c color.Color, dashed bool) draw.LineStyle {
	st := draw.LineStyle{Color: c, Width: vg.Points(1.5)}
	if dashed {
		st.Dashes = dashes
	}
	return st
}

func glyphStyle(m Marker, c color.Color) draw.GlyphStyle {
	st := draw.GlyphStyle{Color: c, Radius: vg.Points(3.5)}
	switch m {
	case Square:
		st.Shape = draw.BoxGlyph{}
	case Triangle:
		st.Shape = draw.PyramidGlyph{}
	case Cross:
		st.Shape = draw.CrossGlyph{}
	case Ring:
		st.Shape = draw.RingGlyph{}
	case Plus:
		st.Shape = draw.PlusGlyph{}
	case OpenTriangle:
		st.Shape = draw.TriangleGlyph{}
	case OpenSquare:
		st.Shape = draw.SquareGlyph{}
	default:
		st.Shape = draw.CircleGlyph{}
	}
	return st
}

// drawLegend draws the line entries one to a row, then the marker entries
// markersPerRow to a row.
func (ch Chart) drawLegend(dc draw.Canvas) {
	var lines, markers []LegendEntry
	for _, e := range ch.Legend {
		if e.Line {
			lines = append(lines, e)
		} else {
			markers = append(markers, e)
		}
	}
	top := dc.Max.Y
	for _, e := range lines {
		legendRowAt(dc, dc.Min.X, top, e)
		top -= legendRow
	}
	step := dc.Size().X / markersPerRow
	for i, e := range markers {
		legendRowAt(dc, dc.Min.X+vg.Length(i%markersPerRow)*step, top-vg.Length(i/markersPerRow)*legendRow, e)
	}
}

// legendRowAt draws one entry whose row starts at (x, top).
func legendRowAt(dc draw.Canvas, x, top vg.Length, e LegendEntry) {
	l := plot.NewLegend()
	l.Top, l.Left = true, true
	l.TextStyle.Color = black
	var thumb plot.Thumbnailer
	if e.Line {
		thumb = &plotter.Line{LineStyle: lineStyle(e.Color, e.Dashed)}
	} else {
		thumb = &plotter.Scatter{GlyphStyle: glyphStyle(e.Marker, e.Color)}
	}
	l.ThumbnailWidth = vg.Points(36)
	l.Add(" "+e.Label, thumb) // a space between the thumbnail and the text
	l.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: x, Y: top - legendRow},
		Max: vg.Point{X: dc.Max.X, Y: top},
	}})
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
