package store

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"hindsight/migrations"
)

// Ready reports whether the database answers and holds every migration this
// binary embeds, so that an instance is never declared ready on a schema it
// does not know (a restored old backup, a file swapped under it).
func (s *Store) Ready(ctx context.Context) error {
	applied, err := s.Migrations(ctx)
	if err != nil {
		return fmt.Errorf("ready: %w", err)
	}
	want, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		return fmt.Errorf("ready: %w", err)
	}
	var missing []string
	for _, name := range want {
		if !slices.Contains(applied, name) {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("ready: migrations not applied: %s", strings.Join(missing, ", "))
	}
	return nil
}
