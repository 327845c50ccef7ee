package sse

import (
	"bytes"
	"strconv"
	"time"
)

// sentAt returns how long ago an event was sent, when its data is JSON with
// a numeric "ts" field in unix milliseconds, or else its id is a unix-ms
// time. ok is false when the event carries no plausible send time.
func sentAt(data, id []byte, now time.Time) (time.Duration, bool) {
	ms, ok := jsonNumber(data, `"ts"`)
	if !ok || !plausibleMS(ms) {
		ms, ok = wholeNumber(id)
		if !ok || !plausibleMS(ms) {
			return 0, false
		}
	}
	return max(now.Sub(time.UnixMicro(int64(ms*1000))), 0), true
}

// plausibleMS reports whether v reads as a unix-ms time (2001 to 5138).
func plausibleMS(v float64) bool { return v >= 1e12 && v < 1e14 }

// jsonNumber finds key (quoted) followed by a colon and a number in data,
// without decoding the whole document.
func jsonNumber(data []byte, key string) (float64, bool) {
	for off := 0; ; {
		i := bytes.Index(data[off:], []byte(key))
		if i < 0 {
			return 0, false
		}
		rest := bytes.TrimLeft(data[off+i+len(key):], " \t")
		off += i + len(key)
		if len(rest) == 0 || rest[0] != ':' {
			continue
		}
		v, n := number(bytes.TrimLeft(rest[1:], " \t"))
		return v, n > 0
	}
}

// wholeNumber parses b when it is nothing but a number.
func wholeNumber(b []byte) (float64, bool) {
	v, n := number(b)
	return v, n > 0 && n == len(b)
}

// number parses the unsigned decimal at the start of b (digits, an
// optional fraction or exponent) and returns it and its length.
func number(b []byte) (float64, int) {
	i, v := 0, 0.0
	for ; i < len(b) && isDigit(b[i]); i++ {
		v = v*10 + float64(b[i]-'0')
	}
	if i < len(b) && b[i] == '.' {
		scale := 0.1
		for i++; i < len(b) && isDigit(b[i]); i++ {
			v += float64(b[i]-'0') * scale
			scale /= 10
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		j := i + 1
		for ; j < len(b) && (isDigit(b[j]) || b[j] == '+' || b[j] == '-'); j++ {
		}
		f, err := strconv.ParseFloat(string(b[:j]), 64)
		if err != nil {
			return 0, 0
		}
		return f, j
	}
	return v, i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// SentAt is how long ago a message was sent, when its data is JSON with a
// numeric "ts" field in unix milliseconds, or else its id is a unix-ms
// time (id may be nil); ok is false when it carries no plausible send
// time. Other runners' messages (Redis pub/sub) are read the same way.
func SentAt(data, id []byte, now time.Time) (time.Duration, bool) { return sentAt(data, id, now) }
