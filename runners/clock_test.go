package runners

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

func TestSleepUntil(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		start := time.Now()
		if !SleepUntil(ctx, start.Add(time.Second)) || time.Since(start) != time.Second {
			t.Errorf("slept %s, want 1s and true", time.Since(start))
		}
		if !SleepUntil(ctx, start) {
			t.Error("a time already due with a live context: false")
		}
		time.AfterFunc(time.Second, cancel)
		if SleepUntil(ctx, time.Now().Add(time.Hour)) {
			t.Error("cancelled mid-sleep: true")
		}
		if SleepUntil(ctx, start) {
			t.Error("a time already due with an ended context: true")
		}
	})
}
