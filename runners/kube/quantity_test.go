package kube

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

// quantitySamples are what a user may give --cpu and --memory, and the
// edges of resource.ParseQuantity's forms (kept as given or not).
var quantitySamples = []string{
	"0", "00", "-0", "0.0", "1", "+1", "007", "2", "100m", "250m", "0.5", ".5", "5.", "1.G", "1.500k", "1.5k",
	"1000m", "1500m", "0.25", "1.0", "10", "1000", "1k", "1000k", "1M", "0.1n", "1n", "0.0000000001", "1.0000000001",
	"1u", "1000u", "64Mi", "512Mi", "1Gi", "1024Mi", "1025Mi", "0.5Gi", "1.5Gi", "1.Gi", "8.Gi", "01Gi", "+1Gi",
	"0Gi", "1Ki", "1023", "1024", "2048", "1536", "0.5Ki", "1.0000001Ki", "7Ei", "8Ei", "9223372036854775807",
	"9223372036854775808", "1e3", "1E3", "1e1", "10e100", "1e-3", "1e-10", "1e+3", "12e6", "1.5e3", "1E", "2T", "3P",
	"9E", "10E", "123456789012345678901", "1.123456789012345678", "4096Ki", "3Mi", "1000000Ki", "1e40", "1e-40",
	"1.2.3", "1x", "Ki", "k", "", "+", "-", ".", "1 ", " 1", "1ki", "1Ee3", "1e", "e3", "-1", "-500m", "-1Gi", "1e41",
}

// TestQuantityIsResourceQuantitys: for every sample, Quantity writes what
// resource.MustParse(s) marshals to (the old manifest's bytes), or refuses
// what ParseQuantity refuses; it refuses more only for a negative value
// or one of 2^63 or more, which the API server would not take as a
// resource anyway.
func TestQuantityIsResourceQuantitys(t *testing.T) {
	for _, s := range quantitySamples {
		checkQuantity(t, s)
	}
}

// FuzzQuantity compares Quantity with resource.ParseQuantity on any input.
func FuzzQuantity(f *testing.F) {
	for _, s := range quantitySamples {
		f.Add(s)
	}
	f.Fuzz(checkQuantity)
}

func checkQuantity(t *testing.T, s string) {
	got, err := Quantity(s)
	want, werr := resource.ParseQuantity(s)
	switch {
	case werr != nil && err == nil:
		t.Errorf("Quantity(%q) = %q, ParseQuantity refuses it: %v", s, got, werr)
	case werr != nil:
	case err == nil:
		if b, _ := want.MarshalJSON(); `"`+got+`"` != string(b) {
			t.Errorf("Quantity(%q) = %q, resource.Quantity writes %s", s, got, b)
		}
	case want.Sign() < 0 || want.Cmp(resource.MustParse("9223372036854775807")) > 0 || len(s) > maxQuantityLen ||
		strings.ContainsAny(s, "eE") && !strings.HasSuffix(s, "E") || !strings.ContainsAny(s, "0123456789"):
		// refused on purpose: negative, 2^63 or more, an exponent past
		// ±40 (checked at most by the fuzzer), or no digit ("+", ".")
	default:
		t.Errorf("Quantity(%q): %v; resource.Quantity takes it as %s", s, err, want.String())
	}
}
