package search

import (
	"slices"
	"testing"
)

func TestSeveralItems(t *testing.T) {
	for text, want := range map[string]struct {
		kinds   []string
		several bool
	}{
		"Pull current offers for SKUs TSHIRT-RED-M, TSHIRT-BLU-L and MUG-01.": {[]string{"skus"}, true},
		"Mark issues AX-101, AX-102 and AX-107 as false positives":            {[]string{"issues"}, true},
		"Search CRM companies for Acme, Globex and Initech":                   {nil, true},
		"Move these five Drive files into the Q3 Reports folder.":             {[]string{"files"}, true},
		"Move these 30 old draft files to the trash":                          {[]string{"files"}, true},
		// Kinds of things are no items, nor is one item, nor a stretch of
		// time; files are read apart (see splitLocators).
		"Search all deals, contacts, orgs and leads for 'Contoso'": {nil, false},
		"Move the Acme contract into the Clients folder":           {nil, false},
		"Show these two weeks of logs":                             {nil, false},
		"Compare draft1.txt and draft2.txt":                        {nil, false},
	} {
		kinds, several := severalItems(text)
		if several != want.several || !slices.Equal(kinds, want.kinds) {
			t.Errorf("severalItems(%q) = %q, %v; want %q, %v", text, kinds, several, want.kinds, want.several)
		}
	}
}

// TestSearchFindsWhatTakesSeveral checks that a request naming several
// things to act on finds the tool that takes several of them before the
// one that takes one.
func TestSearchFindsWhatTakesSeveral(t *testing.T) {
	// Tools of eBay's and Google Drive's MCP servers, as published.
	docs := []Document{
		{Name: "ebay_get_offers", Description: "Get offers for one seller-defined SKU. To enumerate offers across SKUs, call ebay_get_inventory_items first, then call this tool once per SKU.", ParamNames: "format limit marketplaceId offset sku", Domain: "ebay"},
		{Name: "ebay_get_offers_by_skus", Description: "Get offers for 1-25 SKUs. Exact duplicates are queried once, at most 3 eBay requests run concurrently, and every SKU has its own success or failure result.", ParamNames: "format marketplaceId skus", Domain: "ebay"},
		{Name: "move_item", Description: "Move items to a new folder", ParamNames: "destinationFolderId destinationPath itemId itemPath", Domain: "googleworkspace"},
		{Name: "batch_move", Description: "Batch move files to folder (max 100 per batch)", ParamNames: "destinationFolderId destinationPath fileIds filePaths", Domain: "googleworkspace"},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "Pull current offers for SKUs TSHIRT-RED-M, TSHIRT-BLU-L and MUG-01.", 1)
	wantFirst(t, ix, docs, "Move these five Drive files into the Q3 Reports folder.", 3)
	wantFirst(t, ix, docs, "Move the Acme contract into the Clients folder.", 2)
}

// TestSeveralItemsLeavesListingAlone checks that a tool that lists or
// searches, named in the plural for what it gives, is no tool that takes
// several.
func TestSeveralItemsLeavesListingAlone(t *testing.T) {
	// list-images and manage-asset-tags as Cloudinary's MCP server
	// publishes them; search-images and update-images made up beside them.
	docs := []Document{
		{Name: "list-images", Description: "Get image assets Retrieves a list of image assets.", Domain: "cloudinary"},
		{Name: "search-images", Description: "Search image assets by expression.", ParamNames: "expression", Domain: "cloudinary"},
		{Name: "manage-asset-tags", Description: "Adds, removes, or replaces tags on multiple assets", ParamNames: "command public_ids tag", Domain: "cloudinary"},
		{Name: "update-images", Description: "Update the metadata of several image assets.", ParamNames: "public_ids", Domain: "cloudinary"},
	}
	grown := movedBy(NewIndex(docs), docs, "Tag the images shoe_01, shoe_02 and shoe_03 with 'fall-2024'.", "several items")
	slices.Sort(grown)
	if want := []string{"update-images"}; !slices.Equal(grown, want) {
		t.Errorf("several items grows %q, want %q", grown, want)
	}
}
