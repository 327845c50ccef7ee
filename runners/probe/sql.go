package probe

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchtui/benchtui/runners/plan"
)

// sqlReader reads the first column of the first row of a query, over one
// connection opened at the first read and opened again after a failure.
type sqlReader struct {
	dsn, sql string
	conn     *pgx.Conn
}

func (r *sqlReader) Read(ctx context.Context) (float64, error) {
	if r.conn == nil {
		c, err := pgx.Connect(ctx, r.dsn)
		if err != nil {
			return 0, r.redacted("connecting to "+plan.RedactURLs(r.dsn), err)
		}
		r.conn = c
	}
	v, err := r.query(ctx)
	if err != nil {
		r.closeConn() // a cancelled query leaves the connection unfit
		return 0, r.redacted("querying", err)
	}
	return v, nil
}

func (r *sqlReader) query(ctx context.Context) (float64, error) {
	// Simple protocol: the value comes back as text, whatever its type.
	rows, err := r.conn.Query(ctx, r.sql, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return 0, err
		}
		return 0, errors.New("the query returned no row")
	}
	raw := rows.RawValues()
	if len(raw) == 0 || raw[0] == nil {
		return 0, errors.New("the query returned NULL")
	}
	text := string(raw[0])
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	return parseNumber(text)
}

// redacted wraps err, with the DSN's password taken out of its text.
func (r *sqlReader) redacted(doing string, err error) error {
	msg := plan.RedactURLs(err.Error())
	if cfg, perr := pgx.ParseConfig(r.dsn); perr == nil && cfg.Password != "" {
		msg = strings.ReplaceAll(msg, cfg.Password, plan.Redacted)
	}
	return fmt.Errorf("%s: %s", doing, msg)
}

func (r *sqlReader) closeConn() {
	if r.conn == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = r.conn.Close(ctx)
	r.conn = nil
}

func (r *sqlReader) Close() error {
	r.closeConn()
	return nil
}
