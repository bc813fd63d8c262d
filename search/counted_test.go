package search

import "testing"

func TestCountsItems(t *testing.T) {
	for text, want := range map[string]bool{
		"Show the last 10 commits in ~/code/api":         true,
		"Pull the first 20 comments on story 38912345":   true,
		"the top five trending stories":                  true,
		"show me the 5 most recent git commits":          true,
		"list the next 3 upcoming events":                true,
		"prices over the past 30 days":                   false,
		"Show Apple's EPS for the last 8 quarters":       false,
		"show commit a1b2c3 in ~/code/api":               false,
		"put 'Q3 Results' into placeholder 0 on slide 2": false,
		"the last commit":                                false,
		"top 10":                                         false,
	} {
		if got := countsItems(text); got != want {
			t.Errorf("countsItems(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestSearchPrefersToolsThatTakeACountWhenAskedForSome(t *testing.T) {
	// The git and Hacker News tools of LiveMCPBench's catalog.
	docs := []Document{
		{Name: "git_status", Description: "Shows the working tree status", ParamNames: "repo_path", Domain: "git"},
		{Name: "git_diff", Description: "Shows differences between branches or commits", ParamNames: "context_lines repo_path target", Domain: "git"},
		{Name: "git_diff_unstaged", Description: "Shows changes in the working directory that are not yet staged", ParamNames: "context_lines repo_path", Domain: "git"},
		{Name: "git_diff_staged", Description: "Shows changes that are staged for commit", ParamNames: "context_lines repo_path", Domain: "git"},
		{Name: "git_commit", Description: "Records changes to the repository", ParamNames: "message repo_path", Domain: "git"},
		{Name: "git_log", Description: "Shows the commit logs", ParamNames: "max_count repo_path", Domain: "git"},
		{Name: "git_show", Description: "Shows the contents of a commit", ParamNames: "repo_path revision", Domain: "git"},
		{Name: "git_add", Description: "Adds file contents to the staging area", ParamNames: "files repo_path", Domain: "git"},
		{Name: "git_reset", Description: "Unstages all staged changes", ParamNames: "repo_path", Domain: "git"},
		{Name: "git_create_branch", Description: "Creates a new branch from an optional base branch", ParamNames: "base_branch branch_name repo_path", Domain: "git"},
		{Name: "git_checkout", Description: "Switches branches", ParamNames: "branch_name repo_path", Domain: "git"},
		{Name: "git_init", Description: "Initialize a new Git repository", ParamNames: "repo_path", Domain: "git"},
		{Name: "git_branch", Description: "List Git branches", ParamNames: "branch_type contains not_contains repo_path", Domain: "git"},
		{Name: "getStory", Description: "Get a single story by ID", ParamNames: "id", Domain: "hackernews"},
		{Name: "getStoryWithComments", Description: "Get a story with its comments", ParamNames: "id", Domain: "hackernews"},
		{Name: "getStories", Description: "Get multiple stories by type (top, new, best, ask, show, job)", ParamNames: "limit type", Domain: "hackernews"},
		{Name: "getComments", Description: "Get comments for a story", ParamNames: "limit storyId", Domain: "hackernews"},
		{Name: "getCommentTree", Description: "Get a comment tree for a story", ParamNames: "storyId", Domain: "hackernews"},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "What are the last 10 commits in ~/code/api?", 5)
	wantFirst(t, ix, docs, "Show the first 20 comments on Hacker News story 38792446", 16)
	// Without a count, nothing changes.
	wantFirst(t, ix, docs, "Show the comments on Hacker News story 38792446", 14)
}
