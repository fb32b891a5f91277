package bench

import (
	"fmt"
	"math"
	"strings"
)

// PlotSVG draws the p50 latency in latency mode against predictions per event (log
// scale) for screens 2 (UPCOMING) and 3, stack and floor, one panel per shard count. Empty
// when no screen varies with predictions.
func (r *Results) PlotSVG() string {
	var panels []Panel
	for _, k := range r.Options.Shards {
		pn := Panel{Title: "p50 in latency mode, screens 2 and 3 — " + shardsText(k), XLabel: "predictions per event (log scale)", YLabel: "ms"}
		for _, sc := range []struct {
			n     int
			color string
		}{{2, "#1f77b4"}, {3, "#d62728"}} {
			stack := Series{Label: fmt.Sprintf("screen %d stack", sc.n), Color: sc.color}
			floor := Series{Label: fmt.Sprintf("screen %d floor", sc.n), Color: sc.color, Dashed: true}
			for _, s := range r.screens(k, sc.n) {
				if s.Predictions == 0 || sc.n == 2 && !strings.HasPrefix(s.Size, "UPCOMING") {
					continue
				}
				x := float64(s.Predictions)
				stack.Points = append(stack.Points, [2]float64{x, s.StackLatency.P50})
				floor.Points = append(floor.Points, [2]float64{x, s.FloorLatency.P50})
			}
			if len(stack.Points) > 1 {
				pn.Series = append(pn.Series, stack, floor)
			}
		}
		panels = append(panels, pn)
	}
	return LineChart(panels)
}

// Series is one line of a Panel: (x, y) points, x > 0. An empty Label has no legend entry.
type Series struct {
	Label, Color string
	Dashed       bool
	Points       [][2]float64
}

// Panel is one chart of LineChart: x on a log scale with a tick at every x of its
// points, y linear from 0 (or, with LogY, on a log scale over the powers of ten that hold
// the points; y ≤ 0 is left out).
type Panel struct {
	Title, XLabel, YLabel string
	Series                []Series
	LogY                  bool
}

// LineChart draws panels side by side as an SVG document. Panels with fewer than two
// distinct x values or no positive y are left out; it returns "" when none is left.
func LineChart(in []Panel) string {
	type panel struct {
		Panel
		xs         []float64
		ymin, ymax float64
	}
	var panels []panel
	for _, p := range in {
		pn := panel{Panel: p, ymin: math.Inf(1)}
		for _, s := range p.Series {
			for _, pt := range s.Points {
				pn.ymax = max(pn.ymax, pt[1])
				if pt[1] > 0 {
					pn.ymin = min(pn.ymin, pt[1])
				}
				if !containsF(pn.xs, pt[0]) {
					pn.xs = append(pn.xs, pt[0])
				}
			}
		}
		if len(pn.Series) > 0 && len(pn.xs) > 1 && pn.ymax > 0 {
			panels = append(panels, pn)
		}
	}
	if len(panels) == 0 {
		return ""
	}
	const pw, ph, ml, mr, mt, mb = 420.0, 280.0, 55.0, 25.0, 40.0, 45.0
	w := float64(len(panels)) * (pw + ml + mr)
	h := ph + mt + mb + 60
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", w, h)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	for i, pn := range panels {
		xmin, xmax := math.Log10(minF(pn.xs)), math.Log10(maxF(pn.xs))
		ytop := niceCeil(pn.ymax * 1.1)
		ox := float64(i)*(pw+ml+mr) + ml
		X := func(x float64) float64 { return ox + (math.Log10(x)-xmin)/(xmax-xmin)*pw }
		Y := func(y float64) float64 { return mt + ph - y/ytop*ph }
		yticks := []float64{0, ytop / 4, ytop / 2, ytop * 3 / 4, ytop}
		if pn.LogY {
			lo, hi := math.Floor(math.Log10(pn.ymin)), math.Ceil(math.Log10(pn.ymax))
			if hi == lo {
				hi++
			}
			Y = func(y float64) float64 { return mt + ph - (math.Log10(y)-lo)/(hi-lo)*ph }
			yticks = nil
			for e := lo; e <= hi; e++ {
				yticks = append(yticks, math.Pow(10, e))
			}
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="20" font-size="14" font-weight="bold">%s</text>`+"\n", ox, pn.Title)
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#999"/>`+"\n", ox, mt, pw, ph)
		for _, y := range yticks {
			fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#eee"/><text x="%.1f" y="%.1f" text-anchor="end">%g</text>`+"\n",
				ox, ox+pw, Y(y), Y(y), ox-5, Y(y)+4, round2(y))
		}
		for _, x := range pn.xs {
			fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#eee"/><text x="%.1f" y="%.1f" text-anchor="middle">%g</text>`+"\n",
				X(x), X(x), mt, mt+ph, X(x), mt+ph+16, x)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", ox+pw/2, mt+ph+34, pn.XLabel)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" transform="rotate(-90 %.1f %.1f)" text-anchor="middle">%s</text>`+"\n", ox-38, mt+ph/2, ox-38, mt+ph/2, pn.YLabel)
		for j, s := range pn.Series {
			var pts []string
			var shown [][2]float64
			for _, p := range s.Points {
				if pn.LogY && p[1] <= 0 {
					continue
				}
				shown = append(shown, p)
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", X(p[0]), Y(p[1])))
			}
			dash := ""
			if s.Dashed {
				dash = ` stroke-dasharray="6 4"`
			}
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>`+"\n", strings.Join(pts, " "), s.Color, dash)
			for _, p := range shown {
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", X(p[0]), Y(p[1]), s.Color)
			}
			if s.Label == "" {
				continue // no legend entry
			}
			ly := mt + ph + 52 + float64(j/2)*16
			lx := ox + float64(j%2)*200
			fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="2"%s/><text x="%.1f" y="%.1f">%s</text>`+"\n",
				lx, lx+30, ly-4, ly-4, s.Color, dash, lx+36, ly, s.Label)
		}
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func containsF(xs []float64, x float64) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func minF(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs {
		m = min(m, x)
	}
	return m
}

func maxF(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }

// niceCeil rounds up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}
