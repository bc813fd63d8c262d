package gateway

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// Bounds on what one upstream may put in the catalog. An upstream is
// not trusted to be small: one that lists 50,000 tools, or a tool whose
// schema is megabytes, or names no client accepts, would otherwise cost
// every client and the gateway's memory.
const (
	// DefaultMaxToolsPerUpstream is the default MaxToolsPerUpstream.
	DefaultMaxToolsPerUpstream = 5000
	// DefaultMaxToolSize is the default MaxToolSize: 64 KiB of JSON, far
	// more than any real tool's definition (LiveMCPBench's largest is
	// under 8 KiB).
	DefaultMaxToolSize = 64 << 10
	// MaxToolNameLength is the longest tool name SEP-986 allows.
	MaxToolNameLength = 64
	// MinSizeBound is the smallest MaxResultSize and MaxToolSize a config
	// may set: 1KB, room for a note saying what was cut. The docs say
	// "at least 1KB", so 1KB itself (1000 bytes) is accepted.
	MinSizeBound = 1000
)

// validateSizeBounds reports a MaxResultSize or MaxToolSize below
// MinSizeBound; zero (the default) and negative values (no limit) are
// fine.
func (c *Config) validateSizeBounds() error {
	for _, b := range []struct {
		option string
		value  int64
	}{{"max_result_size", c.MaxResultSize}, {"max_tool_size", c.MaxToolSize}} {
		if b.value > 0 && b.value < MinSizeBound {
			return fmt.Errorf("%s must be at least 1KB (%d bytes), or negative for no limit; got %d", b.option, MinSizeBound, b.value)
		}
	}
	return nil
}

// ToolLimit is MaxToolsPerUpstream with its default applied; 0 means none.
func (c *Config) ToolLimit() int {
	switch {
	case c.MaxToolsPerUpstream == 0:
		return DefaultMaxToolsPerUpstream
	case c.MaxToolsPerUpstream < 0:
		return 0
	}
	return c.MaxToolsPerUpstream
}

// ToolSizeLimit is MaxToolSize with its default applied; 0 means none.
func (c *Config) ToolSizeLimit() int64 {
	switch {
	case c.MaxToolSize == 0:
		return DefaultMaxToolSize
	case c.MaxToolSize < 0:
		return 0
	}
	return c.MaxToolSize
}

// ValidToolName reports whether name is a tool name as SEP-986 has them:
// 1 to 64 of the ASCII letters, digits, '_', '-' and '.'.
func ValidToolName(name string) bool {
	if name == "" || len(name) > MaxToolNameLength {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !toolNameByte(name[i]) {
			return false
		}
	}
	return true
}

func toolNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.'
}

// renameHashLen is how many hex digits of the original name's SHA-256 a
// renamed tool's name ends with.
const renameHashLen = 10

// SafeToolName is the name a tool named name by its upstream has in the
// catalog: name itself when it is a valid SEP-986 name (ValidToolName),
// else a rename. A rename keeps the name's allowed characters, with '_'
// for each run of others, cut to leave room for '_' and the first
// renameHashLen hex digits of the SHA-256 of the original name: stable
// (the same name always gets the same rename), predictable (the operator
// can work it out), readable where the name was, and distinct from the
// rename of any other name. "get weather" becomes
// "get_weather_4b1f0e1c8a"; a name of 10,000 characters, or one holding
// control characters, never reaches a client as it is.
func SafeToolName(name string) string {
	if ValidToolName(name) {
		return name
	}
	var b strings.Builder
	underscore := false
	for i := 0; i < len(name) && b.Len() < MaxToolNameLength-renameHashLen-1; i++ {
		c := name[i]
		if toolNameByte(c) && c != '_' {
			b.WriteByte(c)
			underscore = false
		} else if !underscore && b.Len() > 0 {
			b.WriteByte('_')
			underscore = true
		}
	}
	base := strings.TrimRight(b.String(), "_")
	if base == "" {
		base = "tool"
	}
	sum := sha256.Sum256([]byte(name))
	return base + "_" + hex.EncodeToString(sum[:])[:renameHashLen]
}

// quotedName is an upstream's name as a log line or a notice quotes it:
// cut short, with control and invisible characters escaped.
func quotedName(name string) string {
	return strconv.QuoteToASCII(cutShort(name, 80))
}
