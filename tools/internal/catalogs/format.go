package catalogs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// The files of a catalog directory.
const (
	// ToolsFile holds the servers and their tools, in LiveMCPBench's
	// format: a list of Entry.
	ToolsFile = "tools.json"
	// SourcesFile records where each server's definitions were taken from
	// (a Sources), for catalogs built by the extract command.
	SourcesFile = "sources.json"
	// SealedFile, present in a catalog directory, marks a catalog that is
	// measured only on request (the benchmark's -sealed), never tuned on.
	SealedFile = "SEALED"
)

// Entry is one server of a tools.json file. Tools holds a single key, the
// server key, which the gateway uses (made a valid domain name) as the
// server's domain.
type Entry struct {
	Name        string              `json:"name"`
	Description string              `json:"description"`
	Web         string              `json:"web,omitempty"`
	Category    string              `json:"category"`
	Tools       map[string]ToolList `json:"tools"`
}

// ToolList is the tools of one server key.
type ToolList struct {
	Tools []Tool `json:"tools"`
}

// Tool is a tool definition as its server publishes it.
type Tool struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description"`
	InputSchema any    `json:"inputSchema"`
	Annotations any    `json:"annotations,omitempty"`
}

// ReadEntries reads a tools.json file.
func ReadEntries(path string) ([]Entry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var es []Entry
	if err := json.Unmarshal(b, &es); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return es, nil
}

// WriteEntries writes entries to path as a tools.json: indented by two
// spaces, with "<", ">" and "&" as written, so that extracting a catalog
// again reproduces its file byte for byte.
func WriteEntries(path string, entries []Entry) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(entries); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// How a server's definitions are extracted (Source.Method).
const (
	// MethodGit reads tool JSON files committed in the server's repository.
	MethodGit = "git"
	// MethodToolsList asks the published server itself (tools/list over
	// stdio).
	MethodToolsList = "tools/list"
)

// Sources is a catalog's sources.json.
type Sources struct {
	Catalog     string   `json:"catalog"`
	Description string   `json:"description"`
	Servers     []Source `json:"servers"`
}

// Source records where one server's tool definitions come from, and under
// which licence.
type Source struct {
	// Key is the server key in tools.json, a valid gateway domain name.
	Key         string `json:"key"`
	Name        string `json:"name"`
	Description string `json:"description"`
	// DescriptionFrom says where Description was copied from.
	DescriptionFrom string `json:"description_from"`
	Category        string `json:"category"`
	// Repository is the GitHub owner/name, or "" for a published package
	// whose publisher names no repository (Note says so); Commit the commit
	// the definitions were taken at; for a published package, the commit
	// that set its version, or "" where no repository history has one (the
	// package and its Integrity identify it then).
	Repository string `json:"repository"`
	Commit     string `json:"commit"`
	// Licence is the SPDX identifier of the repository's licence.
	Licence string `json:"licence"`
	Method  string `json:"method"`
	// Paths (MethodGit) are the files, or path.Match patterns, read at
	// Commit.
	Paths []string `json:"paths,omitempty"`
	// Package (MethodToolsList) is the published package that was run,
	// with its version, and Integrity the registry's hash of it; Args and
	// Env are what it was started with. A server run from its repository
	// has no Package.
	Package   string            `json:"package,omitempty"`
	Integrity string            `json:"integrity,omitempty"`
	Args      []string          `json:"args,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	// Include, if set, keeps only these tools, in this order.
	Include []string `json:"include,omitempty"`
	// Note says anything else a reader needs: which toolsets, what was left
	// out and why.
	Note string `json:"note,omitempty"`
}

// ReadSources reads a sources.json file.
func ReadSources(path string) (*Sources, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Sources
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &s, nil
}
