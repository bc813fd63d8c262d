package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// Tool pinning: the gateway records each tool's definition (its hash)
// the first time it sees it, and notices when an upstream later changes
// it: an upstream trusted with one definition could otherwise swap in
// another ("rug pull") once clients and the operator have looked. A
// change is logged once, counted (ToolChangeObserver), and listed for the
// operator (ToolChanges) until accepted (AcceptToolChange); under
// OnToolChangeHold the changed tool is out of the catalog meanwhile.
// Pins outlive the process through a PinStorage, or a hostile upstream
// would only wait for a restart.
const (
	// OnToolChangeFlag (the default) keeps a changed tool in the catalog,
	// logs and reports the change.
	OnToolChangeFlag = "flag"
	// OnToolChangeHold also holds the changed tool out of the catalog (every
	// surface: search, listings, schemas, calls, passthrough) until an
	// operator accepts its new definition.
	OnToolChangeHold = "hold"
)

// PinStorage keeps the gateway's tool pins across restarts. Load returns
// nil (and no error) when nothing was stored yet. The Caddy module keeps
// them in Caddy's storage.
type PinStorage interface {
	LoadPins(ctx context.Context) ([]byte, error)
	StorePins(ctx context.Context, data []byte) error
}

// ToolChangeObserver, implemented by an Observer, hears of each tool
// definition change the gateway notices (once per new definition).
type ToolChangeObserver interface {
	ToolChanged(upstream, tool string)
}

// ToolPin is the definition of a tool the gateway trusts: its hash, and
// when it was first seen or last accepted.
type ToolPin struct {
	Hash     string    `json:"hash"`
	PinnedAt time.Time `json:"pinned_at"`
}

// ToolChange is a tool whose definition differs from its pin.
type ToolChange struct {
	// Name is the tool's qualified name in the catalog; Upstream and Tool
	// are its upstream and its name there.
	Name     string `json:"name"`
	Upstream string `json:"upstream"`
	Tool     string `json:"tool"`
	// PinnedHash and PinnedAt are the trusted definition; Hash is the one
	// the upstream lists now, seen first at SeenAt.
	PinnedHash string    `json:"pinned_hash"`
	PinnedAt   time.Time `json:"pinned_at"`
	Hash       string    `json:"hash"`
	SeenAt     time.Time `json:"seen_at"`
	// Held says the tool is out of the catalog until accepted.
	Held bool `json:"held"`
}

// pinFile is the stored form of the pins.
type pinFile struct {
	Version   int                            `json:"version"`
	Upstreams map[string]map[string]*ToolPin `json:"upstreams"`
}

// pins is a gateway's pin state.
type pins struct {
	storeMu sync.Mutex // serialises stores, so an older snapshot never overwrites a newer
	mu      sync.Mutex
	storage PinStorage
	pinned  map[string]map[string]*ToolPin    // upstream -> tool -> pin
	changes map[string]map[string]*ToolChange // upstream -> tool -> change
	dirty   bool                              // pinned changed since the last store
}

// toolHash is the hash a tool is pinned by: SHA-256 of the canonical JSON
// (object keys sorted, as encoding/json writes maps) of its name, title,
// description, input and output schemas and annotations: everything a
// model reads of it.
func toolHash(def *mcp.Tool) string {
	canonical := func(v any) any {
		if v == nil {
			return nil
		}
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Sprint(v)
		}
		var generic any
		if json.Unmarshal(b, &generic) != nil {
			return string(b)
		}
		return generic
	}
	b, _ := json.Marshal(map[string]any{
		"name":         def.Name,
		"title":        def.Title,
		"description":  def.Description,
		"inputSchema":  canonical(def.InputSchema),
		"outputSchema": canonical(def.OutputSchema),
		"annotations":  canonical(def.Annotations),
	})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// load reads the stored pins, once a storage is set.
func (p *pins) load(ctx context.Context, storage PinStorage) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pinned == nil {
		p.pinned = map[string]map[string]*ToolPin{}
		p.changes = map[string]map[string]*ToolChange{}
	}
	if storage == nil || p.storage != nil {
		if storage != nil {
			p.storage = storage // a reload's storage: the same place
		}
		return nil
	}
	p.storage = storage
	b, err := storage.LoadPins(ctx)
	if err != nil || len(b) == 0 {
		return err
	}
	var f pinFile
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("reading stored tool pins: %v", err)
	}
	for upstream, tools := range f.Upstreams {
		for tool, pin := range tools {
			if pin == nil || pin.Hash == "" {
				continue
			}
			if p.pinned[upstream] == nil {
				p.pinned[upstream] = map[string]*ToolPin{}
			}
			// Pins seen in this process before the storage came win.
			if _, ok := p.pinned[upstream][tool]; !ok {
				p.pinned[upstream][tool] = pin
			}
		}
	}
	return nil
}

// observe compares a tool's definition hash with its pin: a tool seen
// for the first time is pinned; one that differs is a change, returned
// (new reports whether it is a definition not seen before, to be logged
// and counted once). name is its qualified name in the catalog.
func (p *pins) observe(upstream, tool, name, hash string, hold bool, now time.Time) (change *ToolChange, isNew bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pinned == nil {
		p.pinned = map[string]map[string]*ToolPin{}
		p.changes = map[string]map[string]*ToolChange{}
	}
	if p.pinned[upstream] == nil {
		p.pinned[upstream] = map[string]*ToolPin{}
	}
	pin := p.pinned[upstream][tool]
	if pin == nil {
		p.pinned[upstream][tool] = &ToolPin{Hash: hash, PinnedAt: now}
		p.dirty = true
		return nil, false
	}
	if pin.Hash == hash {
		delete(p.changes[upstream], tool) // changed back
		return nil, false
	}
	c := p.changes[upstream][tool]
	if c != nil && c.Hash == hash {
		c.Held, c.Name = hold, name
		return c, false
	}
	c = &ToolChange{Name: name, Upstream: upstream, Tool: tool, PinnedHash: pin.Hash, PinnedAt: pin.PinnedAt, Hash: hash, SeenAt: now, Held: hold}
	if p.changes[upstream] == nil {
		p.changes[upstream] = map[string]*ToolChange{}
	}
	p.changes[upstream][tool] = c
	return c, true
}

// forget drops the pins of an upstream's tools it no longer lists, oldest
// first, until it has at most limit (a hostile upstream cycling through
// names cannot grow them without bound). listed are the tools it lists.
func (p *pins) forget(upstream string, listed map[string]bool, limit int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	tools := p.pinned[upstream]
	if limit <= 0 || len(tools) <= limit {
		return
	}
	var absent []string
	for tool := range tools {
		if !listed[tool] {
			absent = append(absent, tool)
		}
	}
	slices.SortFunc(absent, func(a, b string) int { return tools[a].PinnedAt.Compare(tools[b].PinnedAt) })
	for _, tool := range absent[:min(len(absent), len(tools)-limit)] {
		delete(tools, tool)
		delete(p.changes[upstream], tool)
	}
	p.dirty = true
}

// list returns the current changes, by upstream, then tool.
func (p *pins) list() []ToolChange {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []ToolChange
	for _, upstream := range slices.Sorted(maps.Keys(p.changes)) {
		for _, tool := range slices.Sorted(maps.Keys(p.changes[upstream])) {
			out = append(out, *p.changes[upstream][tool])
		}
	}
	return out
}

// held reports whether a tool is held out of the catalog.
func (p *pins) held(upstream, tool string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.changes[upstream][tool]
	return c != nil && c.Held
}

// ErrNoToolChange is AcceptToolChange's error when nothing matches.
var ErrNoToolChange = errors.New("no such tool change")

// accept makes the changed definitions of the tools match picks the
// trusted ones. hash, if set, must be the change's hash (the definition
// the operator reviewed). It returns the changes accepted.
func (p *pins) accept(match func(*ToolChange) bool, hash string, now time.Time) ([]ToolChange, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var accepted []ToolChange
	for upstream, tools := range p.changes {
		for tool, c := range tools {
			if !match(c) {
				continue
			}
			if hash != "" && c.Hash != hash {
				return nil, fmt.Errorf("tool %s changed again (its definition is now %s, not %s); review it again", c.Name, c.Hash, hash)
			}
			p.pinned[upstream][tool] = &ToolPin{Hash: c.Hash, PinnedAt: now}
			delete(tools, tool)
			accepted = append(accepted, *c)
		}
	}
	if len(accepted) == 0 {
		return nil, ErrNoToolChange
	}
	p.dirty = true
	return accepted, nil
}

// store writes the pins if they changed since the last store.
func (p *pins) store(ctx context.Context) error {
	p.storeMu.Lock()
	defer p.storeMu.Unlock()
	p.mu.Lock()
	if !p.dirty || p.storage == nil {
		p.mu.Unlock()
		return nil
	}
	f := pinFile{Version: 1, Upstreams: make(map[string]map[string]*ToolPin, len(p.pinned))}
	for upstream, tools := range p.pinned {
		f.Upstreams[upstream] = maps.Clone(tools)
	}
	p.dirty = false
	storage := p.storage
	p.mu.Unlock()
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	if err := storage.StorePins(ctx, b); err != nil {
		p.mu.Lock()
		p.dirty = true
		p.mu.Unlock()
		return err
	}
	return nil
}

// ToolChanges lists the tools whose definition differs from the one
// pinned, by upstream and tool.
func (g *Gateway) ToolChanges() []ToolChange { return g.pins.list() }

// AcceptToolChange trusts the current definition of the changed tool
// named name (its qualified name, as ToolChanges gives it); hash, if set,
// must be that definition's hash (the one the operator reviewed). The
// catalog is rebuilt before it returns: a held tool is back.
func (g *Gateway) AcceptToolChange(name, hash string) ([]ToolChange, error) {
	return g.acceptChanges(func(c *ToolChange) bool { return c.Name == name }, hash)
}

// AcceptUpstreamToolChanges trusts the current definitions of every
// changed tool of an upstream.
func (g *Gateway) AcceptUpstreamToolChanges(upstream string) ([]ToolChange, error) {
	return g.acceptChanges(func(c *ToolChange) bool { return c.Upstream == upstream }, "")
}

func (g *Gateway) acceptChanges(match func(*ToolChange) bool, hash string) ([]ToolChange, error) {
	accepted, err := g.pins.accept(match, hash, time.Now())
	if err != nil {
		return nil, err
	}
	for _, c := range accepted {
		g.logger.Info("tool definition change accepted", zap.String("upstream", c.Upstream), zap.String("tool", c.Name), zap.String("hash", c.Hash))
	}
	g.rebuildCatalog() // stores the pins too
	return accepted, nil
}
