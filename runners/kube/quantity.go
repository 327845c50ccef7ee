package kube

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// quantity formats: as resource.Quantity names them.
const (
	decimalSI = iota
	binarySI
	decimalExponent
)

// decimalSuffixes and binarySuffixes are the suffixes of a quantity, by
// power of 10 and of 2.
var (
	decimalSuffixes = map[string]int{"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
	binarySuffixes  = map[string]int{"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
)

// maxQuantityLen and maxExponent bound what Quantity reads (no resource is
// near them): a number of 2^63 or more is refused, as are negative ones.
const (
	maxQuantityLen = 64
	maxExponent    = 40
)

// quantityText is a quantity as scanned: sign, the digits before the
// point without leading zeros ("0" when none), those after it, the
// suffix, and the suffix's base, exponent and format.
type quantityText struct {
	negative          bool
	num, frac         string
	suffix            string
	base, exp, format int
}

// Quantity is s (a resource quantity: "500m", "0.5", "1", "512Mi",
// "1e3") written as k8s.io/apimachinery's resource.Quantity writes it,
// which the API server reads back unchanged: s itself when that is its
// canonical form (or when ParseQuantity keeps it as given), else the
// canonical form ("0.5" is "500m", "1024Mi" is "1Gi", "1000m" is "1").
// Values finer than 1n are rounded up to it, as the API does. A negative
// quantity, one of 2^63 or more, or an exponent past ±40 is an error
// (the API server refuses a negative request; the rest are no resource).
func Quantity(s string) (string, error) {
	if s == "0" {
		return s, nil
	}
	q, err := scanQuantity(s)
	if err != nil {
		return "", fmt.Errorf("quantity %q: %w", s, err)
	}
	nanos := q.nanos()
	switch {
	case q.negative && nanos.Sign() != 0:
		return "", fmt.Errorf("quantity %q: want at least 0", s)
	case nanos.Cmp(maxNanos) > 0:
		return "", fmt.Errorf("quantity %q: want less than 2^63", s)
	case q.keptAsGiven():
		return s, nil
	}
	return canonical(nanos, q.format), nil
}

var errQuantity = errors.New("want a number and a suffix (n, u, m, k, M, G, T, P, E, Ki … Ei, or e and an exponent)")

// scanQuantity reads s as resource.ParseQuantity scans it: an optional
// sign, digits with an optional point, then a suffix.
func scanQuantity(s string) (quantityText, error) {
	var q quantityText
	if s == "" || len(s) > maxQuantityLen {
		return q, errQuantity
	}
	rest := s
	if rest[0] == '-' || rest[0] == '+' {
		q.negative = rest[0] == '-'
		rest = rest[1:]
	}
	digits := func() string {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		d := rest[:i]
		rest = rest[i:]
		return d
	}
	intPart := digits()
	q.num = strings.TrimLeft(intPart, "0")
	if q.num == "" {
		q.num = "0"
	}
	hasPoint := strings.HasPrefix(rest, ".")
	if hasPoint {
		rest = rest[1:]
		q.frac = digits()
	}
	if intPart == "" && q.frac == "" {
		return q, errQuantity // no digit at all ("", "+", ".", "k")
	}
	q.suffix = rest
	var ok bool
	if q.base, q.exp, q.format, ok = interpretSuffix(rest); !ok {
		if len(rest) > 1 && strings.ContainsAny(rest[:1], "eE") && isInt(rest[1:]) {
			return q, fmt.Errorf("exponent %s: want -%d to %d", rest[1:], maxExponent, maxExponent)
		}
		return q, errQuantity
	}
	return q, nil
}

func isInt(s string) bool { _, err := strconv.ParseInt(s, 10, 64); return err == nil }

// interpretSuffix is a suffix's base, exponent and format.
func interpretSuffix(s string) (base, exp, format int, ok bool) {
	if e, ok := decimalSuffixes[s]; ok {
		return 10, e, decimalSI, true
	}
	if e, ok := binarySuffixes[s]; ok {
		return 2, e, binarySI, true
	}
	if len(s) > 1 && (s[0] == 'e' || s[0] == 'E') {
		e, err := strconv.ParseInt(s[1:], 10, 64)
		if err != nil || e < -maxExponent || e > maxExponent {
			return 0, 0, 0, false
		}
		return 10, int(e), decimalExponent, true
	}
	return 0, 0, 0, false
}

// maxNanos is 2^63-1 in units of 1n.
var maxNanos = new(big.Int).Mul(big.NewInt(1<<63-1), big.NewInt(1e9))

// nanos is the quantity's magnitude in units of 1n, rounded up.
func (q quantityText) nanos() *big.Int {
	n, _ := new(big.Int).SetString(q.num+q.frac, 10)
	if q.base == 2 {
		n.Lsh(n, uint(q.exp))
	}
	shift := 9 - len(q.frac)
	if q.base == 10 {
		shift += q.exp
	}
	if shift >= 0 {
		return n.Mul(n, pow10(shift))
	}
	d, m := new(big.Int).DivMod(n, pow10(-shift), new(big.Int))
	if m.Sign() != 0 {
		d.Add(d, big.NewInt(1))
	}
	return d
}

func pow10(n int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

// keptAsGiven reports whether resource.ParseQuantity keeps s as written
// (its fast path, when the digits already are in their canonical shape).
func (q quantityText) keptAsGiven() bool {
	digits := q.num + q.frac
	scale, precision := 0, 18-len(digits)
	if q.format == binarySI {
		if q.frac != "" {
			return false
		}
		precision = 15 - len(q.num) - int(float32(q.exp)*3/10) - 1
	} else {
		scale = q.exp - len(q.frac)
	}
	if precision < 0 || scale < -9 {
		return false
	}
	v, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return false
	}
	if q.format == binarySI {
		return v <= math.MaxInt64>>q.exp && v&7 != 0
	}
	return scale%3 == 0 && !strings.HasSuffix(digits, "000") && digits[0] != '0'
}

// canonical is a positive quantity of nanos (units of 1n) in format, as
// resource.Quantity's CanonicalizeBytes writes it: in binary, whole
// multiples of 1024 (at least 1Ki) by the largest binary suffix; else
// the digits with the largest exponent that is a multiple of 3 (as an SI
// suffix, or e and the exponent).
func canonical(nanos *big.Int, format int) string {
	if nanos.Sign() == 0 {
		return "0"
	}
	billion := big.NewInt(1e9)
	if format == binarySI {
		whole, frac := new(big.Int).DivMod(nanos, billion, new(big.Int))
		if frac.Sign() == 0 && whole.Cmp(big.NewInt(1024)) >= 0 {
			return binaryCanonical(whole)
		}
		format = decimalSI
	}
	m, e := new(big.Int).Set(nanos), -9
	ten, r := big.NewInt(10), new(big.Int)
	for {
		q, rem := new(big.Int).QuoRem(m, ten, r)
		if rem.Sign() != 0 {
			break
		}
		m, e = q, e+1
	}
	for e%3 != 0 {
		m.Mul(m, ten)
		e--
	}
	if format == decimalExponent {
		if e == 0 {
			return m.String()
		}
		return m.String() + "e" + strconv.Itoa(e)
	}
	for suffix, exp := range decimalSuffixes {
		if exp == e {
			return m.String() + suffix
		}
	}
	panic(fmt.Sprintf("quantity exponent %d out of range", e)) // unreachable below 2^63
}

// binaryCanonical is whole (at least 1024) by the largest binary suffix
// that divides it.
func binaryCanonical(whole *big.Int) string {
	exp, k, r := 0, big.NewInt(1024), new(big.Int)
	for {
		q, rem := new(big.Int).QuoRem(whole, k, r)
		if rem.Sign() != 0 {
			break
		}
		whole, exp = q, exp+10
	}
	for suffix, e := range binarySuffixes {
		if e == exp {
			return whole.String() + suffix
		}
	}
	return whole.String()
}
