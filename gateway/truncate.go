package gateway

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TruncatedMetaKey marks a tool result the gateway cut down to the
// configured max_result_size; its value is the result's original size in
// bytes of JSON.
const TruncatedMetaKey = gatewayMetaPrefix + "truncated"

// truncationNoteRoom is kept free under the limit for the note that says
// what was cut.
const truncationNoteRoom = 400

// truncateResult cuts res down to about limit bytes of JSON, if it is
// larger, and reports whether it did. Content blocks are kept in order
// while they fit; the text block that crosses the limit is cut short (on a
// character boundary); blocks after it are left out, and so is
// structuredContent (a machine-readable copy that cannot be cut
// meaningfully). A final text block tells the model what happened and how
// to get less, and _meta[TruncatedMetaKey] holds the original size.
// A limit of 0 means no limit.
func truncateResult(res *mcp.CallToolResult, toolName string, limit int64) bool {
	if limit <= 0 || res == nil {
		return false
	}
	size := jsonSize(res)
	if size <= limit {
		return false
	}
	budget := limit - truncationNoteRoom - jsonSize(res.Meta)
	kept := make([]mcp.Content, 0, len(res.Content)+1)
	omitted := 0
	for i, c := range res.Content {
		n := jsonSize(c)
		if n <= budget {
			kept = append(kept, c)
			budget -= n + 1
			continue
		}
		if tc, ok := c.(*mcp.TextContent); ok && budget > 64 {
			kept = append(kept, &mcp.TextContent{Text: cutText(tc.Text, int(budget-64)), Annotations: tc.Annotations})
		} else {
			omitted++
		}
		omitted += len(res.Content) - i - 1
		break
	}
	note := fmt.Sprintf("[caddy-mcp-gateway: the result of '%s' was %d bytes, over this gateway's limit of %d, and was cut short", toolName, size, limit)
	if omitted > 0 {
		note += fmt.Sprintf("; %d content block(s) left out", omitted)
	}
	if res.StructuredContent != nil {
		note += "; structuredContent left out"
	}
	note += ". Ask the tool for less (a narrower query, fewer items, a page) if you need the rest.]"
	res.Content = append(kept, &mcp.TextContent{Text: note})
	res.StructuredContent = nil
	if res.Meta == nil {
		res.Meta = mcp.Meta{}
	}
	res.Meta[TruncatedMetaKey] = size
	return true
}

// cutText returns s cut to at most n bytes (at least one rune short when it
// cuts, never inside a UTF-8 sequence). JSON escaping can make the cut
// text's encoding longer than n: truncateResult keeps slack for that.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	// Escaped characters (quotes, control characters) take more room in
	// JSON than in s: halve the cut for text that is mostly escapes.
	if enc := jsonSize(s[:n]); enc > int64(n)+int64(n)/8 {
		n = int(float64(n) * float64(n) / float64(enc))
	}
	return cutShort(s, n)
}

func jsonSize(v any) int64 {
	if v == nil {
		return 0
	}
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return int64(len(b))
}
