package importer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/url"
	"os"
	"path"
	"regexp"
	"strings"

	"hindsight/attachment"
	"hindsight/store"
)

// Files beside a document: an image or file a Markdown or HTML document
// links by a relative address (a folder written by server export, a page
// saved with its images) is brought in as an attachment, byte for byte,
// and the link is pointed at it. Remote addresses are left as they are:
// nothing is fetched.

// markdownLink finds Markdown links and images: the destination is group 2.
var markdownLink = regexp.MustCompile(`(!?\[[^\]\n]*\]\()([^)\s]+)((?:\s+"[^"\n]*")?\))`)

// attachBeside stores the files p's write-up links beside the document
// name of root as pending attachments of ctx's actor (the import's save
// claims them), and points the links at them. A link to a file that is
// missing, too large or of a type not accepted is left as written.
func (pl *Pipeline) attachBeside(ctx context.Context, root *os.Root, name string, p *store.Postmortem) error {
	done := map[string]string{} // relative path → attachment URL
	var err error
	for _, field := range p.WriteUpFields() {
		if !strings.Contains(*field, "](") { // in every link; the expression alone tests every byte
			continue
		}
		*field = markdownLink.ReplaceAllStringFunc(*field, func(m string) string {
			parts := markdownLink.FindStringSubmatch(m)
			rel, ok := relativePath(parts[2])
			if !ok || err != nil {
				return m
			}
			full := path.Join(path.Dir(name), rel)
			u, seen := done[full]
			if !seen {
				var a store.Attachment
				var stored bool
				a, stored, err = pl.storeBeside(ctx, root, full, altOf(parts[1]))
				if stored {
					u = a.URL()
				}
				done[full] = u
			}
			if u == "" {
				return m
			}
			return parts[1] + u + parts[3]
		})
	}
	return err
}

// relativePath is the file a link's destination names when it is a
// relative path, unescaped.
func relativePath(dest string) (string, bool) {
	u, err := url.Parse(dest)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Path == "" || strings.HasPrefix(u.Path, "/") || u.RawQuery != "" {
		return "", false
	}
	return u.Path, true
}

// altOf is the text of a link or image opening "![text](".
func altOf(open string) string {
	return strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(open, "!"), "["), "](")
}

// storeBeside stores the file at rel of root, if it is one Hindsight
// takes; stored is false, with no error, when it is not.
func (pl *Pipeline) storeBeside(ctx context.Context, root *os.Root, rel, alt string) (store.Attachment, bool, error) {
	f, err := root.Open(rel)
	if err != nil {
		return store.Attachment{}, false, nil // missing, or out of the folder
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || info.Size() > attachment.DefaultMax {
		return store.Attachment{}, false, nil
	}
	checked, err := attachment.Check(f, info.Size(), path.Base(rel), "")
	if err != nil {
		return store.Attachment{}, false, nil
	}
	sum := sha256.New()
	if _, err := io.Copy(sum, io.NewSectionReader(f, 0, info.Size())); err != nil {
		return store.Attachment{}, false, err
	}
	a, err := pl.store.CreateAttachment(ctx, "", store.NewAttachment{
		Name: attachment.Name(path.Base(rel), checked), Alt: alt, ContentType: checked.ContentType,
		SHA256: hex.EncodeToString(sum.Sum(nil)), Size: info.Size(), Width: checked.Width, Height: checked.Height,
		UploadedBy: store.ActorName(ctx), Content: io.NewSectionReader(f, 0, info.Size()), // the import's save claims it
	}, store.AttachmentQuota{})
	if err != nil {
		return a, false, err
	}
	return a, true, nil
}
