package watch

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ReadPIDFile reads the PID on the first line of a pidfile (Postgres's
// postmaster.pid has more lines after it).
func ReadPIDFile(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("reading pidfile: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return 0, fmt.Errorf("reading pidfile %s: %w", path, err)
		}
		return 0, fmt.Errorf("reading pidfile %s: it is empty", path)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(sc.Text()))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("reading pidfile %s: first line %q is not a PID", path, sc.Text())
	}
	return pid, nil
}
