package ui

import "charm.land/lipgloss/v2"

// Styles are every style the console draws with, built once by
// DefaultStyles and handed to each view. Colours are full-range here; the
// program's renderer downsamples them to the terminal's profile and drops
// them under NO_COLOR, so text that matters never relies on colour alone.
type Styles struct {
	Title    lipgloss.Style
	Header   lipgloss.Style
	Dim      lipgloss.Style
	Bold     lipgloss.Style
	Selected lipgloss.Style
	Key      lipgloss.Style
	Sep      lipgloss.Style
	Banner   lipgloss.Style
	Error    lipgloss.Style
	Info     lipgloss.Style
	Worse    lipgloss.Style
	Better   lipgloss.Style
	Same     lipgloss.Style
	BarDone  lipgloss.Style
	BarLeft  lipgloss.Style
	// The charts' curves: latency percentiles, throughput, RSS, open
	// files, and any figure of the baseline run (drawn ░ behind them).
	P50, P99, Rate, RSS, FDs, Base lipgloss.Style
	// States colour the group states: idle, queued, running, paused, done, failed.
	States map[string]lipgloss.Style
}

// DefaultStyles returns the console's styles.
func DefaultStyles() Styles {
	red, green := lipgloss.Color("#e5534b"), lipgloss.Color("#57ab5a")
	yellow, blue := lipgloss.Color("#c69026"), lipgloss.Color("#539bf5")
	grey, cyan := lipgloss.Color("#768390"), lipgloss.Color("#39c5cf")
	return Styles{
		Title:    lipgloss.NewStyle().Bold(true),
		Header:   lipgloss.NewStyle().Bold(true).Underline(true),
		Dim:      lipgloss.NewStyle().Foreground(grey),
		Bold:     lipgloss.NewStyle().Bold(true),
		Selected: lipgloss.NewStyle().Reverse(true),
		Key:      lipgloss.NewStyle().Bold(true).Foreground(blue),
		Sep:      lipgloss.NewStyle().Foreground(grey),
		Banner:   lipgloss.NewStyle().Bold(true).Reverse(true).Foreground(red),
		Error:    lipgloss.NewStyle().Bold(true).Foreground(red),
		Info:     lipgloss.NewStyle().Foreground(blue),
		Worse:    lipgloss.NewStyle().Bold(true).Foreground(red),
		Better:   lipgloss.NewStyle().Bold(true).Foreground(green),
		Same:     lipgloss.NewStyle().Foreground(grey),
		BarDone:  lipgloss.NewStyle().Foreground(blue),
		BarLeft:  lipgloss.NewStyle().Foreground(grey),
		P50:      lipgloss.NewStyle().Foreground(blue),
		P99:      lipgloss.NewStyle().Foreground(red),
		Rate:     lipgloss.NewStyle().Foreground(green),
		RSS:      lipgloss.NewStyle().Foreground(yellow),
		FDs:      lipgloss.NewStyle().Foreground(cyan),
		Base:     lipgloss.NewStyle().Foreground(grey),
		States: map[string]lipgloss.Style{
			stateIdle:    lipgloss.NewStyle().Foreground(grey),
			stateQueued:  lipgloss.NewStyle().Foreground(blue),
			stateRunning: lipgloss.NewStyle().Bold(true).Foreground(green),
			statePaused:  lipgloss.NewStyle().Bold(true).Foreground(yellow),
			stateDone:    lipgloss.NewStyle(),
			stateFailed:  lipgloss.NewStyle().Bold(true).Foreground(red),
		},
	}
}

// state renders a group state word in its style.
func (s Styles) state(st string) string {
	if style, ok := s.States[st]; ok {
		return style.Render(st)
	}
	return st
}

// verdict styles text by a comparison verdict.
func (s Styles) verdict(v, text string) string {
	switch v {
	case "worse":
		return s.Worse.Render(text)
	case "better":
		return s.Better.Render(text)
	}
	return s.Same.Render(text)
}
