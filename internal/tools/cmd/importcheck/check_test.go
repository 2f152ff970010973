package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mod decodes a go.mod as `go mod edit -json` prints it.
func mod(t *testing.T, js string) modFile {
	t.Helper()
	var m modFile
	require.NoError(t, json.Unmarshal([]byte(js), &m))
	return m
}

func TestMoved(t *testing.T) {
	const importer = `{"Go": "1.24.7", "Require": [
		{"Path": "golang.org/x/net", "Version": "v0.45.0", "Indirect": true},
		{"Path": "google.golang.org/grpc", "Version": "v1.74.2", "Indirect": true}]}`
	cases := []struct {
		name  string
		after string
		want  []move
	}{
		{
			name: "only added lines",
			after: `{"Go": "1.24.7", "Require": [
				{"Path": "github.com/pdnskit/reconcile", "Version": "v0.0.0", "Indirect": true},
				{"Path": "golang.org/x/net", "Version": "v0.45.0", "Indirect": true},
				{"Path": "google.golang.org/grpc", "Version": "v1.74.2", "Indirect": true}]}`,
		},
		{
			name: "indirect mark dropped",
			after: `{"Go": "1.24.7", "Require": [
				{"Path": "golang.org/x/net", "Version": "v0.45.0"},
				{"Path": "google.golang.org/grpc", "Version": "v1.74.2", "Indirect": true}]}`,
		},
		{
			name: "go line and versions upgraded",
			after: `{"Go": "1.25.0", "Toolchain": {"Name": "go1.26.8"}, "Require": [
				{"Path": "golang.org/x/net", "Version": "v0.52.0", "Indirect": true},
				{"Path": "google.golang.org/grpc", "Version": "v1.79.2", "Indirect": true}]}`,
			want: []move{
				{Before: "go 1.24.7", After: "go 1.25.0"},
				{Before: "(none)", After: "toolchain go1.26.8"},
				{Before: "golang.org/x/net v0.45.0", After: "golang.org/x/net v0.52.0"},
				{Before: "google.golang.org/grpc v1.74.2", After: "google.golang.org/grpc v1.79.2"},
			},
		},
		{
			name: "requirement dropped",
			after: `{"Go": "1.24.7", "Require": [
				{"Path": "golang.org/x/net", "Version": "v0.45.0", "Indirect": true}]}`,
			want: []move{{Before: "google.golang.org/grpc v1.74.2", After: "(none)"}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, moved(mod(t, importer), mod(t, tc.after)))
		})
	}
}
