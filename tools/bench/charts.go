package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// chart draws one line per route (era included) and upstream of a figure of the latency
// results against concurrency, to dir/file (SVG).
func chart(results []latencyResult, dir, file, title, yLabel string, value func(latencyResult) float64, logY bool) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "concurrent clients"
	p.Y.Label.Text = yLabel
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = concurrencyTicks{results}
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	var lines []any
	seen := map[string]bool{}
	for _, first := range results {
		key := first.upstream + " upstream, " + first.label()
		if seen[key] {
			continue
		}
		seen[key] = true
		var xys plotter.XYs
		for _, r := range results {
			if r.upstream == first.upstream && r.label() == first.label() && r.calls > 0 {
				xys = append(xys, plotter.XY{X: float64(r.concurrency), Y: value(r)})
			}
		}
		if len(xys) > 0 {
			lines = append(lines, key, xys)
		}
	}
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return err
	}
	return save(p, 7*vg.Inch, 4.5*vg.Inch, filepath.Join(dir, file))
}

// save writes p to file (its format by its extension) with its legend
// beside the plot rather than over it: the plot is w by h, the legend
// widens the image by what it needs.
func save(p *plot.Plot, w, h vg.Length, file string) error {
	legend := p.Legend
	p.Legend = plot.NewLegend()
	const gap = vg.Inch / 8
	lw := legend.Rectangle(draw.Canvas{}).Size().X // its size needs no canvas
	c, err := draw.NewFormattedCanvas(w+gap+lw+gap, h, strings.TrimPrefix(filepath.Ext(file), "."))
	if err != nil {
		return err
	}
	dc := draw.New(c)
	p.Draw(draw.Crop(dc, 0, -(gap + lw + gap), 0, 0))
	legend.Top, legend.Left = true, true
	legend.Draw(draw.Crop(dc, w+gap, -gap, 0, -gap))
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// concurrencyTicks marks the measured concurrencies on the x axis.
type concurrencyTicks struct{ results []latencyResult }

func (c concurrencyTicks) Ticks(min, max float64) []plot.Tick {
	seen := map[int]bool{}
	var ticks []plot.Tick
	for _, r := range c.results {
		if !seen[r.concurrency] {
			seen[r.concurrency] = true
			ticks = append(ticks, plot.Tick{Value: float64(r.concurrency), Label: fmt.Sprint(r.concurrency)})
		}
	}
	return ticks
}
