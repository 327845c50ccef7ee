// Package examples holds the seed campaigns as plans (*.yaml, see
// README.md) and, in its tests only, their checks: every plan validates,
// every group runs against the demo target, and every check of the demo
// groups fails against a faulty demo target. The tests run the real
// benchtui binary, built once per test process, so they run beside
// cmd/benchtui's own tests instead of after them.
package examples
