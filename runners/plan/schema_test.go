package plan

// testSchema knows one kind, "sleep", with a `sleep:` section: enough for
// the decoder's tests without the runner packages (which import plan).
type testSchema struct{}

type sleepSpec struct {
	Delay Duration `yaml:"delay"`
}

func (testSchema) Section(name string) (func() any, bool) {
	switch name {
	case "sleep":
		return func() any { return &sleepSpec{} }, true
	case "verify": // a list of anything, for the walks over a group's config
		return func() any { return &[]map[string]string{} }, true
	}
	return nil, false
}

func (testSchema) KindNames() []string { return []string{"sleep"} }

func (testSchema) ValidateGroup(g *Group) (bool, []error) {
	if g.Runner != "sleep" {
		return false, nil
	}
	return true, g.LoopProblems()
}
