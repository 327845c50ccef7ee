// Package plan reads a plan file: the targets benchtui spawns or attaches
// to, and the bench groups it runs against them. LoadPlan and ParsePlan
// expand ${VAR}s (their values kept as data, never template source, and
// the secret ones remembered for redaction), decode the YAML with a budget
// on its nodes (aliases cannot explode), decode each group's runner section
// through the runner's own Schema, and validate everything at once: every
// problem is reported with file:line:column and the key, and a plan with
// any problem is refused. A Plan is read-only once loaded; the engine and
// the front ends share it.
package plan
