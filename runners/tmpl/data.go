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
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
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
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes is above the limit of %d", path, st.Size(), limit)
	}
	// A device or a pipe has no size: the reader itself stops past the limit.
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
	cr := csv.NewReader(r)
	cr.ReuseRecord = false
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("header row: %w", err)
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
	sc.Buffer(nil, 1<<20)
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
	return t, sc.Err()
}

// jsonRow reads one object; the first fixes the columns (in key order).
func (t *Table) jsonRow(b []byte) ([]string, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, err
	}
	if t.Columns == nil {
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
