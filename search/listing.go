package search

// Listing. A tool named for listing (list_directory,
// list_available_documents, list_presentations) enumerates what there is;
// a request that names a file (report.docx, /var/log/app.log) already
// knows what it wants to act on, and a listing tool that matches it
// matches the kind of file, not the request: "pull all the text out of
// resume.docx" is no request to list Word documents. Nor is a request
// that names one item by its number ("what's on slide 4", see
// numberedItems) one to list them. For such requests a listing tool keeps
// 1-listingPenalty of its score.
//
// Measured on LiveMCPBench's tools and the task sets of
// internal/livemcpbench: 0.2 gained 17 first places (calib 16, fresh 1)
// and lost none; from 0.2 to 0.3 the figures barely move.
const listingPenalty = 0.2

// listingTool reports whether a tool's name (its Words) says it lists:
// its first word is "list".
func listingTool(nameWords []string) bool {
	return len(nameWords) > 0 && nameWords[0] == "list"
}
