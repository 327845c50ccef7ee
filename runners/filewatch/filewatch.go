// Package filewatch tells when source files under some paths change, for
// the console's watch-and-rerun loop: it watches every folder below the
// paths with fsnotify and sends one Change per burst of events, once the
// files have been quiet for the debounce (an editor's save is several
// writes, a checkout hundreds).
package filewatch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// MaxFolders bounds the folders one Watcher watches: a path such as $HOME
// would otherwise take every inotify watch the user has.
const MaxFolders = 4096

// DefaultDebounce is the quiet time after the last event before a Change
// is sent.
const DefaultDebounce = 300 * time.Millisecond

// maxPaths bounds the paths one Change lists.
const maxPaths = 20

// Change is a burst of changes: the files it touched (at most 20, sorted)
// and how many in all.
type Change struct {
	Paths []string
	N     int
}

// Watcher watches the folders under some paths; its C receives a Change
// per burst. Stop ends it and closes C.
type Watcher struct {
	C        <-chan Change
	w        *fsnotify.Watcher
	ignore   []string
	debounce time.Duration
	done     chan struct{}
	stopOnce sync.Once
}

// New watches every folder under paths (a file path watches its folder,
// for that file only), except hidden folders (.git), folders named in
// ignore, and anything under them. Files under ignore never make a
// Change. An error names the path that cannot be watched.
func New(paths, ignore []string, debounce time.Duration) (*Watcher, error) {
	if debounce <= 0 {
		debounce = DefaultDebounce
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watching files: %w", err)
	}
	w := &Watcher{w: fw, debounce: debounce, done: make(chan struct{})}
	for _, p := range ignore {
		if abs, err := filepath.Abs(p); err == nil {
			w.ignore = append(w.ignore, abs)
		}
	}
	folders := 0
	for _, p := range paths {
		if err := w.add(p, &folders); err != nil {
			fw.Close()
			return nil, err
		}
	}
	c := make(chan Change, 1)
	w.C = c
	go w.loop(c)
	return w, nil
}

// add watches p: a folder and the folders below it, or a file's folder.
func (w *Watcher) add(p string, folders *int) error {
	abs, err := filepath.Abs(p)
	if err != nil {
		return fmt.Errorf("watching %s: %w", p, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return fmt.Errorf("watching %s: %w", p, err)
	}
	if !fi.IsDir() {
		return w.addFolder(filepath.Dir(abs), folders)
	}
	return filepath.WalkDir(abs, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil // an unreadable entry is not watched; it cannot change what is built
		}
		if path != abs && (strings.HasPrefix(d.Name(), ".") || w.ignored(path)) {
			return filepath.SkipDir
		}
		return w.addFolder(path, folders)
	})
}

func (w *Watcher) addFolder(path string, folders *int) error {
	if *folders++; *folders > MaxFolders {
		return fmt.Errorf("watching %s: more than %d folders: watch the source folders only", path, MaxFolders)
	}
	if err := w.w.Add(path); err != nil {
		return fmt.Errorf("watching %s: %w", path, err)
	}
	return nil
}

// ignored reports whether path is, or is under, an ignored path.
func (w *Watcher) ignored(path string) bool {
	for _, ig := range w.ignore {
		if path == ig || strings.HasPrefix(path, ig+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// relevant reports whether an event is a change of a file worth a rerun:
// not under an ignored path, not a hidden file (editors' swap files), and
// not a mere chmod.
func (w *Watcher) relevant(ev fsnotify.Event) bool {
	base := filepath.Base(ev.Name)
	return ev.Op&^fsnotify.Chmod != 0 && !w.ignored(ev.Name) && !strings.HasPrefix(base, ".") &&
		!strings.HasSuffix(base, "~")
}

// loop gathers events into bursts and sends each once quiet; a new
// folder is watched as it appears.
func (w *Watcher) loop(c chan<- Change) {
	defer close(c)
	var burst []string
	n := 0
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-w.done:
			return
		case ev, ok := <-w.w.Events:
			if !ok {
				return
			}
			if !w.relevant(ev) {
				continue
			}
			w.watchNewFolder(ev)
			n++
			if len(burst) < maxPaths && !slices.Contains(burst, ev.Name) {
				burst = append(burst, ev.Name)
			}
			timer.Reset(w.debounce)
		case _, ok := <-w.w.Errors:
			if !ok {
				return
			}
		case <-timer.C:
			slices.Sort(burst)
			select {
			case c <- Change{Paths: burst, N: n}:
			case <-w.done:
				return
			}
			burst, n = nil, 0
		}
	}
}

// watchNewFolder adds a folder created under a watched one.
func (w *Watcher) watchNewFolder(ev fsnotify.Event) {
	if ev.Op&fsnotify.Create == 0 {
		return
	}
	if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() && len(w.w.WatchList()) < MaxFolders {
		_ = w.w.Add(ev.Name) // best effort: a folder that vanished at once is no loss
	}
}

// Stop ends the watcher; C is closed soon after.
func (w *Watcher) Stop() error {
	var err error
	w.stopOnce.Do(func() {
		close(w.done)
		err = w.w.Close()
	})
	if errors.Is(err, fsnotify.ErrClosed) {
		return nil
	}
	return err
}
