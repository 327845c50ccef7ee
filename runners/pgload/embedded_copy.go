package pgload

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Bounds of an initdb template (a fresh PostgreSQL 15 data folder is about
// 1000 entries, 40 MB, 3 levels deep).
const (
	maxTemplateBytes = 256 << 20
	maxTemplateFiles = 20000
	maxTemplateDepth = 8
)

// treeTally counts a folder tree's entries (folders and files) and its
// files' bytes.
type treeTally struct{ files, bytes int64 }

// add counts one entry, failing past the template's bounds.
func (t *treeTally) add(info fs.FileInfo) error {
	t.files++
	if info.Mode().IsRegular() {
		t.bytes += info.Size()
	}
	if t.files > maxTemplateFiles || t.bytes > maxTemplateBytes {
		return fmt.Errorf("%w: over %d entries or %d MiB", errCorruptTemplate, maxTemplateFiles, maxTemplateBytes>>20)
	}
	return nil
}

// walkTree calls visit for every entry under root (not root itself),
// parents before their children, without following symbolic links. It
// fails on an entry that is neither a folder nor a regular file, deeper
// than maxTemplateDepth, or past the bounds of tally, which it fills.
func walkTree(ctx context.Context, root string, tally *treeTally, visit func(rel string, info fs.FileInfo) error) error {
	return walkLevel(ctx, root, "", 1, tally, visit)
}

func walkLevel(ctx context.Context, root, rel string, depth int, tally *treeTally, visit func(string, fs.FileInfo) error) error {
	if depth > maxTemplateDepth {
		return fmt.Errorf("%w: %s is over %d levels deep", errCorruptTemplate, rel, maxTemplateDepth)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(filepath.Join(root, rel))
	if err != nil {
		return fmt.Errorf("%w: %v", errCorruptTemplate, err)
	}
	for _, entry := range entries {
		info, err := entry.Info() // lstat
		if err != nil {
			return fmt.Errorf("%w: %v", errCorruptTemplate, err)
		}
		child := filepath.Join(rel, entry.Name())
		if !info.IsDir() && !info.Mode().IsRegular() {
			return fmt.Errorf("%w: %s is neither a folder nor a regular file", errCorruptTemplate, child)
		}
		if err := tally.add(info); err != nil {
			return err
		}
		if err := visit(child, info); err != nil {
			return err
		}
		if info.IsDir() {
			if err := walkLevel(ctx, root, child, depth+1, tally, visit); err != nil {
				return err
			}
		}
	}
	return nil
}

// measureTree tallies the tree under root.
func measureTree(ctx context.Context, root string) (treeTally, error) {
	var tally treeTally
	err := walkTree(ctx, root, &tally, func(string, fs.FileInfo) error { return nil })
	return tally, err
}

// copyTree copies the tree under src (folders and regular files, with
// their permission bits) to dst, which it creates, all of it owned by cred
// when not nil. It fails with errCorruptTemplate when src is unreadable or
// does not match want.
func copyTree(ctx context.Context, src, dst string, want treeTally, cred *credential) error {
	st, err := os.Lstat(src)
	if err != nil || !st.IsDir() {
		return fmt.Errorf("%w: %s is not a folder (%v)", errCorruptTemplate, src, err)
	}
	if err := makeDir(dst, st.Mode().Perm(), cred); err != nil {
		return err
	}
	var got treeTally
	err = walkTree(ctx, src, &got, func(rel string, info fs.FileInfo) error {
		if info.IsDir() {
			return makeDir(filepath.Join(dst, rel), info.Mode().Perm(), cred)
		}
		return copyFile(filepath.Join(src, rel), filepath.Join(dst, rel), info, cred)
	})
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("%w: %d entries of %d bytes, it was made with %d of %d",
			errCorruptTemplate, got.files, got.bytes, want.files, want.bytes)
	}
	return nil
}

// makeDir makes a new folder with perm exactly (whatever the umask),
// owned by cred when not nil.
func makeDir(path string, perm fs.FileMode, cred *credential) error {
	if err := os.Mkdir(path, perm); err != nil {
		return err
	}
	return setOwnerAndMode(path, perm, cred)
}

// copyFile copies one regular file of info's size to a new file, never
// through a symbolic link at either end.
func copyFile(src, dst string, info fs.FileInfo, cred *credential) error {
	in, err := os.OpenFile(src, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return fmt.Errorf("%w: %v", errCorruptTemplate, err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, info.Mode().Perm())
	if err != nil {
		return err
	}
	// One byte more than the file should hold tells a changed file.
	n, err := io.Copy(out, io.LimitReader(in, info.Size()+1))
	if closeErr := out.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return err
	}
	if n != info.Size() {
		return fmt.Errorf("%w: %s holds %d bytes, not %d", errCorruptTemplate, src, n, info.Size())
	}
	return setOwnerAndMode(dst, info.Mode().Perm(), cred)
}

// setOwnerAndMode sets path's permission bits, and its owner to cred
// when not nil.
func setOwnerAndMode(path string, perm fs.FileMode, cred *credential) error {
	if err := os.Chmod(path, perm); err != nil {
		return err
	}
	if cred == nil {
		return nil
	}
	return os.Lchown(path, int(cred.Uid), int(cred.Gid))
}
