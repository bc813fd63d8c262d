package search

import (
	"slices"
	"testing"
)

// TestBrandOnlyTerms checks which terms a catalog holds only as brand
// words whole: requestId's "requestid", not YouTube's "youtube" when
// another tool says youtube as a word of its own.
func TestBrandOnlyTerms(t *testing.T) {
	docs := []Document{
		{Name: "mark_task_done", Description: "Mark a task as done. Provide 'requestId' and 'taskId'."},
		{Name: "play_video", Description: "Play a YouTube video."},
		{Name: "youtube_search", Description: "Search youtube for videos."},
	}
	ix := NewIndex(docs)
	var got []string
	for id, only := range ix.brandOnly {
		if only {
			got = append(got, ix.terms[id])
		}
	}
	slices.Sort(got)
	if want := []string{"requestid", "taskid"}; !slices.Equal(got, want) {
		t.Errorf("brand-only terms %q, want %q", got, want)
	}
}

// TestSearchMatchesNoPrefixOfABrandWordWhole checks that a request's word
// does not match, as the start of a longer word, a word that documents
// hold only whole as a brand word: "request" is no request for the tool
// that takes a requestId, although the index holds "requestid" whole.
func TestSearchMatchesNoPrefixOfABrandWordWhole(t *testing.T) {
	// The task manager of LiveMCPBench's catalog, as published.
	docs := []Document{
		{Name: "request_planning", Description: "Register a new user request and plan its associated tasks. You must provide 'originalRequest' and 'tasks', and optionally 'splitDetails'.\n\nThis tool initiates a new workflow for handling a user's request. The workflow is as follows:\n1. Use 'request_planning' to register a request and its tasks.\n2. After adding tasks, you MUST use 'get_next_task' to retrieve the first task. A progress table will be displayed.\n3. Use 'get_next_task' to retrieve the next uncompleted task.\n4. **IMPORTANT:** After marking a task as done, the assistant MUST NOT proceed to another task without the user's approval. The user must explicitly approve the completed task using 'approve_task_completion'. A progress table will be displayed before each approval request.\n5. Once a task is approved, you can proceed to 'get_next_task' again to fetch the next pending task.\n6. Repeat this cycle until all tasks are done.\n7. After all tasks are completed (and approved), 'get_next_task' will indicate that all tasks are done and that the request awaits approval for full completion.\n8. The user must then approve the entire request's completion using 'approve_request_completion'. If the user does not approve and wants more tasks, you can again use 'request_planning' to add new tasks and continue the cycle.\n\nThe critical point is to always wait for user approval after completing each task and after all tasks are done, wait for request completion approval. Do not proceed automatically.", ParamNames: "originalRequest splitDetails tasks", Domain: "taskmanager"},
		{Name: "get_next_task", Description: "Given a 'requestId', return the next pending task (not done yet). If all tasks are completed, it will indicate that no more tasks are left and that you must wait for the request completion approval.\n\nA progress table showing the current status of all tasks will be displayed with each response.\n\nIf the same task is returned again or if no new task is provided after a task was marked as done but not yet approved, you MUST NOT proceed. In such a scenario, you must prompt the user for approval via 'approve_task_completion' before calling 'get_next_task' again. Do not skip the user's approval step.\nIn other words:\n- After calling 'mark_task_done', do not call 'get_next_task' again until 'approve_task_completion' is called by the user.\n- If 'get_next_task' returns 'all_tasks_done', it means all tasks have been completed. At this point, you must not start a new request or do anything else until the user decides to 'approve_request_completion' or possibly add more tasks via 'request_planning'.", ParamNames: "requestId", Domain: "taskmanager"},
		{Name: "mark_task_done", Description: "Mark a given task as done after you've completed it. Provide 'requestId' and 'taskId', and optionally 'completedDetails'.\n\nAfter marking a task as done, a progress table will be displayed showing the updated status of all tasks.\n\nAfter this, DO NOT proceed to 'get_next_task' again until the user has explicitly approved this completed task using 'approve_task_completion'.", ParamNames: "completedDetails requestId taskId", Domain: "taskmanager"},
		{Name: "approve_task_completion", Description: "Once the assistant has marked a task as done using 'mark_task_done', the user must call this tool to approve that the task is genuinely completed. Only after this approval can you proceed to 'get_next_task' to move on.\n\nA progress table will be displayed before requesting approval, showing the current status of all tasks.\n\nIf the user does not approve, do not call 'get_next_task'. Instead, the user may request changes, or even re-plan tasks by using 'request_planning' again.", ParamNames: "requestId taskId", Domain: "taskmanager"},
		{Name: "update_task", Description: "Update an existing task's title and/or description. Only uncompleted tasks can be updated.\n\nA progress table will be displayed showing the updated task information.", ParamNames: "description requestId taskId title", Domain: "taskmanager"},
		{Name: "delete_task", Description: "Delete a specific task from a request. Only uncompleted tasks can be deleted.\n\nA progress table will be displayed showing the remaining tasks after deletion.", ParamNames: "requestId taskId", Domain: "taskmanager"},
	}
	query := "Rename task 3 in request req-7 to 'Write tests'"
	hits, _ := NewIndex(docs).Search(Request{Text: query, Limit: len(docs), Explain: true})
	for _, h := range hits {
		for _, w := range h.Explanation.Words {
			for _, term := range w.Terms {
				if term.Term == "requestid" {
					t.Errorf("%s: %q matches %q (%s)", docs[h.Doc].Name, w.Word, term.Term, term.Match)
				}
			}
		}
	}
	wantFirst(t, NewIndex(docs), docs, query, 4)
}
