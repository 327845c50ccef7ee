package runners

import "github.com/benchtui/benchtui/runners/plan"

// WorkerUnits is how many workers a load shape holds, and the plan key
// that sets them: what a kind without Kind.Units holds.
func WorkerUnits(load plan.Load) (int, string) {
	if load.OpenLoop() {
		return load.MaxInFlight, "load.max_in_flight"
	}
	return load.Concurrency, "load.concurrency"
}

// SweptSubscribers is a step's count of held subscribers in the whole
// run: its `subscribers` sweep value, else n (the section's; 0 when it
// gives none).
func SweptSubscribers(params map[string]float64, n int) int {
	if v, ok := params["subscribers"]; ok && v > 0 {
		return int(v)
	}
	return n
}

// SubscriberUnits is Kind.Units for a step that holds subscribers, n of
// them by the plan's key (0: not given): SweptSubscribers, else the
// load's concurrency (at least 1); each with the key that sets it.
func SubscriberUnits(params map[string]float64, n int, key string, load plan.Load) (int, string) {
	if n := SweptSubscribers(params, n); n > 0 {
		return n, key
	}
	return max(load.Concurrency, 1), "load.concurrency"
}
