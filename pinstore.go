package mcpgateway

import (
	"context"
	"errors"
	"io/fs"

	"github.com/caddy-mcp/mcp-gateway/gateway"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/certmagic"
)

// pinStorage keeps a gateway's tool pins (see gateway.PinStorage) in
// Caddy's storage, under the key mcp_gateway/pins/<gateway name>.json.
// With Caddy's default file storage that is
// <caddy.AppDataDir()>/mcp_gateway/pins/<name>.json:
// $XDG_DATA_HOME/caddy/... or ~/.local/share/caddy/... on Linux. A
// `storage` global option moves them with the certificates, so that
// instances sharing a storage share pins. Delete the file to pin every
// tool afresh.
type pinStorage struct {
	storage certmagic.Storage
	key     string
}

// pinsIn is the pin storage of a gateway in ctx's config: nil (pins in
// memory) for a Context made without a config, as unit tests make them.
func pinsIn(ctx caddy.Context, gatewayName string) gateway.PinStorage {
	storage := configStorage(ctx)
	if storage == nil {
		return nil
	}
	return pinStorage{storage: storage, key: "mcp_gateway/pins/" + gatewayName + ".json"}
}

// configStorage is ctx.Storage(), or nil where ctx has no config (whose
// absence ctx.Storage does not check).
func configStorage(ctx caddy.Context) (storage certmagic.Storage) {
	defer func() {
		if recover() != nil {
			storage = nil
		}
	}()
	return ctx.Storage()
}

func (p pinStorage) LoadPins(ctx context.Context) ([]byte, error) {
	b, err := p.storage.Load(ctx, p.key)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

func (p pinStorage) StorePins(ctx context.Context, data []byte) error {
	return p.storage.Store(ctx, p.key, data)
}

var _ gateway.PinStorage = pinStorage{}
