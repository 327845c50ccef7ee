package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// gitRepo runs git in the repository that holds the plan. Only read
// commands and `git worktree add|remove` run: the user's working tree,
// index and branches are never touched.
type gitRepo struct {
	top string // the working tree's top folder, symlinks resolved
}

// revision is one commit of the bisection.
type revision struct {
	hash, subject string
}

// short is the revision's hash cut to 12 digits, for names and lines.
func (r revision) short() string { return r.hash[:min(12, len(r.hash))] }

// openRepo finds the repository that holds dir.
func openRepo(ctx context.Context, dir string) (*gitRepo, error) {
	out, err := gitOutput(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("finding the git repository of %s: %w", dir, err)
	}
	top, err := filepath.EvalSymlinks(out)
	if err != nil {
		return nil, fmt.Errorf("finding the git repository of %s: %w", dir, err)
	}
	return &gitRepo{top: top}, nil
}

// gitOutput runs git in dir and returns its output, trimmed; a failure
// carries git's own message.
func gitOutput(ctx context.Context, dir string, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", fmt.Errorf("git %s: %s", args[0], firstLine(msg))
		}
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	return strings.TrimSpace(stdout.String()), nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func (g *gitRepo) git(ctx context.Context, args ...string) (string, error) {
	return gitOutput(ctx, g.top, args...)
}

// resolve turns a revision as the user wrote it into a commit.
func (g *gitRepo) resolve(ctx context.Context, rev string) (revision, error) {
	if strings.HasPrefix(rev, "-") {
		return revision{}, fmt.Errorf("revision %q: must not start with -", rev)
	}
	hash, err := g.git(ctx, "rev-parse", "--verify", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return revision{}, fmt.Errorf("revision %q: %w", rev, err)
	}
	return g.describe(ctx, hash)
}

// describe reads the subject of the commit hash.
func (g *gitRepo) describe(ctx context.Context, hash string) (revision, error) {
	subject, err := g.git(ctx, "log", "-1", "--no-show-signature", "--format=%s", hash)
	if err != nil {
		return revision{}, fmt.Errorf("reading commit %s: %w", hash, err)
	}
	return revision{hash: hash, subject: subject}, nil
}

// between lists the commits after good up to bad with their subjects,
// oldest first, along bad's first parents (a merged branch counts as its
// merge commit); good must be one of bad's first-parent ancestors.
func (g *gitRepo) between(ctx context.Context, good, bad revision) ([]revision, error) {
	out, err := g.git(ctx, "log", "--first-parent", "--reverse", "--no-show-signature", "--format=%H%x1f%s", bad.hash, "^"+good.hash)
	if err != nil {
		return nil, fmt.Errorf("listing the commits from %s to %s: %w", good.short(), bad.short(), err)
	}
	var revs []revision
	for _, line := range strings.Split(out, "\n") {
		if hash, subject, ok := strings.Cut(line, "\x1f"); ok {
			revs = append(revs, revision{hash: hash, subject: subject})
		}
	}
	if len(revs) == 0 {
		return nil, fmt.Errorf("no commits after the good revision %s up to the bad one %s", good.short(), bad.short())
	}
	parent, err := g.git(ctx, "rev-parse", revs[0].hash+"^")
	if err != nil || parent != good.hash {
		return nil, fmt.Errorf("the good revision %s is not on the first-parent history of the bad one %s", good.short(), bad.short())
	}
	return revs, nil
}

// checkout makes a detached worktree of rev in a new temporary folder,
// outside the user's tree; remove deletes it and its record in the repo.
func (g *gitRepo) checkout(ctx context.Context, rev revision) (tree string, remove func(), err error) {
	parent, err := os.MkdirTemp("", "benchtui-bisect-")
	if err != nil {
		return "", nil, fmt.Errorf("checking out %s: %w", rev.short(), err)
	}
	tree = filepath.Join(parent, "tree")
	if _, err := g.git(ctx, "worktree", "add", "--detach", "--quiet", tree, rev.hash); err != nil {
		os.RemoveAll(parent)
		return "", nil, fmt.Errorf("checking out %s: %w", rev.short(), err)
	}
	return tree, func() {
		// not ctx: the worktree goes even when the bisection was interrupted
		if _, err := g.git(context.Background(), "worktree", "remove", "--force", tree); err != nil {
			g.git(context.Background(), "worktree", "prune")
		}
		os.RemoveAll(parent)
	}, nil
}
