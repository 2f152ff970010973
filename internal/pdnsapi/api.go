package pdnsapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	powerdns "github.com/joeig/go-powerdns/v3"
)

// The calls the Reconciler makes, each addressed by the zone's id (ZoneID),
// never its name, and each returning the library's errors (Call): a
// *pdnserrors.APIError with every problem PowerDNS reported, or the
// transport's error. A zone no request can address is a *ZoneError, and a
// metadata kind that is not one path segment of letters, digits, '-' and
// '_' an ErrInvalidMetadataKind; neither makes a request.
//
// go-powerdns joins the id into the path with path.Join, appending a dot
// when it lacks one, and sets url.URL.Path: an id from ZoneID holds no byte
// that either changes.

// ErrInvalidMetadataKind is the error of a metadata kind that cannot be
// put into a request path as it is.
var ErrInvalidMetadataKind = errors.New("invalid powerdns metadata kind")

// metadataKind checks kind: PowerDNS's kinds (SOA-EDIT-API, X-…) are
// letters, digits and '-'; anything else would be escaped or cleaned in
// the path and address another kind, or none.
func metadataKind(kind string) (powerdns.MetadataKind, error) {
	if kind == "" || len(kind) > 255 {
		return "", fmt.Errorf("%w %q", ErrInvalidMetadataKind, kind)
	}
	for i := 0; i < len(kind); i++ {
		c := kind[i]
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '-' && c != '_' {
			return "", fmt.Errorf("%w %q: only letters, digits, '-' and '_'", ErrInvalidMetadataKind, kind)
		}
	}
	return powerdns.MetadataKind(kind), nil
}

// PatchZone sends one PATCH of rrsets to zone: PowerDNS applies it in one
// transaction.
func (c *Client) PatchZone(ctx context.Context, zone string, rrsets []powerdns.RRset) error {
	id, err := zoneID(zone)
	if err != nil {
		return err
	}
	return Call(ctx, func(ctx context.Context) error {
		return c.Records.Patch(ctx, id, &powerdns.RRsets{Sets: rrsets})
	})
}

// ListMetadata reads every metadata kind of zone.
func (c *Client) ListMetadata(ctx context.Context, zone string) ([]powerdns.Metadata, error) {
	id, err := zoneID(zone)
	if err != nil {
		return nil, err
	}
	var md []powerdns.Metadata
	err = Call(ctx, func(ctx context.Context) error {
		var err error
		md, err = c.Metadata.List(ctx, id)
		return err
	})
	return md, err
}

// AddMetadata appends values to kind (POST): a kind that did not exist is
// created with all of them at once.
func (c *Client) AddMetadata(ctx context.Context, zone, kind string, values []string) error {
	id, err := zoneID(zone)
	if err != nil {
		return err
	}
	k, err := metadataKind(kind)
	if err != nil {
		return err
	}
	return Call(ctx, func(ctx context.Context) error {
		_, err := c.Metadata.Create(ctx, id, k, values)
		return err
	})
}

// GetMetadata reads the values of one metadata kind of zone: none when the
// zone has no such kind.
func (c *Client) GetMetadata(ctx context.Context, zone, kind string) ([]string, error) {
	id, err := zoneID(zone)
	if err != nil {
		return nil, err
	}
	k, err := metadataKind(kind)
	if err != nil {
		return nil, err
	}
	var values []string
	err = Call(ctx, func(ctx context.Context) error {
		md, err := c.Metadata.Get(ctx, id, k)
		if md != nil {
			values = md.Metadata
		}
		return err
	})
	return values, err
}

// SetMetadata replaces the values of kind (PUT), creating it when absent.
func (c *Client) SetMetadata(ctx context.Context, zone, kind string, values []string) error {
	id, err := zoneID(zone)
	if err != nil {
		return err
	}
	k, err := metadataKind(kind)
	if err != nil {
		return err
	}
	return Call(ctx, func(ctx context.Context) error {
		_, err := c.Metadata.Set(ctx, id, k, values)
		return err
	})
}

// DeleteMetadata removes kind and all its values.
func (c *Client) DeleteMetadata(ctx context.Context, zone, kind string) error {
	id, err := zoneID(zone)
	if err != nil {
		return err
	}
	k, err := metadataKind(kind)
	if err != nil {
		return err
	}
	return Call(ctx, func(ctx context.Context) error {
		return c.Metadata.Delete(ctx, id, k)
	})
}

// ServerVersion reads the version the server reports, e.g. "4.9.18".
func (c *Client) ServerVersion(ctx context.Context) (string, error) {
	var version string
	err := Call(ctx, func(ctx context.Context) error {
		server, err := c.Servers.Get(ctx, c.VHost)
		if err == nil && server != nil && server.Version != nil {
			version = *server.Version
		}
		return err
	})
	return version, err
}

// ConfigSetting reads one setting of the server's configuration; ok is false
// when the server does not list it.
func (c *Client) ConfigSetting(ctx context.Context, name string) (value string, ok bool, err error) {
	err = Call(ctx, func(ctx context.Context) error {
		settings, err := c.Config.List(ctx)
		for _, s := range settings {
			if s.Name != nil && *s.Name == name && s.Value != nil {
				value, ok = *s.Value, true
			}
		}
		return err
	})
	return value, ok, err
}

// CreateZone creates a zone (POST /zones) from z, whose Name is the zone's
// name; PowerDNS derives its id. A name no request could address later
// is a *ZoneError, and no request is made.
func (c *Client) CreateZone(ctx context.Context, z powerdns.Zone) error {
	name := ""
	if z.Name != nil {
		name = *z.Name
	}
	if _, err := zoneID(name); err != nil {
		return err
	}
	return Call(ctx, func(ctx context.Context) error {
		_, err := c.Zones.Add(ctx, &z)
		return err
	})
}

// DeleteZone deletes zone and everything in it.
func (c *Client) DeleteZone(ctx context.Context, zone string) error {
	id, err := zoneID(zone)
	if err != nil {
		return err
	}
	return Call(ctx, func(ctx context.Context) error {
		return c.Zones.Delete(ctx, id)
	})
}

// ZoneInfo reads zone's properties (kind, SOA-EDIT-API, DNSSEC, ...) and the
// RRsets q asks for, decoded as go-powerdns decodes a zone: for the few
// calls that need every property rather than a large zone's RRsets.
func (c *Client) ZoneInfo(ctx context.Context, zone string, q ZoneQuery) (*powerdns.Zone, error) {
	body, err := c.get(ctx, zone, q)
	if err != nil {
		return nil, err
	}
	z := new(powerdns.Zone)
	if err := json.Unmarshal(body, z); err != nil {
		return nil, fmt.Errorf("decode zone %s: %w", zone, err)
	}
	return z, nil
}

// ChangeZone changes the properties of zone that z sets (PUT /zones/{id}):
// kind, account, catalog, SOA-EDIT-API, masters, ...; a property z leaves
// nil is left as it is. z's name and id are ignored.
func (c *Client) ChangeZone(ctx context.Context, zone string, z powerdns.Zone) error {
	id, err := zoneID(zone)
	if err != nil {
		return err
	}
	return Call(ctx, func(ctx context.Context) error {
		return c.Zones.Change(ctx, id, &z)
	})
}
