package search

import (
	"strings"
)

// locatorWords describes the file paths and URLs of a query in the words
// tool descriptions use for them. A path names a file of some format
// ("/root/word/exchange.docx" gives "file word document exchange"), a
// directory ("~/projects/" gives "directory") or, with no extension,
// either ("./notes/todo" gives "path todo"); a URL is a web address on
// some site ("https://www.youtube.com/watch?v=x" gives "url youtube").
// The words of the path or URL itself stay in the query; these are added.
func locatorWords(text string) string {
	if !strings.ContainsAny(text, "/\\.") {
		return ""
	}
	var out []string
	for _, tok := range strings.Fields(text) {
		if desc, ok := describeLocator(tok); ok {
			out = append(out, desc)
		}
	}
	return strings.Join(out, " ")
}

// describeLocator describes one whitespace-separated token if it is a URL
// or a file path (or a file name with a known extension).
func describeLocator(tok string) (string, bool) {
	tok = strings.Trim(tok, "\"'`()[]{}<>,;!?")
	tok = strings.TrimRight(tok, ".:")
	if strings.Trim(tok, "/\\.~") == "" {
		return "", false
	}
	if host, ok := urlHost(tok); ok {
		return "url " + strings.Join(siteWords(host), " "), true
	}
	name := tok
	if i := strings.LastIndexAny(tok, "/\\"); i >= 0 {
		name = tok[i+1:]
	}
	base, ext, hasExt := cutExtension(name)
	kind, known := fileFormats[strings.ToLower(ext)]
	isPath := strings.ContainsAny(tok, "/\\") && (strings.HasPrefix(tok, "/") || strings.HasPrefix(tok, "~") ||
		strings.HasPrefix(tok, ".") || strings.Count(tok, "/")+strings.Count(tok, "\\") >= 2 || known)
	switch {
	case isPath && known:
		return "file " + kind + " " + base, true
	case isPath && name == "":
		return "directory", true
	case isPath && hasExt:
		return "file " + name, true
	case isPath:
		// No extension: a directory ("~/code/webapp") as often as a file
		// ("/etc/hosts"). "path" is the word both kinds of tool use.
		return "path " + name, true
	case hasExt && known && base != "" && !isLibraryName(base, ext):
		return "file " + kind + " " + base, true
	case hasExt && !strings.ContainsAny(tok, "/\\") && topLevelDomains[strings.ToLower(ext)] && isHostName(tok):
		return "url " + strings.Join(siteWords(strings.ToLower(tok)), " "), true
	}
	return "", false
}

// isLibraryName reports whether a bare file name is rather the name of a
// JavaScript library ("Node.js", "Vue.js", "D3.js"): capitalised, where
// file names rarely are.
func isLibraryName(base, ext string) bool {
	return strings.EqualFold(ext, "js") && base[0] >= 'A' && base[0] <= 'Z'
}

// isHostName reports whether tok looks like a host name: dot-separated
// labels of letters, digits and hyphens, the one before the top-level
// domain not all digits.
func isHostName(tok string) bool {
	labels := strings.Split(tok, ".")
	for _, l := range labels {
		if l == "" || strings.Trim(l, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") != "" {
			return false
		}
	}
	return len(labels) > 1 && strings.Trim(labels[len(labels)-2], "0123456789") != ""
}

// topLevelDomains are the common top-level domains a bare host name
// ("amazon.com", "bbc.co.uk") is recognised by.
var topLevelDomains = map[string]bool{
	"com": true, "org": true, "net": true, "io": true, "dev": true, "app": true, "edu": true, "gov": true,
	"co": true, "uk": true, "de": true, "fr": true, "jp": true, "cn": true, "in": true, "eu": true, "us": true,
}

// urlHost returns the host of a token that is a URL with a scheme
// ("https://...") or one that starts with "www.".
func urlHost(tok string) (string, bool) {
	rest := tok
	if i := strings.Index(tok, "://"); i > 0 && isScheme(tok[:i]) {
		rest = tok[i+3:]
	} else if !strings.HasPrefix(strings.ToLower(tok), "www.") {
		return "", false
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		rest = rest[i+1:]
	}
	if i := strings.LastIndexByte(rest, ':'); i >= 0 {
		rest = rest[:i]
	}
	return strings.ToLower(rest), true
}

func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if !('a' <= c && c <= 'z') && !(i > 0 && (('0' <= s[i] && s[i] <= '9') || s[i] == '+' || s[i] == '-' || s[i] == '.')) {
			return false
		}
	}
	return s != ""
}

// siteWords are the labels of a host that name the site: "www.youtube.com"
// gives "youtube", "arxiv.org" gives "arxiv", "api.github.com" gives "api
// github". The last label (the top-level domain), a country's second-level
// label ("co" in "bbc.co.uk") and "www" are left out.
func siteWords(host string) []string {
	labels := strings.Split(host, ".")
	if len(labels) > 1 {
		labels = labels[:len(labels)-1]
	}
	var out []string
	for i, l := range labels {
		if l == "" || l == "www" || (i == len(labels)-1 && i > 0 && len(l) <= 3 && genericSecondLevel[l]) {
			continue
		}
		out = append(out, l)
	}
	return out
}

var genericSecondLevel = map[string]bool{"co": true, "com": true, "org": true, "net": true, "ac": true, "gov": true, "edu": true}

// cutExtension splits a file name at its last dot: "a.tar" gives "a",
// "tar". A name without a dot, or one that starts with its only dot, has
// no extension.
func cutExtension(name string) (base, ext string, ok bool) {
	i := strings.LastIndexByte(name, '.')
	if i <= 0 || i == len(name)-1 {
		return name, "", false
	}
	return name[:i], name[i+1:], true
}

// fileFormats names common file formats by their extensions in the words
// tool descriptions use for them.
var fileFormats = map[string]string{
	"txt": "text", "log": "text log", "md": "markdown", "markdown": "markdown", "rst": "text",
	"pdf": "pdf document",
	"doc": "word document", "docx": "word document", "odt": "document", "rtf": "document",
	"xls": "excel spreadsheet", "xlsx": "excel spreadsheet", "ods": "spreadsheet", "csv": "csv spreadsheet", "tsv": "spreadsheet",
	"ppt": "powerpoint presentation", "pptx": "powerpoint presentation", "odp": "presentation",
	"png": "image png", "jpg": "image jpeg", "jpeg": "image jpeg", "gif": "image gif", "webp": "image", "bmp": "image",
	"svg": "image svg", "tiff": "image", "ico": "image icon", "heic": "image",
	"mp3": "audio", "wav": "audio", "flac": "audio", "ogg": "audio", "m4a": "audio",
	"mp4": "video", "mov": "video", "avi": "video", "mkv": "video", "webm": "video",
	"json": "json", "yaml": "yaml", "yml": "yaml", "toml": "toml", "xml": "xml", "ini": "config",
	"html": "html", "htm": "html", "css": "css",
	"py": "python code", "js": "javascript code", "ts": "typescript code", "tsx": "typescript react code",
	"jsx": "javascript react code", "go": "go code", "java": "java code", "rs": "rust code", "rb": "ruby code",
	"c": "c code", "cpp": "c++ code", "h": "c header", "cs": "c# code", "php": "php code", "sh": "shell script",
	"sql": "sql", "db": "database", "sqlite": "sqlite database", "ipynb": "jupyter notebook",
	"zip": "zip archive", "tar": "tar archive", "gz": "archive", "tgz": "archive", "7z": "archive", "rar": "archive",
	"epub": "ebook", "ics": "calendar", "eml": "email", "vcf": "contact",
}
