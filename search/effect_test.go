package search

import "testing"

func TestRequestEffect(t *testing.T) {
	for text, want := range map[string]effect{
		"Put 'Q3 Results' in the title placeholder on slide 1":  effectDo,
		"please start a new recording session":                  effectDo,
		"Can you protect contract.docx with a password":         effectDo,
		"Stop recording my browser actions":                     effectUndo,
		"I want to delete the draft note":                       effectUndo,
		"clear the placeholders on slide 2":                     effectUndo,
		"I'm done, shut down the browser":                       effectNone,
		"What's on slide 3?":                                    effectNone,
		"show me the placeholders":                              effectNone,
		"rename report.docx to final.docx":                      effectModify,
		"Change the footnotes in thesis.docx to Roman numerals": effectModify,
		"Set the deck's author to Jane Doe and title to Q3":     effectModify,
		"Switch the concise variation to gpt-4o":                effectModify,
		"Rotate the API key of the billing service":             effectModify,
		// An indefinite article says the thing is new: a reminder that is
		// set is made.
		"Set a reminder 30 minutes before the task is due": effectNone,
		"Set an alarm for 7am":                             effectNone,
		"Set the reminder to 9am":                          effectModify,
		// "un" before a doing verb undoes it; before another word it
		// says nothing.
		"Unlink asset a1b2c3 from its related asset d4e5f6": effectUndo,
		"Link Sarah and Acme Corp in my knowledge graph":    effectDo,
		"unpin the welcome message":                         effectUndo,
		"Unread messages in #general?":                      effectNone,
		// "re" before a doing verb does it again.
		"Reactivate our Denver warehouse location": effectDo,
		"reopen the ticket":                        effectDo,
		"Deactivate the Denver warehouse location": effectUndo,
		"Report the outage":                        effectNone,
		// Remembering keeps something, as forgetting drops it.
		"Remember that Alice works at Acme": effectDo,
		"Forget everything about John":      effectUndo,
		"under which folder is report.docx": effectNone,
		"":                                  effectNone,
		"please":                            effectNone,
	} {
		if got := requestEffect(text); got != want {
			t.Errorf("requestEffect(%q) = %d, want %d", text, got, want)
		}
	}
}

func TestToolEffect(t *testing.T) {
	for name, want := range map[string]effect{
		"populate_placeholder":           effectDo,
		"start_codegen_session":          effectDo,
		"protect_document":               effectDo,
		"clear_placeholders_from_slides": effectUndo,
		"end_codegen_session":            effectUndo,
		"unprotect_document":             effectUndo,
		"playwright_close":               effectUndo,
		"sitemaps_submit":                effectDo,
		"publish_offer":                  effectDo,
		"withdraw_offer":                 effectUndo,
		"unsubscribe_member":             effectUndo,
		"unassign_issue":                 effectUndo,
		"assign_issue":                   effectDo,
		"detach_policy":                  effectUndo,
		// A tool that reads first does neither.
		"get_placeholder_value": effectNone,
		"list_new_items":        effectNone,
		"chroma_cqt":            effectNone,
		"":                      effectNone,
	} {
		if got := toolEffect(Words(name)); got != want {
			t.Errorf("toolEffect(%q) = %d, want %d", name, got, want)
		}
	}
}

func TestSearchRanksTheOppositeOfARequestLower(t *testing.T) {
	docs := []Document{
		{Name: "clear_placeholders", Description: "Clear the text of every title and body placeholder on the given slides."},
		{Name: "populate_placeholder", Description: "Populate a placeholder with text."},
		{Name: "start_recording", Description: "Start recording browser actions into a test."},
		{Name: "end_recording", Description: "End the session and write the test file."},
		{Name: "add_slide", Description: "Add a slide to the presentation."},
		{Name: "get_weather", Description: "Get the weather forecast for a city."},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "Put 'Q3 Results' into the title placeholder on slide 1", 1)
	wantFirst(t, ix, docs, "Stop recording my browser actions", 3)
	// Without a verb of either kind, the words decide.
	wantFirst(t, ix, docs, "the title placeholder on slide 1", 0)
}

// A request to remember something does not rank the tools that forget
// first: remembering is doing, as forgetting is undoing.
func TestSearchDoesNotForgetWhatARequestRemembers(t *testing.T) {
	docs := []Document{
		{Name: "delete_relations", Description: "Delete multiple relations from the knowledge graph"},
		{Name: "create_relations", Description: "Create multiple new relations between entities in the knowledge graph"},
		{Name: "get_weather", Description: "Get the weather forecast for a city."},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "Remember that Alice works at Acme in my knowledge graph", 1)
}

// A request to change something that is there ranks the tools that make
// a new one lower.
func TestSearchDoesNotMakeWhatARequestChanges(t *testing.T) {
	docs := []Document{
		{Name: "add_footnote_to_document", Description: "Add a footnote to a paragraph of a Word document.", ParamNames: "filename paragraph_index footnote_text"},
		{Name: "customize_footnote_style", Description: "Customize the numbering and formatting of footnotes.", ParamNames: "filename numbering_format font_size font_name"},
		{Name: "get_weather", Description: "Get the weather forecast for a city."},
		{Name: "read_note", Description: "Read a note by its title."},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "Change the footnotes in thesis.docx to Roman numerals", 1)
	wantFirst(t, ix, docs, "Add a footnote to thesis.docx", 0)
}

// A request to change something that is there ranks the tools that
// remove it lower, as it does those that make a new one.
func TestSearchDoesNotRemoveWhatARequestChanges(t *testing.T) {
	docs := []Document{
		{Name: "delete-ai-config-variation", Description: "Deletes an AI Config variation."},
		{Name: "update-ai-config-variation", Description: "Updates a specific variation within an AI Config."},
		{Name: "get_weather", Description: "Get the weather forecast for a city."},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "Switch the concise variation of the support-bot AI Config to gpt-4o", 1)
	wantFirst(t, ix, docs, "Delete the concise variation of the support-bot AI Config", 0)
}

// A request to undo with "un" before a doing verb ranks the tool that
// undoes first, though its words match the tool that does as well.
func TestSearchReadsUnBeforeADoingVerbAsUndoing(t *testing.T) {
	docs := []Document{
		{Name: "create-asset-relations", Description: "Add related assets by asset ID. Relates an asset to other assets by their asset IDs."},
		{Name: "delete-asset-relations", Description: "Delete asset relations by asset ID. Unrelates the asset from other assets."},
		{Name: "get_weather", Description: "Get the weather forecast for a city."},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "Unlink asset a1b2c3 from its related asset d4e5f6", 1)
	wantFirst(t, ix, docs, "Link asset a1b2c3 to its related asset d4e5f6", 0)
}

// A request to do again ("reactivate") ranks the tool that undoes below
// the one that does, as the verb alone would.
func TestSearchReadsReBeforeADoingVerbAsDoing(t *testing.T) {
	docs := []Document{
		{Name: "delete_inventory_location", Description: "Delete an inventory location."},
		{Name: "enable_inventory_location", Description: "Enable an inventory location."},
		{Name: "get_weather", Description: "Get the weather forecast for a city."},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "Reactivate the Denver inventory location", 1)
	wantFirst(t, ix, docs, "Deactivate the Denver inventory location", 0)
}

// "Unset" removes what "set" put: a request to unset a default ranks the
// tool that cancels it above the one that sets it.
func TestSearchReadsUnsetAsUndoing(t *testing.T) {
	docs := []Document{
		{Name: "set_rich_menu_default", Description: "Set a rich menu as the default rich menu."},
		{Name: "cancel_rich_menu_default", Description: "Cancel the default rich menu."},
		{Name: "get_weather", Description: "Get the weather forecast for a city."},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "Unset the default rich menu so followers no longer see it by default", 1)
	wantFirst(t, ix, docs, "Set rich menu 7 as the default rich menu", 0)
}

// Rotating a password, a key or a secret replaces the one that is there:
// a request to rotate one ranks the tool that makes a new one lower.
func TestSearchDoesNotMakeWhatARequestRotates(t *testing.T) {
	docs := []Document{
		{Name: "password_create", Description: "Create a new password/login item in a vault.", Params: "vault The vault title The login item title password The password", ParamNames: "vault title password"},
		{Name: "password_update", Description: "Update (rotate) a password on an existing item.", Params: "item The item password The new password", ParamNames: "item password"},
		{Name: "get_weather", Description: "Get the weather forecast for a city."},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "Rotate the password on the prod Postgres login in the Infra vault.", 1)
	wantFirst(t, ix, docs, "Create a password for the prod Postgres login in the Infra vault.", 0)
}

// "Set a reminder 30 minutes before ..." makes a reminder: the article
// says it is new, and the number a unit of time follows measures rather
// than names one, so the tool that adds reminders ranks above the one
// that patches the task.
func TestSearchSetsANewReminder(t *testing.T) {
	docs := []Document{
		{Name: "task_patch", Description: "Update a task: its summary, description, due date, reminders, etc.", Params: "task_guid The task to update", ParamNames: "task_guid task update_fields"},
		{Name: "task_create", Description: "Create a task with a summary, due date and reminders.", ParamNames: "summary due reminders"},
		{Name: "task_addReminders", Description: "Add a reminder for a task.", Params: "task_guid The task reminders The reminders, each set relative to the due time", ParamNames: "task_guid reminders"},
		{Name: "get_weather", Description: "Get the weather forecast for a city."},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "Set a reminder 30 minutes before my expense report task is due.", 2)
	wantFirst(t, ix, docs, "Set the due date of my expense report task to Friday.", 0)
}
