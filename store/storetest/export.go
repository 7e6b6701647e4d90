package storetest

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"hindsight/store"
)

// Exported is a postmortem with what an export carries beside it: its
// checklist ticks and reviewed suggestions.
type Exported struct {
	store.Postmortem
	store.ExportExtras
}

// ReadExported reads slug from st as an export sees it (every group).
func ReadExported(t testing.TB, st *store.Store, slug string) Exported {
	t.Helper()
	ctx := store.WithEveryGroup(t.Context())
	p, err := st.GetPostmortem(ctx, slug)
	if err != nil {
		t.Fatalf("%s: %v", slug, err)
	}
	x, err := st.GetExportExtras(ctx, p)
	if err != nil {
		t.Fatalf("%s: %v", slug, err)
	}
	return Exported{p, x}
}

// exportNotCarried are the fields an export does not carry, by design
// (README "Exporting postmortems"): database ids and the clock of this
// database's writes, the count of saves, the verbatim original (the
// exported file becomes it), and what a create records in the history.
var exportNotCarried = map[string]bool{
	"ID": true, "PostmortemID": true, "GroupID": true, "CreatedAt": true, "UpdatedAt": true, "Version": true,
	"SourceText": true, "SavedBy": true, "SaveNote": true, "ChecklistItemID": true,
}

// reviewNotCarried are the postmortem's review state, by path: the copy
// starts its own review (made through the API it is a draft, imported by
// server import published), whatever the original's was.
var reviewNotCarried = map[string]bool{"Status": true, "ReviewDue": true, "Overdue": true}

// ExportDiffs compares two records field by field, into structs and
// slices, leaving out what an export does not carry, and names each field
// that differs ("ActionItems[1].Owner").
func ExportDiffs(want, got Exported) []string {
	return fieldDiffs("", reflect.ValueOf(want), reflect.ValueOf(got))
}

func fieldDiffs(path string, want, got reflect.Value) []string {
	switch want.Kind() {
	case reflect.Struct:
		if tm, ok := want.Interface().(time.Time); ok {
			if !tm.Equal(got.Interface().(time.Time)) {
				return []string{fmt.Sprintf("%s = %v, want %v", path, got.Interface(), tm)}
			}
			return nil
		}
		var out []string
		for i := range want.NumField() {
			f := want.Type().Field(i)
			if !f.IsExported() || exportNotCarried[f.Name] || (path == "" && reviewNotCarried[f.Name]) {
				continue
			}
			name := f.Name
			if f.Anonymous {
				name = "" // Exported's embedded halves add nothing to a path
			}
			out = append(out, fieldDiffs(strings.Trim(path+"."+name, "."), want.Field(i), got.Field(i))...)
		}
		return out
	case reflect.Slice:
		if want.Len() != got.Len() {
			return []string{fmt.Sprintf("%s has %d items, want %d: %v, want %v", path, got.Len(), want.Len(), got.Interface(), want.Interface())}
		}
		var out []string
		for i := range want.Len() {
			out = append(out, fieldDiffs(fmt.Sprintf("%s[%d]", path, i), want.Index(i), got.Index(i))...)
		}
		return out
	}
	if !reflect.DeepEqual(want.Interface(), got.Interface()) {
		return []string{fmt.Sprintf("%s = %#v, want %#v", path, got.Interface(), want.Interface())}
	}
	return nil
}
