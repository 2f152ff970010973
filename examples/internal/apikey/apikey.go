// Package apikey reads a PowerDNS API key as the examples take it: from the
// file an -api-key-file flag names, or else from $PDNS_API_KEY. There is no
// flag for the key itself, and the key never appears in a message.
package apikey

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// Env is the environment variable read without a key file.
const Env = "PDNS_API_KEY"

// ErrMissing is Read finding no key in the environment.
var ErrMissing = errors.New("no API key: pass -api-key-file or set $" + Env)

// Read returns the key, from file when it is not empty, else from Env, and
// where it came from, for messages ("-api-key-file F" or "$PDNS_API_KEY").
// Surrounding blanks are dropped; an empty key is an error.
func Read(file string) (key, source string, err error) {
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", "", fmt.Errorf("-api-key-file: %w", err)
		}
		key = strings.TrimSpace(string(b))
		if key == "" {
			return "", "", fmt.Errorf("-api-key-file %s is empty", file)
		}
		return key, "-api-key-file " + file, nil
	}
	key = strings.TrimSpace(os.Getenv(Env))
	if key == "" {
		return "", "", ErrMissing
	}
	return key, "$" + Env, nil
}
