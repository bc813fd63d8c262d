package main

import "testing"

func TestGlossKeepsWhatSearchNeeds(t *testing.T) {
	for _, c := range []struct {
		e    entry
		want string
	}{
		{entry{Simplified: "获取", English: []string{"to gain; to get; to acquire"}}, "to gain to get"},
		{entry{Simplified: "北京", English: []string{"Beijing, capital of the People's Republic of China", "Peking"}}, "Beijing Peking"},
		{entry{Simplified: "的", English: []string{"of; ~'s (possessive particle)", "a taxi"}}, "of"}, // a stop word: no harm
		{entry{Simplified: "角色", English: []string{"role; character in a novel; persona", "also pr. [jue2 se4]"}}, "role character in a novel"},
		{entry{Simplified: "图片", English: []string{"image; picture; photograph; CL:張|张[zhang1]"}}, "image picture"},
		{entry{Simplified: "张", English: []string{"surname Zhang"}}, ""},
		{entry{Simplified: "卡牌", English: []string{"(playing) card (in a card game)"}}, "card"},
		{entry{Simplified: "欧元区", English: []string{"variant of 歐元區|欧元区[Ou1 yuan2 qu1]", "eurozone"}}, "eurozone"},
	} {
		if got := gloss(c.e); got != c.want {
			t.Errorf("gloss(%s %q) = %q, want %q", c.e.Simplified, c.e.English, got, c.want)
		}
	}
	for s, want := range map[string]bool{"图片": true, "3C": false, "": false, "一二三四五六": true, "一二三四五六七": false} {
		if got := isHanWord(s); got != want {
			t.Errorf("isHanWord(%q) = %v", s, got)
		}
	}
}
