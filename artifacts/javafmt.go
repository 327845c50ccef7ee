package artifacts

import (
	"strconv"
	"strings"
)

// javaFixed formats v as Java's Formatter does "%.<prec>f" for a finite
// double: it takes the shortest decimal that reads back as v (what
// Double.toString shows) and rounds that decimal half up at prec digits
// after the point. Go's strconv rounds the exact binary value half to
// even instead, which differs where the shortest decimal sits on a tie
// (1.0045 at 3 digits: Java 1.005, strconv 1.004).
func javaFixed(v float64, prec int) string {
	neg := v < 0
	if neg {
		v = -v
	}
	digits, exp := shortestDigits(v)
	// The value is 0.DIGITS × 10^exp; keep exp+prec digits.
	keep := exp + prec
	var out []byte
	switch {
	case keep < 0:
		out = nil // rounds to zero
	case keep >= len(digits):
		out = append([]byte(digits), strings.Repeat("0", keep-len(digits))...)
	default:
		out = []byte(digits[:keep])
		if digits[keep] >= '5' {
			out = roundUpDigits(out) // a carry may add a digit: 99.96 → 100.0
		}
	}
	s := placePoint(string(out), prec)
	if neg && strings.Trim(s, "0.") != "" {
		s = "-" + s
	}
	return s
}

// shortestDigits is v's shortest round-trip decimal as its significant
// digits and the exponent e with v = 0.DIGITS × 10^e (digits "0", e 1 for 0).
func shortestDigits(v float64) (digits string, exp int) {
	s := strconv.FormatFloat(v, 'e', -1, 64) // d.ddddde±XX
	mant, e, _ := strings.Cut(s, "e")
	n, _ := strconv.Atoi(e)
	return strings.Replace(mant, ".", "", 1), n + 1
}

// roundUpDigits adds one in the last place of the decimal digits d,
// carrying; a carry out of the first digit prepends a 1.
func roundUpDigits(d []byte) []byte {
	for i := len(d) - 1; i >= 0; i-- {
		if d[i] < '9' {
			d[i]++
			return d
		}
		d[i] = '0'
	}
	return append([]byte{'1'}, d...)
}

// placePoint writes the integer whose decimal digits are d (none for 0)
// times 10^-prec as a fixed-point number with prec places.
func placePoint(d string, prec int) string {
	intLen := len(d) - prec
	var intPart, frac string
	if intLen <= 0 {
		intPart, frac = "0", strings.Repeat("0", -intLen)+d
	} else {
		intPart, frac = d[:intLen], d[intLen:]
	}
	intPart = strings.TrimLeft(intPart, "0")
	if intPart == "" {
		intPart = "0"
	}
	if prec == 0 {
		return intPart
	}
	frac = (frac + strings.Repeat("0", prec))[:prec]
	return intPart + "." + frac
}
