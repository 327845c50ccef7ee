package artifacts

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// DefaultLeakSlope is the RSS tail slope (MB/min) above which a soak is
// judged still rising when its policy does not say (plan.Group.SoakRule's
// default).
const DefaultLeakSlope = 1.0

// Ending is how a run, or one step of it, ended, judged from the artifact
// alone so that the console, the headless summary and the reports say the
// same thing. Several parts can hold at once: a partial run can also have
// failed checks. See Outcome for the rule.
type Ending struct {
	// Failed are the checks that did not pass, in step order.
	Failed []FailedCheck
	// Soaks are the soak verdicts of the steps the soak policy extended.
	Soaks []SoakVerdict
	// Rising are the watched targets whose RSS was still rising when a
	// step ended (TargetStats.RSSRising), soak policy or not; a step whose
	// soak verdict is a leak already says so and is not repeated here.
	Rising []RisingTarget
	// Partial is the run's partial mark: a step was cut short.
	Partial bool
	// Stopped says a step was stopped before its end, and StoppedWhy by
	// what (the stopped event's note).
	Stopped    bool
	StoppedWhy string
}

// FailedCheck is a check that failed, with the step it belongs to.
type FailedCheck struct {
	Step string
	Check
}

// RisingTarget is a watched target whose RSS slope over a step's measured
// samples was significantly above zero and above the leak floors.
type RisingTarget struct {
	Step, Target string
	// SlopeMBPerMin ± SEMBPerMin is the whole-run slope over SpanS seconds.
	SlopeMBPerMin, SEMBPerMin, SpanS float64
}

// String says it with the slope's name, window and error: "api RSS still
// rising: slope +129.2 ± 6.1 MB/min (whole run, 59 s)".
func (r RisingTarget) String() string {
	who := r.Target
	if who != "" {
		who += " "
	}
	return fmt.Sprintf("%sRSS still rising: %s", who, SlopeText(r.SlopeMBPerMin, r.SEMBPerMin, r.SpanS))
}

// SlopeText is a whole-run RSS slope as every front end names it: "slope
// +129.2 ± 6.1 MB/min (whole run, 59 s)".
func SlopeText(slope, se, spanS float64) string {
	return fmt.Sprintf("slope %+.1f ± %.1f MB/min (whole run, %s s)", slope, se, TrimFloat(math.Round(spanS)))
}

// TailSlopeText is a tail slope as every front end names it: "tail slope
// (last 60 s) +112.4 MB/min".
func TailSlopeText(slope, windowS float64) string {
	if windowS <= 0 {
		return fmt.Sprintf("tail slope %+.1f MB/min", slope)
	}
	return fmt.Sprintf("tail slope (last %s s) %+.1f MB/min", TrimFloat(math.Round(windowS)), slope)
}

// SoakVerdict is what a soak policy found: how often it auto-extended a
// step and whether the target's RSS still rose when the step ended.
type SoakVerdict struct {
	Step string
	// Extensions is how many times the policy extended the step, of
	// Possible (0 when the policy cannot be read back from the config).
	Extensions, Possible int
	// Added is the time the extensions added.
	Added time.Duration
	// SlopeMBPerMin is the target's RSS tail slope over its last WindowS
	// seconds, ThresholdMBPerMin the policy's.
	SlopeMBPerMin, ThresholdMBPerMin, WindowS float64
	// Series is the verdict on the probe series the policy watched
	// (soak.extend_while_rising); nil when it watched RSS only.
	Series *SeriesVerdict
	// Leak: extended, and the slope (RSS's, or the series') still above
	// its threshold at the end.
	Leak bool
}

// String says what the soak did and found, e.g.
// "auto-extended 2/3 (+2m0s), RSS +26.0 MB/min: leak suspected".
func (v SoakVerdict) String() string {
	n := strconv.Itoa(v.Extensions)
	if v.Possible > 0 {
		n += "/" + strconv.Itoa(v.Possible)
	}
	s := fmt.Sprintf("auto-extended %s (+%s), RSS %s", n, v.Added, TailSlopeText(v.SlopeMBPerMin, v.WindowS))
	if v.Series != nil {
		s += ", " + v.Series.String()
	}
	if v.Leak {
		return s + ": leak suspected"
	}
	if v.Series != nil {
		return s + ": settled"
	}
	return s + fmt.Sprintf(": settled (≤ %g MB/min)", v.ThresholdMBPerMin)
}

// Outcome judges how a run ended:
//
//   - failed: every check of every step whose ok is false;
//   - leak suspected, per step: the soak policy extended the step (an
//     "extended" event not made "by the operator") and the target's RSS
//     tail slope at the end (target.rss_tail_slope_mb_per_min) is still
//     above the policy's slope_mb_per_min (group.config.soak.
//     extend_while_rss_rising, else DefaultLeakSlope). The engine extends
//     while that holds, so together they mean the soak hit its cap, or was
//     stopped, with RSS still rising. A step the policy never extended is
//     not judged: the tail slope of a short step is noise;
//   - partial: run.partial;
//   - stopped: any "stopped" event.
//
// It passes when none of these holds.
func Outcome(a *Artifact) Ending {
	e := Ending{Partial: a.Run.Partial}
	for i := range a.Steps {
		se := StepOutcome(a, i)
		e.Failed = append(e.Failed, se.Failed...)
		e.Soaks = append(e.Soaks, se.Soaks...)
		e.Rising = append(e.Rising, se.Rising...)
		if se.Stopped && !e.Stopped {
			e.Stopped, e.StoppedWhy = true, se.StoppedWhy
		}
	}
	return e
}

// StepOutcome judges the i-th step of a as Outcome does; Partial is the
// run's.
func StepOutcome(a *Artifact, i int) Ending {
	s := &a.Steps[i]
	e := Ending{Partial: a.Run.Partial}
	for _, c := range s.Checks {
		if !c.OK {
			e.Failed = append(e.Failed, FailedCheck{Step: s.Label, Check: c})
		}
	}
	for _, ev := range s.Events {
		if ev.Kind == EventStopped && !e.Stopped {
			e.Stopped, e.StoppedWhy = true, ev.Note
		}
	}
	if n, added := AutoExtensions(s.Events); n > 0 {
		e.Soaks = append(e.Soaks, soakVerdict(a, s, n, added))
	}
	if !e.Leak() {
		e.Rising = risingTargets(s)
	}
	return e
}

// risingTargets are the step's targets whose RSS was still rising, named
// when the step watched several.
func risingTargets(s *Step) []RisingTarget {
	rising := func(name string, t *TargetStats) []RisingTarget {
		if t == nil || !t.RSSRising {
			return nil
		}
		return []RisingTarget{{Step: s.Label, Target: name, SlopeMBPerMin: t.RSSSlopeMBPerMin,
			SEMBPerMin: t.RSSSlopeSE, SpanS: t.SpanS}}
	}
	if len(s.Targets) < 2 {
		return rising("", s.Target)
	}
	var out []RisingTarget
	for _, name := range s.TargetNames() {
		out = append(out, rising(name, s.Targets[name])...)
	}
	return out
}

// AutoExtensions counts the extensions the soak policy made among events
// and the time they added, read from the notes the engine writes
// ("+1m0s RSS rising …"). Extensions "by the operator" are not counted.
func AutoExtensions(events []Event) (n int, added time.Duration) {
	for _, ev := range events {
		if ev.Kind != EventExtended || byOperator(ev) {
			continue
		}
		n++
		added += extensionOf(ev)
	}
	return n, added
}

// operatorExtended is the time the operator's extensions (e in the
// console) added among events.
func operatorExtended(events []Event) time.Duration {
	var added time.Duration
	for _, ev := range events {
		if ev.Kind == EventExtended && byOperator(ev) {
			added += extensionOf(ev)
		}
	}
	return added
}

func byOperator(ev Event) bool { return strings.Contains(ev.Note, "by the operator") }

// extensionOf is the time an extended event's note says it added
// ("+1m0s …"); 0 when it cannot be read.
func extensionOf(ev Event) time.Duration {
	head, _, _ := strings.Cut(strings.TrimPrefix(ev.Note, "+"), " ")
	d, _ := time.ParseDuration(head)
	return d
}

// Leak reports whether any step is suspected of a leak.
func (e Ending) Leak() bool {
	for _, v := range e.Soaks {
		if v.Leak {
			return true
		}
	}
	return false
}

// Pass reports whether the run ended whole with every check ok, no leak
// suspected and no RSS still rising. Rising RSS is a warning, not a
// failure: the exit code of `run` follows the checks unless
// --fail-on-leak.
func (e Ending) Pass() bool {
	return len(e.Failed) == 0 && !e.Leak() && len(e.Rising) == 0 && !e.Partial && !e.Stopped
}

// Tags are the ending in a few columns each, most severe first, for a
// list: "✓ pass", or some of "✗ 2", "⚠ leak", "⚠ rising", "stopped"
// (which implies partial) or "partial".
func (e Ending) Tags() []string {
	if e.Pass() {
		return []string{"✓ pass"}
	}
	var tags []string
	if len(e.Failed) > 0 {
		tags = append(tags, "✗ "+strconv.Itoa(len(e.Failed)))
	}
	if e.Leak() {
		tags = append(tags, "⚠ leak")
	}
	if len(e.Rising) > 0 {
		tags = append(tags, "⚠ rising")
	}
	switch {
	case e.Stopped:
		tags = append(tags, "stopped")
	case e.Partial:
		tags = append(tags, "partial")
	}
	return tags
}

// String is the ending in words, e.g. "✗ 2 checks failed, ⚠ leak
// suspected, stopped (by the operator)" or "✓ pass".
func (e Ending) String() string {
	if e.Pass() {
		return "✓ pass"
	}
	var parts []string
	if n := len(e.Failed); n > 0 {
		parts = append(parts, fmt.Sprintf("✗ %d check%s failed", n, map[bool]string{true: "s"}[n > 1]))
	}
	if e.Leak() {
		parts = append(parts, "⚠ leak suspected")
	}
	if len(e.Rising) > 0 {
		parts = append(parts, "⚠ RSS still rising")
	}
	switch {
	case e.Stopped && e.StoppedWhy != "":
		parts = append(parts, "stopped ("+e.StoppedWhy+")")
	case e.Stopped:
		parts = append(parts, "stopped")
	case e.Partial:
		parts = append(parts, "partial")
	}
	return strings.Join(parts, ", ")
}

// Details are one line per failed check and per soak verdict, each
// prefixed with its step when multi (a sweep's steps must be told apart).
func (e Ending) Details(multi bool) []string {
	var out []string
	prefix := func(step string) string {
		if multi {
			return step + ": "
		}
		return ""
	}
	for _, f := range e.Failed {
		out = append(out, prefix(f.Step)+"✗ "+FailedLine(f.Check))
	}
	for _, v := range e.Soaks {
		mark := "✓ "
		if v.Leak {
			mark = "⚠ "
		}
		out = append(out, prefix(v.Step)+mark+v.String())
	}
	for _, r := range e.Rising {
		out = append(out, prefix(r.Step)+"⚠ "+r.String())
	}
	return out
}

// FailedLine is a failed check with its limit (in the name) and value:
// "p99 <= 50ms: was 71.3 ms", or the note of a check that has one.
func FailedLine(c Check) string {
	line := c.Name + ": was " + ValueAndLimits(c)
	if c.Note != "" {
		if c.Value == 0 {
			return c.Name + ": " + c.Note
		}
		line += " (" + c.Note + ")"
	}
	return line
}

// CheckValue formats a check's value, in milliseconds when its limit is a
// duration ("p99 <= 50ms" is judged on milliseconds).
func CheckValue(c Check) string {
	v := FormatFigure(c.Value)
	if c.Unit == UnitMS {
		return v + " ms"
	}
	// A bare "0" parses as a duration too: a duration limit has a unit.
	if i := strings.LastIndexByte(c.Name, ' '); i >= 0 && strings.HasSuffix(c.Name, "s") {
		if _, err := time.ParseDuration(c.Name[i+1:]); err == nil {
			return v + " ms"
		}
	}
	return v
}

// UnitMS is a check's unit when its value and limits are milliseconds.
const UnitMS = "ms"

// ValueAndLimits is a check's value (CheckValue) and, when another figure
// set its limit, that limit: "14.2 ms, limit 12 ms".
func ValueAndLimits(c Check) string {
	if len(c.Limits) == 0 {
		return CheckValue(c)
	}
	return CheckValue(c) + ", " + checkLimits(c)
}

// checkLimits shows the limits another figure set: "limit 12 ms",
// "limits 90 and 110".
func checkLimits(c Check) string {
	show := func(v float64) string {
		if c.Unit == UnitMS {
			return FormatFigure(v) + " ms"
		}
		return FormatFigure(v)
	}
	if len(c.Limits) == 2 {
		return "limits " + show(c.Limits[0]) + " and " + show(c.Limits[1])
	}
	return "limit " + show(c.Limits[0])
}

// soakRule is the part of a group's soak policy the ending needs.
type soakRule struct {
	slope  float64
	budget extensionBudget
}

// extensionBudget is what a soak policy may add to a step: max − duration
// in all, step at a time; zero when the config does not say.
type extensionBudget struct{ total, step time.Duration }

// budgetOf reads the budget of a soak rule from the group config.
func budgetOf(cfg, rule map[string]any) extensionBudget {
	step, okS := duration(rule["step"])
	maxD, okM := duration(rule["max"])
	d, okD := duration(cfg["duration"])
	if !okS || !okM || !okD || PossibleExtensions(maxD, d, step) == 0 {
		return extensionBudget{}
	}
	return extensionBudget{total: maxD - d, step: step}
}

// possible is how many extensions the policy could make in all, having
// made n while the step was extended by extended in all (the policy and
// the operator: what e adds counts toward the policy's max), as the
// console counts them live: n, plus the steps left in the budget.
func (b extensionBudget) possible(n int, extended time.Duration) int {
	if b.step <= 0 {
		return 0
	}
	return n + int(max(b.total-extended, 0)/b.step)
}

// soakRuleOf reads the soak policy back from an artifact's group config
// (the plan as written): its slope threshold, and its extension budget
// when max, duration and step are durations it can read.
func soakRuleOf(cfg map[string]any) soakRule {
	r := soakRule{slope: DefaultLeakSlope}
	soak, _ := cfg["soak"].(map[string]any)
	rule, _ := soak["extend_while_rss_rising"].(map[string]any)
	if f, ok := number(rule["slope_mb_per_min"]); ok {
		r.slope = f
	}
	r.budget = budgetOf(cfg, rule)
	return r
}

// PossibleExtensions is how many times a soak policy may extend a step of
// duration by step when max is the step's whole length; 0 when it cannot.
func PossibleExtensions(max, duration, step time.Duration) int {
	if step <= 0 || max <= duration {
		return 0
	}
	return int((max - duration) / step)
}

// number reads a config scalar as a float: YAML decodes ints and floats,
// JSON floats, and a string may hold either.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	}
	return 0, false
}

// duration reads a config scalar as a duration ("300s"), as the plan does.
func duration(v any) (time.Duration, bool) {
	s, ok := v.(string)
	if !ok {
		return 0, false
	}
	d, err := time.ParseDuration(s)
	return d, err == nil
}
