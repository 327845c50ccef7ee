package plan

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/benchtui/benchtui/runners/tmpl"
)

// Template compiles a request field of g ({{uuid}}, {{.col}}, …); a bad
// template is a plan error at pos naming key. {{env "X"}} takes the value
// read when the plan was; a group not read from a plan (a test's) reads
// the process's environment.
func (g *Group) Template(pos Pos, key, src string) (*tmpl.Template, error) {
	return g.TemplateVars(pos, key, src, nil)
}

// TemplateVars compiles a request field of g as Template does, where
// {{.name}} may also read vars, the variables a flow captured before.
func (g *Group) TemplateVars(pos Pos, key, src string, vars []string) (*tmpl.Template, error) {
	sc := tmpl.Scope{Vars: vars, Step: g.VarNames()}
	if g.Table != nil {
		sc.Columns = g.Table.Columns
	}
	t, err := g.compile(src, sc)
	if err != nil {
		return nil, Errorf(pos, key, "template: %v", err)
	}
	return t, nil
}

// compile compiles the field whose text is src: the values its ${VAR}s
// put in it are literal (fieldSources), its own text is template source.
func (g *Group) compile(src string, sc tmpl.Scope) (*tmpl.Template, error) {
	if g.src == nil {
		return tmpl.CompileScope(src, sc, os.Getenv)
	}
	if pieces, ok := g.src.pieces[src]; ok {
		return tmpl.CompilePieces(pieces, sc, g.getenv())
	}
	if tmpl.Has(src) {
		for _, v := range g.src.braced {
			if strings.Contains(src, v) {
				return nil, errors.New("the text holds a variable's value with {{, and is not a field of the plan: a value is data, never template source")
			}
		}
	}
	return tmpl.CompileScope(src, sc, g.getenv())
}

// fieldSources is what expanding a plan's ${VAR}s tells the template
// compiler: the values of its {{env "NAME"}} actions, read once with the
// plan, and how each field that a ${VAR} put "{{" into was made.
type fieldSources struct {
	env map[string]string
	// pieces are those fields' written text and values, by the field's
	// expanded text: a field of the same text as one made of pieces is
	// compiled as that one (such a field is written to look like a
	// variable's value; its braces stay data).
	pieces map[string][]tmpl.Piece
	// braced are the ${VAR} values that hold "{{".
	braced []string
	// shown is each field that received a secret ${VAR} as it may be
	// shown, by its expanded text (Group.Shown).
	shown map[string]string
}

func newFieldSources() *fieldSources {
	return &fieldSources{env: map[string]string{}, pieces: map[string][]tmpl.Piece{}, shown: map[string]string{}}
}

// note records a field whose text, once expanded, is text, made of pieces:
// when a value put "{{" into it, the compiler must know which braces are
// data. Two fields of the same text made differently compile as one
// literal, the safe reading.
func (s *fieldSources) note(text string, pieces []tmpl.Piece) {
	for _, p := range pieces {
		if p.Literal && tmpl.Has(p.Text) && !slices.Contains(s.braced, p.Text) {
			s.braced = append(s.braced, p.Text)
		}
	}
	if !tmpl.Has(text) {
		return
	}
	if old, ok := s.pieces[text]; ok && !slices.Equal(old, pieces) {
		pieces = []tmpl.Piece{{Text: text, Literal: true}}
	}
	s.pieces[text] = pieces
}

// getenv resolves {{env "X"}}: with the values read with the plan, or,
// for a group not read from a plan (a test's), from the environment.
func (g *Group) getenv() func(string) string {
	if g.src != nil {
		return func(k string) string { return g.src.env[k] }
	}
	return os.Getenv
}

// Templates compiles each field of fields (key -> source) of g and returns
// every problem at once.
func (g *Group) Templates(pos Pos, fields map[string]string) []error {
	return g.TemplatesVars(pos, fields, nil)
}

// TemplatesVars is Templates for fields that may also read vars, the
// variables a flow captured before (TemplateVars).
func (g *Group) TemplatesVars(pos Pos, fields map[string]string, vars []string) []error {
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if _, err := g.TemplateVars(pos, k, fields[k], vars); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// loadData reads g's data file, relative to the plan file's folder.
func (g *Group) loadData(planPath string) error {
	if g.Data == nil {
		return nil
	}
	if g.Data.Mode != "" && !slices.Contains(tmpl.Modes, g.Data.Mode) {
		return Errorf(g.Pos, "group "+g.ID+": data.mode", "want sequential, random or unique, got %q", g.Data.Mode)
	}
	path := g.Data.File
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(planPath), path)
	}
	t, err := tmpl.Load(path)
	if err != nil {
		return Errorf(g.Pos, "group "+g.ID+": data.file", "%v", err)
	}
	g.Table = t
	return nil
}

// RequestFields names a request's fields that may hold templates, as
// Templates and CompileFields take them: each of named under key.name,
// each header under key.headers.NAME.
func RequestFields(key string, named, headers map[string]string) map[string]string {
	f := make(map[string]string, len(named)+len(headers))
	for k, v := range named {
		f[key+"."+k] = v
	}
	for k, v := range headers {
		f[key+".headers."+k] = v
	}
	return f
}

// Compiled are the fields of a request that hold templates, compiled,
// and the rows of the group's data file.
type Compiled struct {
	// Fields are by RequestFields' names with an empty key ("url",
	// "headers.X-Id"); a field without a template is absent.
	Fields map[string]*tmpl.Template
	Data   *tmpl.Source
}

// Header is the compiled header values, by header name.
func (c *Compiled) Header() map[string]*tmpl.Template {
	h := map[string]*tmpl.Template{}
	for k, t := range c.Fields {
		if name, ok := strings.CutPrefix(k, "headers."); ok {
			h[name] = t
		}
	}
	return h
}

// CompileFields compiles the fields of a request (as RequestFields) that
// hold templates, with g's data file (g may be nil: none). It returns nil
// when no field holds one and there is no data file: the request goes as
// written.
func CompileFields(g *Group, named, headers map[string]string) (*Compiled, error) {
	return CompileFieldsVars(g, named, headers, nil)
}

// CompileFieldsVars is CompileFields for fields that may also read vars,
// the variables a flow captured before (TemplateVars).
func CompileFieldsVars(g *Group, named, headers map[string]string, vars []string) (*Compiled, error) {
	if g == nil {
		g = &Group{}
	}
	c := &Compiled{Fields: map[string]*tmpl.Template{}}
	var errs []error
	for k, src := range RequestFields("", named, headers) {
		if tmpl.Has(src) {
			t, err := g.TemplateVars(Pos{}, k[1:], src, vars)
			c.Fields[k[1:]], errs = t, append(errs, err)
		}
	}
	if g.Table != nil {
		c.Data = tmpl.NewSource(g.Table, g.Data.Mode)
	}
	if len(c.Fields) == 0 && c.Data == nil {
		return nil, errors.Join(errs...)
	}
	return c, errors.Join(errs...)
}

// NoData is the problem of a group with a data file whose runner reads
// none (postgres binds its generators' typed values; spawn sends no
// requests; shutdown's load takes no rows yet): its rows would be loaded
// and never used.
func (g *Group) NoData() []error {
	if g.Data == nil {
		return nil
	}
	return []error{Errorf(g.Pos, "group "+g.ID+": data", "runner %s reads no data file; request templates read it in http, sse and quic", g.Runner)}
}
