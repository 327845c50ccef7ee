package pgload

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/flow"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// sent is what the section runs, a weighted mix or a flow, and its plan key.
func (s *Spec) sent() ([]Statement, string) {
	if len(s.Flow) > 0 {
		return s.Flow, "flow"
	}
	return s.Statements, "statements"
}

// placeProblems reports the fields of a statement that its list does not
// take: a flow's steps have no weight, a mix's statements capture
// nothing, and a row has no header or JSON body to capture from.
func (st *Statement) placeProblems(pos plan.Pos, key, list string) []error {
	var errs []error
	if list == "flow" && st.Weight != 0 {
		errs = append(errs, plan.Errorf(pos, key+".weight", "a flow's steps run in order, each once per iteration; weight is for statements"))
	}
	for _, name := range slices.Sorted(maps.Keys(st.Capture)) {
		c := st.Capture[name]
		for _, f := range []field{{"header", c.Header != ""}, {"json", c.JSON != ""}} {
			if f.set {
				errs = append(errs, plan.Errorf(pos, key+".capture."+name+"."+f.name, "is for HTTP replies; a Postgres step captures a column of its first row (column: name) or a regex over its first column"))
			}
		}
	}
	if list == "statements" {
		for _, f := range []field{{"capture", len(st.Capture) > 0}, {"once", st.Once}, {"think", st.Think.D() != 0}} {
			if f.set {
				errs = append(errs, plan.Errorf(pos, key+"."+f.name, "is for the steps of a flow (postgres.flow), not the statements of a mix"))
			}
		}
	}
	return errs
}

// field is a plan field and whether a statement sets it.
type field struct {
	name string
	set  bool
}

// compileFlow compiles the section's flow: nil, without problems, for a
// mix. A Postgres group has no data file, so no columns to shadow.
func (s *Spec) compileFlow() (*flow.Flow, []flow.Problem) {
	if len(s.Flow) == 0 {
		return nil, nil
	}
	defs := make([]flow.Def, len(s.Flow))
	for i, st := range s.Flow {
		defs[i] = flow.Def{Name: st.Name, Once: st.Once, Think: st.Think.D(), Capture: st.Capture}
	}
	return flow.Compile(defs, nil)
}

// varsBefore are the variables step i of f may read (none without a flow).
func varsBefore(f *flow.Flow, i int) []string {
	if f == nil {
		return nil
	}
	return f.VarsBefore(i)
}

// parseVar compiles $var:NAME, which binds the text of a variable that
// an earlier step of the flow captured, else of the group's var of that
// name (vars:) in the current step. Bound as text, Postgres converts
// it to the parameter's type (bigint, uuid, …) as it would a literal.
func parseVar(s, name string, sc argScope) (argGen, error) {
	vars := sc.vars
	if i := slices.Index(sc.step, name); i >= 0 && !slices.Contains(vars, name) {
		return func(w *worker) any { return w.r.step[i] }, nil // a group var: the step's value
	}
	switch {
	case !sc.inFlow:
		return nil, fmt.Errorf("%q: the group has no var %q (vars:), and a mix (postgres.statements) captures none", s, name)
	case !slices.Contains(vars, name):
		msg := fmt.Sprintf("%q: no earlier step of the flow captures %q", s, name)
		if len(vars) > 0 {
			msg += "; the variables captured before this step are " + strings.Join(vars, ", ")
		}
		return nil, fmt.Errorf("%s", msg)
	}
	// A template is how a variable of the worker's state is read.
	t, err := tmpl.CompileScope("{{."+name+"}}", tmpl.Scope{Vars: vars}, nil)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", s, err)
	}
	return func(w *worker) any {
		w.text = t.Append(w.text[:0], w.st)
		return string(w.text)
	}, nil
}

// flowWorker is a virtual user running the runner's flow: its statements
// in order, each iteration, on pooled connections.
type flowWorker struct {
	*worker
	user   *flow.User
	reader rowReader
}

var _ runners.Iterator = (*flowWorker)(nil)

func (r *runner) newFlowWorker(id int, rec *runners.Recorder, own *pgx.Conn) *flowWorker {
	w := newWorker(r, id, rec, own)
	w.st = tmpl.NewState(nil, r.seq)
	return &flowWorker{worker: w, user: r.flow.NewUser(w.st, rec)}
}

// Do runs one iteration due now.
func (w *flowWorker) Do(ctx context.Context) runners.Outcome { return w.Iterate(ctx, time.Now()) }

// Iterate runs one iteration of the flow due at due, recording each step.
func (w *flowWorker) Iterate(ctx context.Context, due time.Time) runners.Outcome {
	return w.user.Iterate(ctx, due, w.sendStep)
}

// sendStep runs step i; a step that captures reads its first row into r.
func (w *flowWorker) sendStep(ctx context.Context, i int, r *flow.Reply) runners.Outcome {
	st := w.r.stmts[i]
	if !st.capture {
		return w.run(ctx, st, nil)
	}
	w.reader = rowReader{reply: r, firstColumn: w.r.flow.Steps[i].WantsBody()}
	out := w.run(ctx, st, &w.reader)
	if out.Err == "" && !w.reader.found {
		out.Err = flow.KindCapture
	}
	return out
}

// textResults asks for every result column in Postgres's text form, the
// form a capture keeps and a later $var binds.
var textResults = pgx.QueryResultFormats{pgx.TextFormatCode}

// rowReader runs a capturing step's statements as queries and keeps what
// its captures read: the first row of the last statement that returns
// columns, as text. A NULL column is left out (a capture of it fails);
// the other rows are read and dropped.
type rowReader struct {
	reply       *flow.Reply
	firstColumn bool // a regex reads the first column (Reply.Body)
	found       bool // the last statement with columns had a row fit for the captures
}

// run is a stmtFunc: one statement of the step.
func (rr *rowReader) run(ctx context.Context, conn *pgx.Conn, sql string, args []any) error {
	rows, err := conn.Query(ctx, sql, append([]any{textResults}, args...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	fields := rows.FieldDescriptions()
	if len(fields) > 0 {
		rr.found = false
		r := rr.reply
		r.Columns, r.Row, r.Body = r.Columns[:0], r.Row[:0], r.Body[:0]
	}
	first := true
	for rows.Next() {
		if first && len(fields) > 0 {
			rr.keep(fields, rows.RawValues())
		}
		first = false
	}
	rows.Close()
	return rows.Err()
}

// keep puts a row's values into the reply. A value is cut one byte past
// flow.MaxValueBytes, so that flow refuses it without a hostile row's
// megabytes being kept.
func (rr *rowReader) keep(fields []pgconn.FieldDescription, values [][]byte) {
	r := rr.reply
	for i, v := range values {
		if v == nil || i >= len(fields) {
			continue // NULL
		}
		r.Columns = append(r.Columns, fields[i].Name)
		r.Row = append(r.Row, string(v[:min(len(v), flow.MaxValueBytes+1)]))
	}
	rr.found = true
	if rr.firstColumn {
		if len(values) == 0 || values[0] == nil {
			rr.found = false
			return
		}
		r.Body = append(r.Body, values[0][:min(len(values[0]), flow.MaxBodyBytes)]...)
	}
}

// flowErrors are problems as errors.
func flowErrors(problems []flow.Problem) []error {
	errs := make([]error, len(problems))
	for i, p := range problems {
		errs[i] = p
	}
	return errs
}
