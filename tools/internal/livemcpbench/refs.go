package livemcpbench

// ToolRef names one tool of a catalog: its server's domain and its name.
type ToolRef struct {
	Domain string
	Name   string
}

// Qualified is the tool's name qualified by its domain, "domain.name", the
// form a task uses for a tool whose name several servers share.
func (r ToolRef) Qualified() string { return r.Domain + "." + r.Name }

// TaskNames turns a ranking into the names task's gold tools are compared
// with: a tool the task names qualified ("github.create_issue") keeps its
// qualified name, any other its bare name, so that a bare gold name counts
// for any server's tool of that name (as in LiveMCPBench's tasks) and a
// qualified one only for that server's.
func TaskNames(task Task, ranking []ToolRef) []string {
	qualified := make(map[string]bool)
	for _, g := range task.Tools {
		qualified[g] = true
	}
	names := make([]string, len(ranking))
	for i, r := range ranking {
		if q := r.Qualified(); qualified[q] {
			names[i] = q
		} else {
			names[i] = r.Name
		}
	}
	return names
}
