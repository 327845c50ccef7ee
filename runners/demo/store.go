package demo

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// The store's sizes.
const (
	// walSegment is the WAL's size: it is made that long when the store
	// opens (preallocated, as Postgres makes its WAL segments) and used
	// from its start again after each checkpoint.
	walSegment = 256 << 10
	// dbPage is the database file: one page, rewritten by each checkpoint.
	dbPage = 4096
	// maxStoreBytes bounds the WAL the fault store-growth lets grow.
	maxStoreBytes = 256 << 20
)

// Store stands in for the ingestion API's SQLite database in WAL
// mode (seed 003: "SQLite, WAL, and shared-memory files ... no measured
// growth"): every batch /ingest accepts is appended to the WAL
// (DIR/ingest.db-wal) as one frame, its new events' lines. When the next
// frame would not fit in the segment, a checkpoint writes the database
// page (DIR/ingest.db: the events and checkpoints so far) and rewinds the
// WAL, whose frames then overwrite it from the start; a frame longer than
// the segment extends the file, and the checkpoint after it truncates the
// WAL back to the segment. So under a steady load the files' size stays
// at dbPage + walSegment. With the fault store-growth there is no
// checkpoint: the WAL grows by every frame (up to maxStoreBytes, then
// frames are no longer written).
type Store struct {
	growth bool // the fault store-growth
	mu     sync.Mutex
	db     *os.File
	wal    *os.File
	at     int64 // the WAL's write offset
	events int64 // events written to the WAL
	ckpts  int64 // checkpoints
	err    error // the first write error: the store writes nothing after it
}

// OpenStore makes a fresh store in dir (its files truncated), the WAL
// preallocated to walSegment; growth is the fault store-growth (no
// checkpoints).
func OpenStore(dir string, growth bool) (*Store, error) {
	db, err := os.OpenFile(filepath.Join(dir, "ingest.db"), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("ingest store: %w", err)
	}
	wal, err := os.OpenFile(filepath.Join(dir, "ingest.db-wal"), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("ingest store: %w", err)
	}
	s := &Store{growth: growth, db: db, wal: wal}
	if err = s.writePage(); err == nil {
		err = wal.Truncate(walSegment)
	}
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("ingest store: %w", err)
	}
	return s, nil
}

// append writes one frame of n events to the WAL, checkpointing first
// when it would not fit.
func (s *Store) append(frame []byte, n int64) {
	if s == nil || len(frame) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil || s.growth && s.at+int64(len(frame)) > maxStoreBytes {
		return
	}
	if !s.growth && s.at > 0 && s.at+int64(len(frame)) > walSegment {
		s.err = s.checkpoint()
	}
	if s.err == nil {
		_, s.err = s.wal.WriteAt(frame, s.at)
	}
	if s.err == nil {
		s.at += int64(len(frame))
		s.events += n
	}
}

// checkpoint writes the database page and rewinds the WAL, cut back to
// the segment when a long frame extended it.
func (s *Store) checkpoint() error {
	s.ckpts++
	if err := s.writePage(); err != nil {
		return err
	}
	if s.at > walSegment {
		if err := s.wal.Truncate(walSegment); err != nil {
			return err
		}
	}
	s.at = 0
	return nil
}

// writePage writes the database page: the events and checkpoints so far.
func (s *Store) writePage() error {
	page := make([]byte, dbPage)
	copy(page, "benchtui demo ingest store\x00")
	binary.BigEndian.PutUint64(page[32:], uint64(s.events))
	binary.BigEndian.PutUint64(page[40:], uint64(s.ckpts))
	_, err := s.db.WriteAt(page, 0)
	return err
}

// StoreStats are the store's figures: its files' size on disk as stat
// reports it, the WAL's part, and the checkpoints so far.
type StoreStats struct {
	Bytes, WALBytes, Checkpoints int64
}

// stats reads the files' sizes.
func (s *Store) stats() (StoreStats, error) {
	if s == nil {
		return StoreStats{}, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	db, err := s.db.Stat()
	if err != nil {
		return StoreStats{}, err
	}
	wal, err := s.wal.Stat()
	if err != nil {
		return StoreStats{}, err
	}
	return StoreStats{Bytes: db.Size() + wal.Size(), WALBytes: wal.Size(), Checkpoints: s.ckpts}, nil
}

// Close closes the store's files.
func (s *Store) Close() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return errors.Join(s.db.Close(), s.wal.Close())
}
