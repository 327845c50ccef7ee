package demo

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// VaultSecret is what every vault record holds: a read that returns
// anything else is torn.
const VaultSecret = "vault-secret:0123456789abcdef0123456789abcdef"

// vaultRecords is how many records the vault holds.
const vaultRecords = 64

// vault stands in for a secrets vault whose master key rotates while it
// is read (seed 000's G7b):
//
//	GET  /vault/key               {"version":V}: the master key in use
//	GET  /vault/read?id=N[&key=V] {"id":N,"version":V,"value":"…"}: record N mod 64 unsealed with
//	                              the key it is sealed with; with key=V, as a process holding only
//	                              key V would: 409 {"error":"unwrap failed …"} when the record is
//	                              sealed with another (a loud failure, never a wrong value)
//	POST /vault/rotate?ms=N       reseals every record under the next key, record by record over
//	                              N ms (default 113); 409 while another rotation runs
//
// A record is resealed under its lock, so a read sees it sealed whole
// with the old key or the new one. The fault torn writes the new key's
// version and the first half of the ciphertext, then the second half,
// each under the lock but apart: a read in between decrypts half of it
// with the wrong key and returns a wrong value with 200 (a silent torn
// read).
type vault struct {
	torn     bool
	stale    bool       // the fault stale-seal: a rotation reseals nothing
	rotating sync.Mutex // one rotation at a time

	mu      sync.Mutex // guards current
	current int
	records [vaultRecords]sealedRecord
}

// sealedRecord is one record: the key version, the IV and the ciphertext
// of VaultSecret under AES-256-CTR.
type sealedRecord struct {
	mu      sync.Mutex
	version int
	iv      [aes.BlockSize]byte
	ct      []byte
}

// registerVault adds the vault's routes to mux, its records sealed under
// key 1.
func registerVault(mux *http.ServeMux, f *Faults) {
	v := &vault{torn: f.Torn, stale: f.StaleSeal, current: 1}
	for i := range v.records {
		r := &v.records[i]
		r.version, r.iv, r.ct = seal(1)
	}
	mux.HandleFunc("GET /vault/key", func(w http.ResponseWriter, _ *http.Request) {
		v.mu.Lock()
		cur := v.current
		v.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]int{"version": cur})
	})
	mux.HandleFunc("GET /vault/read", v.read)
	mux.HandleFunc("POST /vault/rotate", v.rotate)
}

// masterKey is key version's AES-256 key.
func masterKey(version int) cipher.Block {
	k := sha256.Sum256([]byte("demo vault master key " + strconv.Itoa(version)))
	b, err := aes.NewCipher(k[:])
	if err != nil {
		panic(err) // a 32-byte key is always valid
	}
	return b
}

// seal encrypts VaultSecret under key version with a fresh IV.
func seal(version int) (int, [aes.BlockSize]byte, []byte) {
	var iv [aes.BlockSize]byte
	rand.Read(iv[:])
	ct := make([]byte, len(VaultSecret))
	cipher.NewCTR(masterKey(version), iv[:]).XORKeyStream(ct, []byte(VaultSecret))
	return version, iv, ct
}

// unseal decrypts ct under key version.
func unseal(version int, iv [aes.BlockSize]byte, ct []byte) string {
	pt := make([]byte, len(ct))
	cipher.NewCTR(masterKey(version), iv[:]).XORKeyStream(pt, ct)
	return string(pt)
}

func (v *vault) read(w http.ResponseWriter, r *http.Request) {
	id := queryInt(r, "id", 0) % vaultRecords
	rec := &v.records[id]
	rec.mu.Lock()
	version, iv, ct := rec.version, rec.iv, append([]byte(nil), rec.ct...)
	rec.mu.Unlock()
	if k := r.URL.Query().Get("key"); k != "" && k != strconv.Itoa(version) {
		writeJSON(w, http.StatusConflict, map[string]string{"error": fmt.Sprintf("unwrap failed: record %d is sealed with key %d, not %s", id, version, k)})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "version": version, "value": unseal(version, iv, ct)})
}

func (v *vault) rotate(w http.ResponseWriter, r *http.Request) {
	if !v.rotating.TryLock() {
		writeJSON(w, http.StatusConflict, map[string]string{"error": "a rotation is running"})
		return
	}
	defer v.rotating.Unlock()
	v.mu.Lock()
	next := v.current + 1
	v.mu.Unlock()
	pause := time.Duration(min(queryInt(r, "ms", 113), 60_000)) * time.Millisecond / vaultRecords
	for i := range v.records {
		if !sleepCtx(r, pause) {
			return
		}
		if !v.stale {
			v.reseal(&v.records[i], next, pause)
		}
	}
	v.mu.Lock()
	v.current = next
	v.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]int{"version": next})
}

// reseal seals rec under key next: at once, or with the fault torn in
// two halves pause apart.
func (v *vault) reseal(rec *sealedRecord, next int, pause time.Duration) {
	version, iv, ct := seal(next)
	rec.mu.Lock()
	if !v.torn {
		rec.version, rec.iv, rec.ct = version, iv, ct
		rec.mu.Unlock()
		return
	}
	half := len(ct) / 2
	rec.version, rec.iv = version, iv
	rec.ct = append(ct[:half:half], rec.ct[half:]...)
	rec.mu.Unlock()
	time.Sleep(max(pause, time.Millisecond))
	rec.mu.Lock()
	rec.ct = ct
	rec.mu.Unlock()
}
