package catalog

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/reinhq/rein/llm"
)

// WriteTable prints models as an aligned table, one model per line: its
// reference, context window, maximum output, prices per million tokens
// (input, output, cache read, cache write), and whether it reasons and
// takes images. It is what `rein models` prints.
func WriteTable(w io.Writer, models []llm.Model) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tCONTEXT\tMAX OUT\t$IN/M\t$OUT/M\t$CACHE R/M\t$CACHE W/M\tREASONING\tIMAGES\t")
	for _, m := range models {
		fmt.Fprintf(tw, "%s/%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n",
			m.Provider, m.ID, tokens(m.ContextWindow), tokens(m.MaxOutput),
			price(m.Price.Input), price(m.Price.Output), price(m.Price.CacheRead), price(m.Price.CacheWrite),
			yes(m.Reasoning), yes(m.AcceptsImages()))
	}
	return tw.Flush()
}

// ModelsOf returns the models of provider (case ignored) in the order
// of Models. known reports whether the catalog knows the provider at
// all: a known provider may list no model.
func (c *Catalog) ModelsOf(provider string) (models []llm.Model, known bool) {
	for _, m := range c.Models() {
		if strings.EqualFold(m.Provider, provider) {
			models = append(models, m)
		}
	}
	known = slices.ContainsFunc(c.Providers(), func(p string) bool { return strings.EqualFold(p, provider) })
	return models, known
}

// WriteAliases prints aliases (see Catalog.Aliases) sorted by name under
// the heading "Aliases (--model NAME):", after a blank line; with
// provider set, only those that name one of its models. It prints
// nothing when none is left.
func WriteAliases(w io.Writer, aliases map[string]string, provider string) error {
	names := make([]string, 0, len(aliases))
	for name, ref := range aliases {
		if provider == "" || strings.HasPrefix(strings.ToLower(ref), strings.ToLower(provider)+"/") {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	slices.Sort(names)
	fmt.Fprintln(w, "\nAliases (--model NAME):")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, n := range names {
		fmt.Fprintf(tw, "  %s\t%s\n", n, aliases[n])
	}
	return tw.Flush()
}

// tokens renders a token count with three significant digits at most:
// 1M, 1.05M, 200K, 16.4K, 512.
func tokens(n int) string {
	switch {
	case n <= 0:
		return "-"
	case n >= 1_000_000:
		return significant(float64(n)/1e6) + "M"
	case n >= 1000:
		return significant(float64(n)/1e3) + "K"
	}
	return strconv.Itoa(n)
}

// significant rounds f (1 <= f < 1000) to three significant digits.
func significant(f float64) string {
	switch {
	case f >= 100:
		return strconv.FormatFloat(f, 'f', 0, 64)
	case f >= 10:
		return trimFloat(math.Round(f*10) / 10)
	}
	return trimFloat(math.Round(f*100) / 100)
}

func price(p float64) string {
	if p == 0 {
		return "-"
	}
	return trimFloat(p)
}

func trimFloat(f float64) string {
	s := strconv.FormatFloat(f, 'f', 3, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "-"
}
