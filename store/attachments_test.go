package store_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"

	"hindsight/store"
	"hindsight/store/storetest"
)

func newLog(content string, by string) store.NewAttachment {
	sum := sha256.Sum256([]byte(content))
	return store.NewAttachment{Name: "router.log", ContentType: "text/plain; charset=utf-8", SHA256: hex.EncodeToString(sum[:]),
		Size: int64(len(content)), UploadedBy: by, Content: bytes.NewReader([]byte(content))}
}

// TestCollectAttachments: the job removes the attachments no saved
// version references once the grace period is over, and the bytes no
// attachment shows any more, and records each removal; an attachment a
// saved version referenced is kept, even once the text no longer shows
// it (the history does), and so are its bytes, shared with a removed one.
// Time is passed in: no sleeping.
func TestCollectAttachments(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	ctx := store.WithActor(t.Context(), store.Actor{Name: "ed", Via: "proxy"})
	p := storetest.Draft("Router overload")
	if err := st.CreatePostmortem(ctx, &p); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	used, err := st.CreateAttachment(ctx, p.Slug, newLog("14:02 queue full\n", "ed"), store.AttachmentQuota{})
	if err != nil {
		t.Fatal(err)
	}
	unused, err := st.CreateAttachment(ctx, p.Slug, newLog("never shown\n", "ed"), store.AttachmentQuota{})
	if err != nil {
		t.Fatal(err)
	}
	pending, err := st.CreateAttachment(ctx, "", newLog("14:02 queue full\n", "ed"), store.AttachmentQuota{})
	if err != nil {
		t.Fatal(err)
	}
	if pending.SHA256 != used.SHA256 || pending.ID == used.ID {
		t.Fatalf("pending %+v, used %+v", pending, used)
	}
	// Shown by a version, then taken out of the text: kept for the history.
	cur, _ := st.GetPostmortem(ctx, p.Slug)
	saved, err := st.UpdatePostmortem(ctx, p.Slug, cur.Version, edit(cur, func(f *store.PostmortemFields) { f.Body = used.Markdown() }, "ed"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.UpdatePostmortem(ctx, p.Slug, saved.Version, edit(saved, func(f *store.PostmortemFields) { f.Body = "" }, "ed")); err != nil {
		t.Fatal(err)
	}

	if n, err := st.CollectAttachments(ctx, start.Add(time.Hour), 24*time.Hour); err != nil || n != 0 {
		t.Fatalf("within the grace period: removed %d (%v), want 0", n, err)
	}
	n, err := st.CollectAttachments(ctx, start.Add(25*time.Hour), 24*time.Hour)
	if err != nil || n != 2 {
		t.Fatalf("after the grace period: removed %d (%v), want 2", n, err)
	}
	if _, err := st.GetAttachment(ctx, used.ID, "ed"); err != nil {
		t.Errorf("the attachment a version showed was removed: %v", err)
	}
	for _, a := range []store.Attachment{unused, pending} {
		if _, err := st.GetAttachment(ctx, a.ID, "ed"); err == nil {
			t.Errorf("attachment %d (%s) was kept", a.ID, a.Name)
		}
	}
	var buf bytes.Buffer
	if err := st.WriteAttachment(ctx, used, &buf); err != nil || buf.String() != "14:02 queue full\n" {
		t.Errorf("the kept bytes: %q %v", buf.String(), err)
	}
	if total, _ := st.AttachmentBytes(ctx); total != int64(len("14:02 queue full\n")) {
		t.Errorf("stored bytes %d, want only the kept file's", total)
	}
	entries, _, err := st.ListAudit(ctx, store.AuditFilter{Kind: "attachment.remove"})
	if err != nil || len(entries) != 2 {
		t.Errorf("audit of removals: %d entries (%v), want 2", len(entries), err)
	}
}
