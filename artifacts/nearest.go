package artifacts

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// maxNearest is how many near names an unknown name's message offers.
const maxNearest = 3

// maxListed is how many names an absent name's message lists at most.
const maxListed = 12

// Nearest returns the names of have nearest to name, at most three, best
// first: those within a few edits of it (about a third of its length, at
// least two), or failing any, those it begins or that begin with it. A
// message naming an unknown name offers them as what was meant.
func Nearest(name string, have []string) []string {
	type near struct {
		name string
		d    int
	}
	limit := max(2, len(name)/3)
	var found []near
	for _, h := range have {
		if d := EditDistance(name, h); d <= limit && d > 0 {
			found = append(found, near{h, d})
		}
	}
	if len(found) == 0 {
		for _, h := range have {
			if h != name && name != "" && (strings.HasPrefix(h, name) || strings.HasPrefix(name, h)) {
				found = append(found, near{h, abs(len(h) - len(name))})
			}
		}
	}
	slices.SortFunc(found, func(a, b near) int { return cmp.Or(cmp.Compare(a.d, b.d), strings.Compare(a.name, b.name)) })
	names := make([]string, 0, maxNearest)
	for _, f := range found[:min(len(found), maxNearest)] {
		names = append(names, f.name)
	}
	return names
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// nearestNote is "nearest: a, b; " for the names of have nearest to name,
// "" when none is near.
func nearestNote(name string, have []string) string {
	return nearNote("", Nearest(name, have))
}

// nearNote is "nearest: " and the names, each after prefix, and "; ";
// "" for no names.
func nearNote(prefix string, near []string) string {
	if len(near) == 0 {
		return ""
	}
	return "nearest: " + prefix + strings.Join(near, ", "+prefix) + "; "
}

// boundedList joins names, the first maxListed of them and a count of the
// rest, or "none".
func boundedList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	if len(names) <= maxListed {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxListed], ", "), len(names)-maxListed)
}

// EditDistance is the Levenshtein distance between a and b, in bytes.
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// figureFamilies are the first segments of dotted figures.
var figureFamilies = []string{famTarget, famSelf, famService, famCounters, famStatus, famErrorKinds,
	famExtra, famByName, famProbes, famTargets, famTargetsSum}

// nearestFigures is the nearestNote of an unknown figure path: for a
// dotted one, the path with the nearest families in place of its first
// segment; else the nearest of the step's own figures.
func nearestFigures(path string) string {
	family, rest, dotted := strings.Cut(path, ".")
	if !dotted {
		return nearestNote(path, append(slices.Clone(stepLeaves), "p50", "p90", "p95", "p99", "p99.9"))
	}
	near := Nearest(family, figureFamilies)
	for i, fam := range near {
		near[i] = fam + "." + rest
	}
	return nearNote("", near)
}

// unknownLeaf is the error of a figure whose leaf its family lacks,
// naming the nearest leaves, then all of them (shape: "target.X").
func unknownLeaf(f Figure, leaf, shape string, leaves []string) error {
	family, _, _ := strings.Cut(shape, ".")
	note := nearNote(family+".", Nearest(leaf, leaves))
	return fmt.Errorf("unknown figure %q (%s%s, X: %s)", f.Path, note, shape, strings.Join(leaves, ", "))
}
