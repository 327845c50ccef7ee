package artifacts

import (
	"fmt"
	"testing"
)

func TestNaturalOrder(t *testing.T) {
	ids := []string{"G10", "G2", "G1", "G3b", "G3a", "PG2"}
	SortNatural(ids)
	if got := fmt.Sprint(ids); got != "[G1 G2 G3a G3b G10 PG2]" {
		t.Errorf("got %s", got)
	}
}
