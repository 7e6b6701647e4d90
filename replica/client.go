package replica

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/benbjohnson/litestream"
	"github.com/superfly/ltx"
)

// watchedClient is a Litestream replica client that records how its calls
// to the replica fare. Litestream retries failed uploads with back-off and
// only logs the failures; this is how they reach /metrics and /readyz.
type watchedClient struct {
	litestream.ReplicaClient

	mu           sync.Mutex
	errors       uint64
	lastError    string
	failingSince time.Time
	lastUpload   time.Time
}

type clientState struct {
	errors       uint64
	lastError    string
	failingSince time.Time
	lastUpload   time.Time
}

func (c *watchedClient) state() clientState {
	c.mu.Lock()
	defer c.mu.Unlock()
	return clientState{c.errors, c.lastError, c.failingSince, c.lastUpload}
}

// record notes the outcome of one call. A cancelled call (shutdown) is
// neither a failure nor a success.
func (c *watchedClient) record(err error, upload bool) {
	if errors.Is(err, context.Canceled) {
		return
	}
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.errors++
		c.lastError = err.Error()
		if c.failingSince.IsZero() {
			c.failingSince = now
		}
		return
	}
	c.failingSince = time.Time{}
	if upload {
		c.lastUpload = now
	}
}

func (c *watchedClient) WriteLTXFile(ctx context.Context, level int, minTXID, maxTXID ltx.TXID, r io.Reader) (*ltx.FileInfo, error) {
	info, err := c.ReplicaClient.WriteLTXFile(ctx, level, minTXID, maxTXID, r)
	c.record(err, true)
	return info, err
}

func (c *watchedClient) LTXFiles(ctx context.Context, level int, seek ltx.TXID, useMetadata bool) (ltx.FileIterator, error) {
	itr, err := c.ReplicaClient.LTXFiles(ctx, level, seek, useMetadata)
	c.record(err, false)
	return itr, err
}
