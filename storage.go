package reconcile

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// StorageError is a value that a backend PowerDNS supports cannot store as
// given: a character its column's character set lacks, or more characters
// than its column holds. Such a value is refused before any request, within
// the *ConfigError of New or the *InputError of the call, because the
// backend would answer it with a 500 whose reason is only in PowerDNS's log
// (and a 500 is retried). The limits are those of the strictest backend,
// gmysql, wherever the library's values go: see "What each backend stores"
// in docs/powerdns-behaviour.md.
type StorageError struct {
	// Field names the option (WithManagedBy, WithOwner) or the field
	// (ZoneSpec.Account, RRset.Records) that holds the value.
	Field string
	// Value is the value refused, whole.
	Value string
	// Reason says what no backend can store in it.
	Reason string
}

func (e *StorageError) Error() string {
	return e.Field + " " + quoteShort(e.Value) + ": " + e.Reason
}

// What the backends store, from PowerDNS's schemas (gmysql, gpgsql,
// gsqlite3; the same in 4.7, 4.9 and 5.1): the smallest column of each kind
// of value the library writes.
const (
	// kindColumn is domainmetadata.kind, VARCHAR(32) in every SQL schema.
	kindColumn = 32
	// accountColumn is domains.account and comments.account,
	// VARCHAR(40) characters in every SQL schema.
	accountColumn = 40
	// mastersColumn is domains.master, VARCHAR(128) in every SQL schema:
	// it holds a zone's primaries joined by ", ".
	mastersColumn = 128
	// contentColumn is records.content, VARCHAR(64000) on gmysql
	// (VARCHAR(65535) on gpgsql and gsqlite3).
	contentColumn = 64000
)

// latin1 reports whether every character of s is in Latin-1 (U+0000 to
// U+00FF): gmysql's zone metadata values, and most of its columns, are
// latin1, and a value outside it is a 500.
func latin1(s string) bool {
	for _, r := range s {
		if r > 0xff {
			return false
		}
	}
	return true
}

// basicPlane reports whether every character of s is in Unicode's Basic
// Multilingual Plane (up to U+FFFF): gmysql's comments and zone account
// are "utf8", MySQL's three-byte UTF-8, which holds no character beyond it
// (no emoji).
func basicPlane(s string) bool {
	for _, r := range s {
		if r > 0xffff {
			return false
		}
	}
	return true
}

// checkLatin1 refuses a value of field outside Latin-1.
func checkLatin1(field, value string) error {
	if latin1(value) {
		return nil
	}
	return &StorageError{Field: field, Value: value, Reason: notLatin1}
}

// notLatin1 is the reason of a value outside Latin-1.
const notLatin1 = "holds a character outside Latin-1 (U+0000 to U+00FF), which gmysql's zone metadata cannot store"

// checkAccount refuses a zone account that the domains.account column of
// some backend cannot store.
func checkAccount(field, value string) error {
	switch {
	case utf8.RuneCountInString(value) > accountColumn:
		return &StorageError{Field: field, Value: value, Reason: "longer than the " + strconv.Itoa(accountColumn) + " characters every SQL backend stores for an account"}
	case !basicPlane(value):
		return &StorageError{Field: field, Value: value, Reason: "holds a character beyond U+FFFF (an emoji), which gmysql cannot store in an account"}
	case strings.IndexByte(value, 0) >= 0:
		return &StorageError{Field: field, Value: value, Reason: "holds a NUL, which gpgsql cannot store"}
	}
	return nil
}

// checkMasters refuses primaries that do not fit the domains.master column
// once joined as PowerDNS joins them. The primaries are counted as given:
// PowerDNS may spell one shorter (without port 53), never longer.
func checkMasters(field string, masters []string) error {
	joined := strings.Join(masters, ", ")
	switch {
	case len(joined) > mastersColumn:
		return &StorageError{Field: field, Value: joined, Reason: "longer than the " + strconv.Itoa(mastersColumn) + " characters every SQL backend stores for a zone's primaries, joined by \", \""}
	case !latin1(joined):
		return &StorageError{Field: field, Value: joined, Reason: "holds a character outside Latin-1, which gmysql cannot store for a zone's primaries"}
	}
	return nil
}

// checkContent refuses a record content that gmysql's latin1 column
// cannot hold: longer than it, or with a character outside Latin-1. The
// content is what PowerDNS stores, in the canonical form rrset.New gives,
// which spells text outside ASCII as \DDD escapes for most types; a few
// (LUA) keep it as written.
func checkContent(field, content string) error {
	switch {
	case len(content) > contentColumn:
		return &StorageError{Field: field, Value: content, Reason: strconv.Itoa(len(content)) + " bytes, longer than the " + strconv.Itoa(contentColumn) + " gmysql stores for a record's content"}
	case !latin1(content):
		return &StorageError{Field: field, Value: content, Reason: "holds a character outside Latin-1, which gmysql cannot store in a record's content"}
	}
	return nil
}

// quoteShort quotes s for an error message, cut to its first 64
// characters: a refused record content may be 64,000 bytes long.
func quoteShort(s string) string {
	const most = 64
	if utf8.RuneCountInString(s) <= most {
		return strconv.Quote(s)
	}
	n := 0
	for i := range s {
		if n == most {
			return strconv.Quote(s[:i]) + "…"
		}
		n++
	}
	return strconv.Quote(s)
}
