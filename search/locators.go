package search

import (
	"regexp"
	"strings"
)

// splitLocators takes the file paths, URLs and element ids out of a
// query. It returns the query without them (rest), the words tool
// descriptions use for what they point at (kinds), the words that name
// the particular file, folder, site or element (payload), and the
// directories a path names a file or folder in (dirs):
//
//   - a path names a file of some format: "/root/word/exchange.docx" gives
//     kinds "file word document docx", payload "exchange" and dirs
//     "/root/word";
//   - or a directory: "~/projects/" gives "directory" and "~/projects";
//   - or, with no extension, either: "./notes/todo" gives "path", "todo"
//     and "./notes"; after "in", "inside", "under" or "within" it is where
//     things are ("what files are in /home/sam/api"), and the payload also
//     says "directory": among the payload, at its weight, since a
//     repository or a project is as often meant ("the commits in
//     ~/code/api");
//   - a URL is a web address on some site, written with a scheme, with
//     "www." or with neither ("linkedin.com/jobs/view/3845", see
//     splitURL): "https://www.youtube.com/watch?v=x" gives "url" and
//     "youtube watch v x";
//   - an element's id as a CSS selector ("#login-btn") is a "selector", as
//     browser tools call the parameter that takes one;
//   - a slug, a thing named by its owner and its name
//     ("alice/hot-dog-detector", see isSlug), is of no kind a tool would
//     name: owner and name are the payload (an owner is often the
//     service itself, "replicate/hello-world", so no mere directory);
//   - two files or more are also "multiple": a request that names them
//     acts on them together ("read main.py and config.json", "merge a.pdf,
//     b.pdf and c.pdf"), unless it names two as a source and a target
//     ("rename a.txt to b.txt", "convert a.docx into b.pdf").
//
// Dirs say still less of the job than the payload: "/home/sam/projects/
// blog/assets" is no request for a tool about projects.
//
// The payload says what to act on, not what to do: a file called
// config.py is no request for a tool that reads the configuration, and
// the example.com of "open https://example.com" is no request for a tool
// whose description shows an example URL. The web's schemes (http,
// https), "www" and the top-level domain are dropped: every web address
// has them; another scheme ("memory://") is a kind.
func splitLocators(text string) (rest, kinds, payload, dirs string) {
	if !strings.ContainsAny(text, "/\\.#") {
		return text, "", "", ""
	}
	var kept, kindWords, payloadWords, dirWords []string
	found := false
	files := 0 // locators that name a file
	// targeted: a file follows "to", "into" or "as" after another file
	// ("rename a.txt to b.txt", "convert a.docx into b.pdf").
	targeted := false
	prev := ""
	for _, tok := range strings.Fields(text) {
		if loc, ok := describeLocator(tok); ok {
			if strings.HasPrefix(loc.kinds, "file ") {
				files++
				if files > 1 && targetWords[strings.ToLower(prev)] {
					targeted = true
				}
			}
			if loc.kinds == "path" && containingWords[strings.ToLower(prev)] {
				loc.payload += " directory"
			}
			if strings.HasSuffix(tok, ":") {
				// The colon after a locator still opens what follows
				// ("proposal.docx: author, dates, paragraph count").
				kept = append(kept, ":")
			}
			found = true
			if loc.kinds != "" {
				kindWords = append(kindWords, loc.kinds)
			}
			payloadWords = append(payloadWords, loc.payload)
			if loc.dir != "" {
				dirWords = append(dirWords, loc.dir)
			}
		} else {
			kept = append(kept, tok)
		}
		prev = tok
	}
	if !found {
		return text, "", "", ""
	}
	if files >= minFilesForMultiple && !(files == 2 && targeted) {
		kindWords = append(kindWords, "multiple")
	}
	return strings.Join(kept, " "), strings.Join(kindWords, " "), strings.Join(payloadWords, " "), strings.Join(dirWords, " ")
}

// minFilesForMultiple is how many files a request names to be one about
// multiple files (see splitLocators).
const minFilesForMultiple = 2

// targetWords put a file as the target of an action on another.
var targetWords = wordSet("to into as onto")

// A locator is a URL or file path described: kinds are the words for
// what it points at, payload the words that name it (see splitLocators).
type locator struct {
	kinds, payload string
	dir            string // the directory a path names its file or folder in
}

// describeLocator describes one whitespace-separated token if it is a URL,
// a file path (or a file name with a known extension) or an element id.
func describeLocator(tok string) (locator, bool) {
	tok = strings.Trim(tok, "\"'`()[]{}<>,;!?")
	// A possessive is no part of the name: "example.com's sitemap".
	for _, apostrophe := range []string{"'s", "’s"} {
		if t, ok := strings.CutSuffix(tok, apostrophe); ok {
			tok = t
		}
	}
	tok = strings.TrimRight(tok, ".:")
	if id, ok := strings.CutPrefix(tok, "#"); ok {
		// An element's id, as a CSS selector: "#login-button".
		if id != "" && isASCIILetter(id[0]) && !strings.ContainsAny(id, "/\\#") {
			return locator{kinds: "selector", payload: id}, true
		}
		return locator{}, false
	}
	if strings.Trim(tok, "/\\.~") == "" {
		return locator{}, false
	}
	if scheme, host, rest, ok := splitURL(tok); ok {
		words := siteWords(host)
		if rest != "" {
			words = append(words, rest)
		}
		kinds := "url"
		if scheme != "" && scheme != "http" && scheme != "https" {
			// A scheme of its own ("memory://", "s3://") says what kind
			// of thing the URL names.
			kinds += " " + scheme
		}
		return locator{kinds: kinds, payload: strings.Join(words, " ")}, true
	}
	name, dir := tok, ""
	if i := strings.LastIndexAny(tok, "/\\"); i >= 0 {
		name, dir = tok[i+1:], tok[:i]
	}
	base, ext, hasExt := cutExtension(name)
	kind, known := fileFormats[strings.ToLower(ext)]
	isPath := strings.ContainsAny(tok, "/\\") && (strings.HasPrefix(tok, "/") || strings.HasPrefix(tok, "~") ||
		strings.HasPrefix(tok, ".") || strings.Count(tok, "/")+strings.Count(tok, "\\") >= 2 || known)
	switch {
	case isPath && known:
		return locator{"file " + kind + " " + ext, base, dir}, true
	case isPath && name == "":
		return locator{"directory", dir, ""}, true
	case isPath && hasExt:
		return locator{"file " + ext, base, dir}, true
	case isPath:
		// No extension: a directory ("~/code/webapp") as often as a file
		// ("/etc/hosts"). "path" is the word both kinds of tool use.
		return locator{"path", name, dir}, true
	case hasExt && known && base != "" && !isLibraryName(base, ext):
		return locator{kinds: "file " + kind + " " + ext, payload: base}, true
	case hasExt && !strings.ContainsAny(tok, "/\\") && isBareHost(tok):
		return locator{kinds: "url", payload: strings.Join(siteWords(strings.ToLower(tok)), " ")}, true
	case isSlug(tok):
		return locator{payload: dir + " " + name}, true
	}
	return locator{}, false
}

// isSlug reports whether tok names one thing by its owner and its name,
// as "alice/hot-dog-detector" names a model and "acme/web-app" a
// repository: two names joined by one slash, each with a letter, one of
// them spelled as a name rather than a word (with "-", "_" or a digit).
// Word pairs ("read/write", "TCP/IP") and numbers ("24/7") are no slugs.
func isSlug(tok string) bool {
	owner, name, ok := strings.Cut(tok, "/")
	if !ok || strings.Contains(name, "/") {
		return false
	}
	spelledAsName := false
	for _, part := range []string{owner, name} {
		if part == "" || !(isASCIILetter(part[0]) || part[0] >= '0' && part[0] <= '9') {
			return false
		}
		letter := false
		for i := 0; i < len(part); i++ {
			c := part[i]
			switch {
			case isASCIILetter(c):
				letter = true
			case c >= '0' && c <= '9', c == '-', c == '_':
				spelledAsName = true
			case c != '.':
				return false
			}
		}
		if !letter {
			return false
		}
	}
	return spelledAsName
}

// isLibraryName reports whether a bare file name is rather the name of a
// JavaScript library ("Node.js", "Vue.js", "D3.js"): capitalised, where
// file names rarely are.
func isLibraryName(base, ext string) bool {
	return strings.EqualFold(ext, "js") && base[0] >= 'A' && base[0] <= 'Z'
}

// isBareHost reports whether tok is a host name written without a scheme
// ("amazon.com", "bbc.co.uk"): a host name (see isHostName) that ends in
// a common top-level domain.
func isBareHost(tok string) bool {
	_, tld, ok := cutExtension(tok)
	return ok && topLevelDomains[strings.ToLower(tld)] && isHostName(tok)
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
	return len(labels) > 1 && !isDigits(labels[len(labels)-2])
}

// topLevelDomains are the common top-level domains a bare host name
// ("amazon.com", "bbc.co.uk") is recognised by.
var topLevelDomains = map[string]bool{
	"com": true, "org": true, "net": true, "io": true, "dev": true, "app": true, "edu": true, "gov": true,
	"co": true, "uk": true, "de": true, "fr": true, "jp": true, "cn": true, "in": true, "eu": true, "us": true,
}

// splitURL splits a token that is a URL with a scheme ("https://..."),
// one that starts with "www." or one that starts with a bare host name
// and a path ("linkedin.com/jobs/view/3845", see isBareHost) into its
// scheme (lower case, "" for none), host and the rest (path, query and
// fragment).
func splitURL(tok string) (scheme, host, rest string, ok bool) {
	after := tok
	if i := strings.Index(tok, "://"); i > 0 && isScheme(tok[:i]) {
		scheme, after = strings.ToLower(tok[:i]), tok[i+3:]
	} else if site, _, hasPath := strings.Cut(tok, "/"); !strings.HasPrefix(strings.ToLower(tok), "www.") && !(hasPath && isBareHost(site)) {
		return "", "", "", false
	}
	host = after
	if i := strings.IndexAny(after, "/?#"); i >= 0 {
		host, rest = after[:i], after[i:]
	}
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		host = host[i+1:]
	}
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		host = host[:i]
	}
	return scheme, strings.ToLower(host), rest, true
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

// Files handled whole. A request that renames, moves, copies, deletes,
// uploads or downloads a file ("Rename report_final.docx to
// report_2024.docx", "Remove tmp/upload-77.zip from the build-cache
// bucket") acts on it as a file, whatever its format: the words of its
// format (fileFormats) are no request for a tool that works on documents
// of that format (a Word tool, a zip tool). For such a request they weigh
// as the file's name does (payloadWeight), and only the words for what a
// path points at whatever its format (file, path, url) weigh as
// locatorWeight. So does a request that asks whether a file exists, how
// big it is or when it was modified ("Does /tmp/deck.pptx exist, and how
// big is it?"): it asks about the file, not its content.

// handlesWhole reports whether a request's verb handles files whole (see
// wholeFileVerbs), or it asks about a file as a file (see fileAsking).
func handlesWhole(text string) bool {
	if isOff("files-handled-whole") {
		return false
	}
	words := Words(text)
	i := firstRequestWord(words)
	return i < len(words) && wholeFileVerbs[requestVerb(words, i)] || fileAsking.MatchString(text)
}

// fileAsking matches what a request asks of a file as a file: whether it
// exists, how big it is, when it was modified.
var fileAsking = regexp.MustCompile(`(?i)\bexists?\b|\bhow (?:big|large)\b|\b(?:last )?modified\b`)

// wholeFileVerbs act on a file as a whole. Verbs that make or read its
// content (write, save, open, convert) are not among them: "save the
// table as sales.xlsx" asks for a spreadsheet tool.
var wholeFileVerbs = wordSet("rename move copy delete remove upload download")

// splitFormats splits the words for what a request's paths point at into
// those of file formats (an extension, or a word fileFormats names it by)
// and the others (file, path, url, a URL's scheme).
func splitFormats(kinds string) (others, formats string) {
	var o, f []string
	for _, k := range strings.Fields(kinds) {
		if _, ext := fileFormats[k]; ext || formatWords[k] {
			f = append(f, k)
		} else {
			o = append(o, k)
		}
	}
	return strings.Join(o, " "), strings.Join(f, " ")
}

// formatWords are the words fileFormats names formats by.
var formatWords = func() map[string]bool {
	out := make(map[string]bool)
	for _, words := range fileFormats {
		for _, w := range strings.Fields(words) {
			out[w] = true
		}
	}
	return out
}()

// containingWords come before the place things are in: "the files in
// ~/code", "what's inside /var/www".
var containingWords = wordSet("in inside under within")
