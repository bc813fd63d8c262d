package search

import (
	"os"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// The package's tests run with the glossary that package cedict gives the
// builds importing it (which this package cannot import: cedict imports
// search), read from its file.
func init() {
	UseGlossary(func() []byte {
		data, err := os.ReadFile("cedict/cedict.zst")
		if err != nil {
			panic("the glossary of package cedict: " + err.Error())
		}
		zr, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
		if err != nil {
			panic(err)
		}
		defer zr.Close()
		text, err := zr.DecodeAll(data, nil)
		if err != nil {
			panic("the glossary of package cedict: " + err.Error())
		}
		return text
	})
}

// TestUnglossedChinese: without a glossary, Chinese text is reported
// unglossed, and text without Chinese is not; with one, nothing is.
func TestUnglossedChinese(t *testing.T) {
	defer func(source func() []byte) { glossarySource = source }(glossarySource)
	glossarySource = nil
	for text, want := range map[string]bool{"通过卡牌ID获取游戏王卡牌的图片": true, "Get a card's picture": false, "Café crème": false, "": false} {
		if got := UnglossedChinese(text); got != want {
			t.Errorf("without a glossary, UnglossedChinese(%q) = %v, want %v", text, got, want)
		}
	}
	glossarySource = func() []byte { return nil }
	if UnglossedChinese("获取卡牌") {
		t.Error("with a glossary, UnglossedChinese is true")
	}
}
