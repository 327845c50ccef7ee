package tmpl

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/benchtui/benchtui/artifacts"
)

// Data modes: how requests take rows.
const (
	// Sequential takes rows in file order, shared by all workers, starting
	// over after the last.
	Sequential = "sequential"
	// Random takes a row at random for every request.
	Random = "random"
	// Unique takes rows in file order, shared by all workers, each at most
	// once: when they have run out the load stops.
	Unique = "unique"
)

// Modes are the data modes a plan may name.
var Modes = []string{Sequential, Random, Unique}

// Limits of a data file, which is held in memory.
const (
	MaxDataBytes = 256 << 20
	MaxRows      = 10_000_000
	// MaxRowBytes bounds one row (the header row too), its fields
	// together: a single huge field would otherwise be held several
	// times over while it is parsed.
	MaxRowBytes = 1 << 20
	// MaxColumns bounds the columns a data file names.
	MaxColumns = 1000
)

// Table is a data file's rows, read once.
type Table struct {
	Columns Columns
	Rows    [][]string
}

// Load reads a CSV file with a header row (.csv) or JSON lines, one object
// per line (.jsonl, .ndjson, .json), whose first line names the columns.
func Load(path string) (*Table, error) { return load(path, MaxDataBytes) }

// load is Load with a limit of limit bytes.
func load(path string, limit int64) (*Table, error) {
	f, err := artifacts.OpenRegular(path) // a FIFO or /dev/zero is refused, not read
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes is above the limit of %d", path, st.Size(), limit)
	}
	// A file that grows while it is read stops at the limit all the same.
	r := &boundedReader{r: f, limit: limit, left: limit + 1}
	var t *Table
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		t, err = readCSV(r)
	case ".jsonl", ".ndjson", ".json":
		t, err = readJSONLines(r)
	default:
		return nil, fmt.Errorf("%s: want a .csv file with a header row, or JSON lines (.jsonl)", path)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(t.Rows) == 0 {
		return nil, fmt.Errorf("%s has no rows", path)
	}
	return t, nil
}

func readCSV(r io.Reader) (*Table, error) {
	cr := csv.NewReader(&rowBound{r: r})
	cr.ReuseRecord = false
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("header row: %w", err)
	}
	if len(head) > MaxColumns {
		return nil, fmt.Errorf("header row: %d columns, at most %d", len(head), MaxColumns)
	}
	t := &Table{Columns: slices.Clone(head)}
	for len(t.Rows) <= MaxRows {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return t, nil
		}
		if err != nil {
			return nil, err
		}
		t.Rows = append(t.Rows, rec)
	}
	return nil, fmt.Errorf("more than %d rows", MaxRows)
}

func readJSONLines(r io.Reader) (*Table, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, MaxRowBytes)
	t := &Table{}
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if len(t.Rows) >= MaxRows {
			return nil, fmt.Errorf("more than %d rows", MaxRows)
		}
		row, err := t.jsonRow(sc.Bytes())
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		t.Rows = append(t.Rows, row)
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		return nil, fmt.Errorf("a line longer than %d bytes", MaxRowBytes)
	}
	return t, sc.Err()
}

// jsonRow reads one object; the first fixes the columns (in key order).
func (t *Table) jsonRow(b []byte) ([]string, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, err
	}
	if t.Columns == nil {
		if len(obj) > MaxColumns {
			return nil, fmt.Errorf("%d keys, at most %d columns", len(obj), MaxColumns)
		}
		for k := range obj {
			t.Columns = append(t.Columns, k)
		}
		slices.Sort(t.Columns)
	}
	row := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		v, ok := obj[c]
		if !ok {
			return nil, fmt.Errorf("no %q (the first line's keys are the columns)", c)
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			s = string(v) // numbers, booleans, objects: as written
		}
		row[i] = s
	}
	return row, nil
}

// Source hands a table's rows to the workers of one run of a group in its
// mode; the cursor of sequential and unique is shared by every worker and
// every step of that run.
type Source struct {
	table  *Table
	mode   string
	cursor atomic.Uint64
}

// NewSource returns a fresh cursor over t (nil t: nil source).
func NewSource(t *Table, mode string) *Source {
	if t == nil {
		return nil
	}
	if mode == "" {
		mode = Sequential
	}
	return &Source{table: t, mode: mode}
}

// next is a request's row; false when unique rows have run out.
func (s *Source) next(rnd *rand.Rand) ([]string, bool) {
	rows := s.table.Rows
	switch s.mode {
	case Random:
		return rows[rnd.IntN(len(rows))], true
	case Unique:
		i := s.cursor.Add(1) - 1
		if i >= uint64(len(rows)) {
			return nil, false
		}
		return rows[i], true
	}
	return rows[(s.cursor.Add(1)-1)%uint64(len(rows))], true
}

// boundedReader fails once more than limit bytes were read.
type boundedReader struct {
	r           io.Reader
	limit, left int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fmt.Errorf("above the limit of %d bytes", b.limit)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

// rowBound fails a CSV read once a row runs past MaxRowBytes: it follows
// the quoting (every '"' opens or closes a quoted field; an escaped ""
// closes and opens) so that a newline inside quotes does not end a row.
type rowBound struct {
	r      io.Reader
	inRow  int // bytes of the current row so far
	quoted bool
}

func (b *rowBound) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	for _, c := range p[:n] {
		switch {
		case c == '"':
			b.quoted = !b.quoted
		case c == '\n' && !b.quoted:
			b.inRow = 0
			continue
		}
		if b.inRow++; b.inRow > MaxRowBytes {
			return 0, fmt.Errorf("a row longer than %d bytes", MaxRowBytes)
		}
	}
	return n, err
}
