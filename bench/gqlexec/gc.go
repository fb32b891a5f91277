package gqlexec

import (
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
)

// GC is a garbage collector setting: GOGC and GOMEMLIMIT as the Go runtime reads them.
type GC struct {
	Percent  int   // GOGC; -1 is "off"
	MemLimit int64 // GOMEMLIMIT in bytes; 0 is none
}

func (g GC) String() string {
	s := "GOGC=" + strconv.Itoa(g.Percent)
	if g.Percent < 0 {
		s = "GOGC=off"
	}
	if g.MemLimit > 0 {
		s += fmt.Sprintf(" GOMEMLIMIT=%dMiB", g.MemLimit>>20)
	}
	return s
}

// Apply sets g for the process and returns a function that restores what was set before.
func (g GC) Apply() (restore func()) {
	percent := debug.SetGCPercent(g.Percent)
	limit := debug.SetMemoryLimit(-1)
	if g.MemLimit > 0 {
		debug.SetMemoryLimit(g.MemLimit)
	}
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}

// DeployedGC reads GOGC and GOMEMLIMIT from the Lambda function's environment in the SAM
// template at path. Both must be set there.
func DeployedGC(path string) (GC, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return GC{}, err
	}
	var tpl struct {
		Resources map[string]struct {
			Type       string `yaml:"Type"`
			Properties struct {
				Environment struct {
					Variables map[string]any `yaml:"Variables"`
				} `yaml:"Environment"`
			} `yaml:"Properties"`
		} `yaml:"Resources"`
	}
	if err := yaml.Unmarshal(b, &tpl); err != nil {
		return GC{}, fmt.Errorf("%s: %w", path, err)
	}
	var vars map[string]any
	for _, r := range tpl.Resources {
		if r.Type == "AWS::Serverless::Function" {
			vars = r.Properties.Environment.Variables
		}
	}
	gogc, okGC := vars["GOGC"].(string)
	limit, okLimit := vars["GOMEMLIMIT"].(string)
	if !okGC || !okLimit {
		return GC{}, fmt.Errorf("%s: the function's environment sets no GOGC or GOMEMLIMIT (as strings)", path)
	}
	return ParseGC(gogc, limit)
}

// ParseGC parses GOGC ("off" or a percentage) and GOMEMLIMIT (bytes with an optional
// B, KiB, MiB, GiB or TiB suffix) as the Go runtime does.
func ParseGC(gogc, memLimit string) (GC, error) {
	var g GC
	if gogc == "off" {
		g.Percent = -1
	} else {
		n, err := strconv.Atoi(gogc)
		if err != nil || n < 0 {
			return g, fmt.Errorf("GOGC %q: want off or a percentage", gogc)
		}
		g.Percent = n
	}
	units := []struct {
		suffix string
		shift  uint
	}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}}
	num, shift := memLimit, uint(0)
	for _, u := range units {
		if n, ok := strings.CutSuffix(memLimit, u.suffix); ok {
			num, shift = n, u.shift
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 {
		return g, fmt.Errorf("GOMEMLIMIT %q: want a positive size such as 400MiB", memLimit)
	}
	g.MemLimit = n << shift
	return g, nil
}
