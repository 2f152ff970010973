package pdnsapi

import (
	"context"
	"encoding/json"
	"fmt"

	powerdns "github.com/joeig/go-powerdns/v3"
)

// The calls the Reconciler makes, each addressed by the zone's id (ZoneID),
// never its name, and each returning the library's errors (Call): a
// *pdnserrors.APIError with every problem PowerDNS reported, or the
// transport's error.

// PatchZone sends one PATCH of rrsets to zone: PowerDNS applies it in one
// transaction.
func (c *Client) PatchZone(ctx context.Context, zone string, rrsets []powerdns.RRset) error {
	return Call(ctx, func(ctx context.Context) error {
		return c.Records.Patch(ctx, ZoneID(zone), &powerdns.RRsets{Sets: rrsets})
	})
}

// ListMetadata reads every metadata kind of zone.
func (c *Client) ListMetadata(ctx context.Context, zone string) ([]powerdns.Metadata, error) {
	var md []powerdns.Metadata
	err := Call(ctx, func(ctx context.Context) error {
		var err error
		md, err = c.Metadata.List(ctx, ZoneID(zone))
		return err
	})
	return md, err
}

// AddMetadata appends values to kind (POST): a kind that did not exist is
// created with all of them at once.
func (c *Client) AddMetadata(ctx context.Context, zone, kind string, values []string) error {
	return Call(ctx, func(ctx context.Context) error {
		_, err := c.Metadata.Create(ctx, ZoneID(zone), powerdns.MetadataKind(kind), values)
		return err
	})
}

// DeleteMetadata removes kind and all its values.
func (c *Client) DeleteMetadata(ctx context.Context, zone, kind string) error {
	return Call(ctx, func(ctx context.Context) error {
		return c.Metadata.Delete(ctx, ZoneID(zone), powerdns.MetadataKind(kind))
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
// name; PowerDNS derives its id.
func (c *Client) CreateZone(ctx context.Context, z powerdns.Zone) error {
	return Call(ctx, func(ctx context.Context) error {
		_, err := c.Zones.Add(ctx, &z)
		return err
	})
}

// DeleteZone deletes zone and everything in it.
func (c *Client) DeleteZone(ctx context.Context, zone string) error {
	return Call(ctx, func(ctx context.Context) error {
		return c.Zones.Delete(ctx, ZoneID(zone))
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
