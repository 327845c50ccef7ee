package artifacts

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// TrimFloat prints v with up to three decimals and no trailing zeros.
func TrimFloat(v float64) string {
	s := fmt.Sprintf("%.3f", v)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// FormatFigure formats a check's value: four significant digits, and
// thousands separators from 10,000.
func FormatFigure(v float64) string {
	if math.Abs(v) >= 10000 {
		return FormatNumber(v)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// FormatNumber formats a count or rate with thousands separators, keeping
// one decimal below 100: "3,198,945", "5,924", "38.3"; from 1e18 on, four
// significant digits: "1e+308".
func FormatNumber(v float64) string {
	if v != math.Trunc(v) && math.Abs(v) < 100 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	if math.IsNaN(v) || math.Abs(v) >= 1e18 {
		return strconv.FormatFloat(v, 'g', 4, 64) // past int64, or not a number
	}
	s := strconv.FormatInt(int64(math.Round(v)), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// sortedKeys are m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
