package gateway

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// What an upstream's text looks like to the description check: the text
// with what a reader cannot see taken out, and with letters that only
// look like Latin ones read as those. An attacker who writes
// "Ig\u00adnore" (a soft hyphen), "іgnore" (a Cyrillic і), "ｉｇｎｏｒｅ"
// (fullwidth) or hides words in Unicode tag characters gets the text the
// model reads checked, not the bytes.

// invisible reports characters that render as nothing (or only steer how
// text around them renders): format characters (soft hyphen, zero-width
// spaces and joiners, bidirectional controls, the tag characters of the
// U+E0000 block, ...), variation selectors, the combining grapheme
// joiner and the blank fillers of Hangul and Braille.
func invisible(r rune) bool {
	switch {
	case r < 0x80:
		return false
	case unicode.Is(unicode.Cf, r), // format: U+00AD, U+200B-U+200F, U+202A-U+202E, U+2060-U+206F, U+FEFF, U+E0000 block, ...
		unicode.Is(unicode.Variation_Selector, r), // U+FE00-U+FE0F, U+E0100-U+E01EF, Mongolian ones
		r == 0x034F,                                        // combining grapheme joiner
		r == 0x115F, r == 0x1160, r == 0x3164, r == 0xFFA0, // Hangul fillers
		r == 0x2800, // Braille blank
		r == 0x180E: // Mongolian vowel separator
		return true
	}
	return false
}

// tagCharacter reports a Unicode tag character; U+E0020 to U+E007E
// mirror printable ASCII and can spell out text no one sees.
func tagCharacter(r rune) bool { return r >= 0xE0000 && r <= 0xE007F }

// smuggling reports invisible characters that only hide or reorder text:
// tag characters (outside an emoji flag's tag sequence), bidirectional
// embeddings, overrides and isolates, zero-width spaces, word joiners and
// invisible operators, a byte order mark past the start, blank fillers,
// and zero-width joiners between Latin letters. Soft hyphens
// (hyphenation), joiners and variation selectors next to emoji or inside
// scripts that need them, and direction marks in mixed-direction text
// have honest uses and are not smuggling by themselves (the check reads
// the text without them either way).
func smuggling(text string) bool {
	var prev rune
	inFlag := false
	for i, r := range text {
		switch {
		case r < 0x80:
		case tagCharacter(r):
			if !inFlag {
				return true
			}
			if r == 0xE007F { // cancel tag: the flag sequence ends
				inFlag = false
			}
		case r == 0x1F3F4: // waving black flag: may start a tag sequence
			inFlag = true
		case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, // bidi embeddings, overrides, isolates
			r == 0x200B, r >= 0x2060 && r <= 0x2064, // zero-width space, word joiner, invisible operators
			r == 0xFEFF && i > 0,
			r == 0x115F, r == 0x1160, r == 0x3164, r == 0xFFA0, r == 0x2800, r == 0x180E:
			return true
		case r == 0x200C, r == 0x200D:
			next, _ := utf8.DecodeRuneInString(text[i+utf8.RuneLen(r):])
			if latinLetter(prev) && latinLetter(next) {
				return true
			}
		}
		if !tagCharacter(r) && r != 0x1F3F4 {
			inFlag = false
		}
		if !invisible(r) {
			prev = r
		}
	}
	return false
}

func latinLetter(r rune) bool {
	return r < 0x250 && unicode.IsLetter(r) || confusables[r] != 0
}

// hiddenText is the ASCII text spelled by tag characters in text, if any.
func hiddenText(text string) string {
	var b strings.Builder
	for _, r := range text {
		if r >= 0xE0020 && r <= 0xE007E {
			b.WriteRune(r - 0xE0000)
		} else if b.Len() > 0 && !tagCharacter(r) {
			b.WriteByte(' ')
		}
	}
	return strings.TrimSpace(b.String())
}

// withoutInvisible is text with every invisible character removed.
func withoutInvisible(text string) string {
	if !hasInvisible(text) {
		return text
	}
	return strings.Map(func(r rune) rune {
		if invisible(r) {
			return -1
		}
		return r
	}, text)
}

func hasInvisible(text string) bool {
	for _, r := range text {
		if invisible(r) {
			return true
		}
	}
	return false
}

// fold is text as the check reads it: invisible characters removed (or,
// with spaced, read as spaces: a zero-width space may stand between
// words or inside one), compatibility forms folded (NFKC: fullwidth and
// mathematical letters, ligatures), accents dropped, letters that look
// Latin (Cyrillic, Greek, ...) read as Latin, punctuation lookalikes as
// ASCII, and all in lower case.
func fold(text string, spaced bool) string {
	if isPlainASCII(text) {
		return strings.ToLower(text)
	}
	text = strings.Map(func(r rune) rune {
		if invisible(r) {
			if spaced {
				return ' '
			}
			return -1
		}
		return r
	}, text)
	text = norm.NFKD.String(text)
	var b strings.Builder
	b.Grow(len(text))
	for _, r := range text {
		if unicode.Is(unicode.Mn, r) {
			continue // accents: ïgnore reads as ignore
		}
		if c := confusables[r]; c != 0 {
			r = c
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

func isPlainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// confusables map letters of other scripts, and punctuation, that look
// like ASCII to that ASCII character: the lookalikes of Unicode's
// confusables.txt (TR39) for Latin letters among the Cyrillic, Greek,
// Armenian and Cherokee alphabets and a few symbol blocks, after NFKD
// (which already folds fullwidth and mathematical forms). Only the check
// reads through it; the text the model gets is never rewritten with it.
var confusables = map[rune]rune{
	// Cyrillic
	'а': 'a', 'А': 'a', 'в': 'b', 'В': 'b', 'Ь': 'b', 'ь': 'b', 'с': 'c', 'С': 'c', 'ԁ': 'd', 'е': 'e', 'Е': 'e', 'ё': 'e',
	'ғ': 'f', 'һ': 'h', 'Н': 'h', 'н': 'h', 'і': 'i', 'І': 'i', 'ї': 'i', 'Ӏ': 'l', 'ӏ': 'l', 'ј': 'j', 'Ј': 'j',
	'к': 'k', 'К': 'k', 'м': 'm', 'М': 'm', 'п': 'n', 'о': 'o', 'О': 'o', 'р': 'p', 'Р': 'p', 'ԛ': 'q', 'г': 'r',
	'ѕ': 's', 'Ѕ': 's', 'т': 't', 'Т': 't', 'ц': 'u', 'ս': 'u', 'ѵ': 'v', 'Ѵ': 'v', 'ԝ': 'w', 'Ԝ': 'w', 'х': 'x',
	'Х': 'x', 'у': 'y', 'У': 'y', 'ү': 'y', 'Ү': 'y', 'Ζ': 'z', 'ʐ': 'z', 'ԍ': 'g', 'Ԍ': 'g', 'ɡ': 'g', 'ӕ': 'a',
	// Greek
	'α': 'a', 'Α': 'a', 'β': 'b', 'Β': 'b', 'ϲ': 'c', 'Ϲ': 'c', 'ε': 'e', 'Ε': 'e', 'Η': 'h', 'ι': 'i', 'Ι': 'i',
	'κ': 'k', 'Κ': 'k', 'Μ': 'm', 'ν': 'v', 'Ν': 'n', 'η': 'n', 'ο': 'o', 'Ο': 'o', 'σ': 'o', 'ρ': 'p', 'Ρ': 'p',
	'τ': 't', 'Τ': 't', 'υ': 'u', 'χ': 'x', 'Χ': 'x', 'γ': 'y', 'Υ': 'y', 'ζ': 'z', 'ϳ': 'j', 'ω': 'w',
	// Armenian, Cherokee, Latin extensions and small capitals
	'օ': 'o', 'Օ': 'o', 'ո': 'n', 'ց': 'g', 'հ': 'h', 'Ꭺ': 'a', 'Ᏼ': 'b', 'Ꮯ': 'c', 'Ꭼ': 'e', 'Ꮋ': 'h', 'Ꭻ': 'j',
	'Ꮶ': 'k', 'Ꮮ': 'l', 'Ꮇ': 'm', 'Ꮲ': 'p', 'Ꮪ': 's', 'Ꭲ': 't', 'Ꮩ': 'v', 'Ꮃ': 'w', 'Ꮓ': 'z',
	'ı': 'i', 'ȷ': 'j', 'ɩ': 'i', 'ɪ': 'i', 'ʟ': 'l', 'ɴ': 'n', 'ᴏ': 'o', 'ʀ': 'r', 'ꜱ': 's', 'ᴛ': 't', 'ᴜ': 'u',
	'ᴠ': 'v', 'ᴡ': 'w', 'ᴢ': 'z', 'ᴀ': 'a', 'ʙ': 'b', 'ᴄ': 'c', 'ᴅ': 'd', 'ᴇ': 'e', 'ɢ': 'g', 'ʜ': 'h', 'ᴊ': 'j',
	'ᴋ': 'k', 'ᴍ': 'm', 'ᴘ': 'p', 'ʏ': 'y',
	// Punctuation
	'‹': '<', '›': '>', '〈': '<', '〉': '>', '⟨': '<', '⟩': '>', '˂': '<', '˃': '>', '❮': '<', '❯': '>',
	'∕': '/', '⁄': '/', '⧸': '/', '∼': '~', '˜': '~', '⁓': '~', '‐': '-', '‑': '-', '‒': '-', '–': '-', '—': '-',
	'‘': '\'', '’': '\'', 'ʼ': '\'', '“': '"', '”': '"', '·': '.', '٠': '.', '۔': '.',
}
